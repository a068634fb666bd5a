package dev.baton.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README can never rot (issue 10): its shell blocks marked {@code <!-- walkthrough -->} run
 * literally, in order, in one bash session, against the distribution archive of this build
 * unpacked into a temporary directory and a server started from it on a free port with a fresh
 * data directory. Any failing command fails the test, which names the block and prints the
 * session's tail.
 *
 * <p>What a block can rely on: the working directory holds {@code ./baton} (the distribution's
 * launcher) and {@code ./data} (the server's data directory, with {@code admin-token});
 * {@code baton} is on {@code PATH}; {@code BATON_SERVER} is the server's URL; {@code BATON_ADMIN_TOKEN}
 * and {@code BATON_TOKEN} hold the admin token; {@code BATON_DATA_DIR} is {@code ./data};
 * {@code WALKTHROUGH_TMP} is an empty scratch directory. Background jobs a block starts
 * ({@code baton runner up … &}) are stopped when the session ends.
 */
@Tag("container")
class ReadmeWalkthroughTest {
    private static final Pattern LISTENING = Pattern.compile("listening on (http://127\\.0\\.0\\.1:\\d+)");

    @TempDir
    Path dir;

    private Process server;

    @AfterEach
    void stopServer() throws InterruptedException {
        if (server == null) return;
        server.destroy(); // SIGTERM: the server shuts down gracefully
        if (!server.waitFor(30, TimeUnit.SECONDS)) server.destroyForcibly();
    }

    @Test
    void theReadmeWalkthroughRunsAsWritten() throws Exception {
        Path readme = Path.of(System.getProperty("baton.readme"));
        WalkthroughBlocks blocks = WalkthroughBlocks.of(Files.readString(readme));
        assertThat(blocks.blocks())
                .as("blocks marked " + WalkthroughBlocks.MARKER + " in " + readme)
                .isNotEmpty();

        Path install = unpack(Path.of(System.getProperty("baton.archive")));
        Path work = Files.createDirectories(dir.resolve("work"));
        Path launcher = Files.writeString(
                work.resolve("baton"), "#!/bin/sh\nexec '" + install.resolve("bin/baton") + "' \"$@\"\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path data = work.resolve("data");

        String url = startServer(install, data);
        String token = Files.readString(data.resolve("admin-token")).strip();

        Path script = Files.writeString(
                dir.resolve("walkthrough.sh"),
                blocks.script(readme.getFileName().toString()));
        Path output = dir.resolve("walkthrough.log");
        ProcessBuilder session = new ProcessBuilder("bash", script.toString())
                .directory(work.toFile())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile());
        Map<String, String> env = quietEnvironment(session.environment());
        env.put("PATH", install.resolve("bin") + ":" + env.getOrDefault("PATH", "/usr/bin:/bin"));
        env.put("BATON_SERVER", url);
        env.put("BATON_ADMIN_TOKEN", token);
        env.put("BATON_TOKEN", token);
        env.put("BATON_DATA_DIR", data.toString());
        env.put(
                "WALKTHROUGH_TMP",
                Files.createDirectories(dir.resolve("scratch")).toString());
        Process bash = session.start();
        boolean ended = bash.waitFor(10, TimeUnit.MINUTES);
        if (!ended) bash.descendants().forEach(ProcessHandle::destroyForcibly);
        if (!ended) bash.destroyForcibly();

        String log = Files.readString(output);
        assertThat(ended)
                .as("the walkthrough ended within 10 minutes:\n" + tail(log))
                .isTrue();
        assertThat(bash.exitValue())
                .as("the walkthrough's exit status; its session:\n" + tail(log))
                .isZero();
        theChangePointExampleFoundOneChangeWhereItStarts(url, token, log);
    }

    /**
     * The README's change point example (docs/alerts.md, "Thresholds against change points: a
     * worked example"): of its nine runs only the ninth, the third at the new level, raised an
     * alert (exit 8), and the server holds one change point from aaaaaa6 to aaaaaa7, +20 %, in the
     * group of the seventh run's commit range.
     */
    private static void theChangePointExampleFoundOneChangeWhereItStarts(String url, String token, String log)
            throws Exception {
        assertThat(log).as("the example's session:\n" + tail(log)).contains("run 9 (commit aaaaaa9) exited 8");
        for (int n = 1; n <= 8; n++) assertThat(log).doesNotContain("run " + n + " (commit aaaaaa" + n + ")");
        try (HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> answer = http.send(
                    HttpRequest.newBuilder(URI.create(url + "/v0/projects/web/change-points?benchmark=sort"))
                            .header("Authorization", "Bearer " + token)
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
            JsonNode points = Wire.mapper().readTree(answer.body()).path("change_points");
            assertThat(points).as(answer.body()).hasSize(1);
            JsonNode c = points.get(0);
            assertThat(c.path("previous_hash").asText()).isEqualTo("aaaaaa6");
            assertThat(c.path("hash").asText()).isEqualTo("aaaaaa7");
            assertThat(c.path("state").asText()).isEqualTo("current");
            assertThat(c.path("change").asDouble()).isCloseTo(0.2, within(1e-9));
            assertThat(c.path("change_interval").get(0).asDouble()).isCloseTo(0.178, within(0.001));
            assertThat(c.path("change_interval").get(1).asDouble()).isCloseTo(0.222, within(0.001));
            assertThat(c.path("alert").asText()).isNotBlank();
            assertThat(c.path("group").asText()).isNotBlank();
        }
    }

    /** Unpacks the archive as docs/runner.md says (tar, one top directory) and returns that directory. */
    private Path unpack(Path archive) throws IOException, InterruptedException {
        assertThat(archive)
                .as("the distribution archive (built by `./mvnw package`)")
                .isRegularFile();
        Path into = Files.createDirectories(dir.resolve("opt-baton"));
        Process tar = new ProcessBuilder(
                        "tar", "-xzf", archive.toString(), "-C", into.toString(), "--strip-components=1")
                .inheritIO()
                .start();
        assertThat(tar.waitFor()).as("tar -xzf " + archive).isZero();
        assertThat(into.resolve("bin/baton")).isExecutable();
        return into;
    }

    /** `baton server` from the archive on a free port; returns its URL once it listens. */
    private String startServer(Path install, Path data) throws IOException, InterruptedException {
        Path log = dir.resolve("server.log");
        ProcessBuilder pb = new ProcessBuilder(
                        install.resolve("bin/baton").toString(), "server", "--port", "0", "--data-dir", data.toString())
                .directory(dir.toFile())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile());
        quietEnvironment(pb.environment());
        server = pb.start();
        for (int i = 0; i < 1200; i++) { // up to 2 minutes on a loaded machine
            Matcher m = LISTENING.matcher(Files.readString(log));
            if (m.find() && Files.exists(data.resolve("admin-token"))) return m.group(1);
            assertThat(server.isAlive())
                    .as("the server is running:\n" + Files.readString(log))
                    .isTrue();
            Thread.sleep(100);
        }
        throw new AssertionError("the server did not say where it listens:\n" + Files.readString(log));
    }

    /**
     * The environment of what the test starts: no class-data-sharing training (it would outlive the
     * test in the background) and a home of its own, so nothing is read from or written to the
     * user's.
     */
    private Map<String, String> quietEnvironment(Map<String, String> env) throws IOException {
        env.keySet().removeIf(k -> k.startsWith("BATON_"));
        env.put("BATON_CDS", "off");
        env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        return env;
    }

    private static String tail(String log) {
        List<String> lines = log.lines().toList();
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 80), lines.size()));
    }
}

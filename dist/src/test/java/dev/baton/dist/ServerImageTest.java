package dev.baton.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The server image (issue 41; built by {@code ./mvnw -Pimage}, cli/pom.xml) runs with runc and
 * passes the README's first job: the image tarball is turned into an OCI layout by skopeo,
 * unpacked by umoci and run by runc on the host's network, bound to 127.0.0.1, configured by
 * environment, its data directory a directory of the host mounted in. Then the README's blocks up
 * to its first {@code baton run --wait} run as written, with the distribution's {@code baton} on the
 * host (a runner started by them on the host, too), and the container is stopped by SIGTERM.
 *
 * <p>Needs root, runc, skopeo, umoci and the image tarball; skipped, saying which is missing,
 * without them.
 */
@Tag("container")
class ServerImageTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DATA = "/var/lib/baton";

    @TempDir
    Path dir;

    private Process container;
    private final String id = "baton-image-test-" + UUID.randomUUID().toString().substring(0, 8);

    @AfterEach
    void stopContainer() throws IOException, InterruptedException {
        if (container == null) return;
        if (container.isAlive()) {
            container.destroyForcibly();
            container.waitFor(30, TimeUnit.SECONDS);
        }
        // Gone already when it stopped cleanly (runc run deletes it): the outcome does not matter.
        Process delete = new ProcessBuilder("runc", "delete", "--force", id)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (!delete.waitFor(30, TimeUnit.SECONDS)) delete.destroyForcibly();
    }

    @Test
    void theServerImageRunsWithRuncAndPassesTheReadmesFirstJob() throws Exception {
        assumeTrue(isRoot(), "runs containers with runc, which needs root");
        for (String tool : List.of("runc", "skopeo", "umoci")) {
            assumeTrue(onPath(tool), tool + " is not installed (apt-get install " + tool + ")");
        }
        String imageProperty = System.getProperty("baton.serverImage", "");
        Path image = Path.of(imageProperty.isEmpty() ? "missing" : imageProperty);
        assumeTrue(Files.isRegularFile(image), "no server image at " + image + " (built by ./mvnw -Pimage package)");

        Path bundle = unpack(image);
        Path data = Files.createDirectories(dir.resolve("work/data"));
        Files.setAttribute(data, "unix:uid", 10001); // the image's user baton
        Files.setAttribute(data, "unix:gid", 10001);
        Files.setPosixFilePermissions(data, PosixFilePermissions.fromString("rwx------"));
        int port = freePort();
        configure(bundle, port, data);

        Path serverLog = dir.resolve("server.log");
        container = new ProcessBuilder("runc", "run", "--bundle", bundle.toString(), id)
                .redirectErrorStream(true)
                .redirectOutput(serverLog.toFile())
                .start();
        String url = "http://127.0.0.1:" + port;
        awaitReady(url, serverLog);
        assertThat(data.resolve("admin-token"))
                .as("the admin token, in the mounted data directory")
                .isRegularFile();

        String log = firstJob(url, data);
        assertThat(log).as("the first job's metrics, printed by run --wait").contains("shell-loop-200k");

        container.destroy(); // SIGTERM, passed on by runc to the server, which shuts down gracefully
        assertThat(container.waitFor(60, TimeUnit.SECONDS))
                .as("the container stopped on SIGTERM:\n" + Files.readString(serverLog))
                .isTrue();
        assertThat(Files.readString(serverLog)).as("the server's log").contains("listening on " + url);
    }

    /** docker-archive → OCI layout (skopeo) → runtime bundle (umoci); returns the bundle. */
    private Path unpack(Path image) throws IOException, InterruptedException {
        Path layout = dir.resolve("oci");
        run(Duration.ofMinutes(3), "skopeo", "copy", "--quiet", "docker-archive:" + image, "oci:" + layout + ":server");
        Path bundle = dir.resolve("bundle");
        run(Duration.ofMinutes(3), "umoci", "unpack", "--image", layout + ":server", bundle.toString());
        assertThat(bundle.resolve("config.json")).isRegularFile();
        return bundle;
    }

    /**
     * The bundle's runtime config: the host's network (no network namespace), 127.0.0.1 and a free
     * port by the image's own settings (environment), the data directory bind-mounted where the image
     * keeps it, no terminal.
     */
    private static void configure(Path bundle, int port, Path data) throws IOException {
        Path file = bundle.resolve("config.json");
        ObjectNode config = (ObjectNode) JSON.readTree(file.toFile());
        ObjectNode process = (ObjectNode) config.get("process");
        process.put("terminal", false);
        ArrayNode env = (ArrayNode) process.get("env");
        env.add("BATON_HOST=127.0.0.1").add("BATON_PORT=" + port);
        ArrayNode namespaces = (ArrayNode) config.get("linux").get("namespaces");
        for (int i = namespaces.size() - 1; i >= 0; i--) {
            if ("network".equals(namespaces.get(i).get("type").asText())) namespaces.remove(i);
        }
        ObjectNode mount = ((ArrayNode) config.get("mounts")).addObject();
        mount.put("destination", DATA).put("type", "bind").put("source", data.toString());
        mount.putArray("options").add("rbind").add("rw");
        JSON.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), config);
    }

    private void awaitReady(String url, Path serverLog) throws IOException, InterruptedException {
        HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        HttpRequest ready = HttpRequest.newBuilder(URI.create(url + "/ready"))
                .timeout(Duration.ofSeconds(5))
                .build();
        for (int i = 0; i < 1200; i++) { // up to 2 minutes on a loaded machine
            assertThat(container.isAlive())
                    .as("the container is running:\n" + Files.readString(serverLog))
                    .isTrue();
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) return;
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the server in the container did not become ready:\n" + Files.readString(serverLog));
    }

    /**
     * The README's blocks up to and including its first {@code baton run}, run as written in one bash
     * session on the host against the container's server; returns the session's output.
     */
    private String firstJob(String url, Path data) throws IOException, InterruptedException {
        Path readme = Path.of(System.getProperty("baton.readme"));
        List<WalkthroughBlocks.Block> blocks = new ArrayList<>();
        for (WalkthroughBlocks.Block block :
                WalkthroughBlocks.of(Files.readString(readme)).blocks()) {
            blocks.add(block);
            if (block.code().contains("baton run ")) break;
        }
        assertThat(blocks.getLast().code()).as("the README's first `baton run`").contains("baton run ");

        Path install = unpackDistribution(Path.of(System.getProperty("baton.archive")));
        Path work = data.getParent();
        Path launcher = Files.writeString(
                work.resolve("baton"), "#!/bin/sh\nexec '" + install.resolve("bin/baton") + "' \"$@\"\n");
        Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        String token = Files.readString(data.resolve("admin-token")).strip();

        Path script = Files.writeString(
                dir.resolve("first-job.sh"),
                new WalkthroughBlocks(blocks).script(readme.getFileName().toString()));
        Path output = dir.resolve("first-job.log");
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
                .as("the README's first job ended within 10 minutes:\n" + log)
                .isTrue();
        assertThat(bash.exitValue())
                .as("the exit status of the README's first job; its session:\n" + log)
                .isZero();
        return log;
    }

    private Path unpackDistribution(Path archive) throws IOException, InterruptedException {
        assertThat(archive)
                .as("the distribution archive (built by `./mvnw package`)")
                .isRegularFile();
        Path into = Files.createDirectories(dir.resolve("opt-baton"));
        run(Duration.ofMinutes(1), "tar", "-xzf", archive.toString(), "-C", into.toString(), "--strip-components=1");
        return into;
    }

    /** As ReadmeWalkthroughTest's: no background CDS training, a home of its own. */
    private Map<String, String> quietEnvironment(Map<String, String> env) throws IOException {
        env.keySet().removeIf(k -> k.startsWith("BATON_"));
        env.put("BATON_CDS", "off");
        env.put("HOME", Files.createDirectories(dir.resolve("home")).toString());
        return env;
    }

    private void run(Duration limit, String... command) throws IOException, InterruptedException {
        Path log = Files.createTempFile(dir, "command", ".log");
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        boolean ended = p.waitFor(limit.toSeconds(), TimeUnit.SECONDS);
        if (!ended) p.destroyForcibly();
        assertThat(ended && p.exitValue() == 0)
                .as(String.join(" ", command) + ":\n" + Files.readString(log))
                .isTrue();
    }

    private static boolean isRoot() throws IOException, InterruptedException {
        Process id = new ProcessBuilder("id", "-u").redirectErrorStream(true).start();
        String out = new String(id.getInputStream().readAllBytes()).strip();
        return id.waitFor() == 0 && out.equals("0");
    }

    private static boolean onPath(String tool) {
        for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (Files.isExecutable(Path.of(d, tool))) return true;
        }
        return Files.isExecutable(Path.of("/usr/sbin", tool));
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
    }
}

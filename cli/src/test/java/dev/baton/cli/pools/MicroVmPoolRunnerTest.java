package dev.baton.cli.pools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.core.microvm.MicroVmKernels;
import dev.baton.dispatch.pools.MicroVmProvider;
import dev.baton.dispatch.pools.PoolProvider;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.value.Architecture;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code microvm} provider with Baton's real runner inside the guest (issue 43): a single-job
 * runner bound to one job, started by the provider in a QEMU microVM (TCG here, so slow: one job),
 * registers with a real server over the guest's user-mode network, runs the job with the process
 * executor (the VM is the sandbox), reports it and leaves, and the guest powers off by itself. The
 * guest runs this test's own classpath with the server's JDK over the host's read-only root; the
 * launcher script lives under {@code target/} because the guest has its own {@code /tmp}.
 */
@Tag("microvm")
class MicroVmPoolRunnerTest {
    @TempDir
    Path dir;

    BatonServer server;
    String url;
    String admin;
    final HttpClient http = HttpClient.newHttpClient();
    final MicroVmProvider provider = new MicroVmProvider();
    String machine;

    @BeforeEach
    void start() throws Exception {
        assumeTrue(
                Files.isExecutable(Path.of("/bin/busybox"))
                        && MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"))
                                .isPresent(),
                "microVM pool test skipped: no guest kernel or static busybox");
        assumeFalse(
                MicroVmProvider.hiddenInTheGuest(Path.of("").toAbsolutePath()),
                "microVM pool test skipped: the build (the guest's runner) is under a directory the guest"
                        + " gets fresh, such as /tmp");
        server = ServerAssembly.builder(ServerConfig.defaults(dir).withListen("127.0.0.1", 0), Clock.systemUTC())
                .start();
        url = "http://127.0.0.1:" + server.port();
        admin = Files.readString(dir.resolve("admin-token")).strip();
        post("/v0/organizations", Map.of("name", "Acme", "slug", "acme", "plan", "team"));
        post("/v0/projects", Map.of("name", "Bench", "slug", "bench", "organization", "acme"));
        post(
                "/v0/specs",
                Map.of(
                        "name",
                        "vm",
                        "slug",
                        "vm",
                        "architecture",
                        Architecture.ofHost().orElseThrow().wireName(),
                        "cpu",
                        1,
                        "memory",
                        256 << 20,
                        "disk",
                        1L << 30));
    }

    @AfterEach
    void stop() throws Exception {
        if (machine != null) provider.stop(machine, Map.of());
        if (server != null) server.close();
    }

    JsonNode post(String path, Object body) throws Exception {
        var r = http.send(
                HttpRequest.newBuilder(URI.create(url + path))
                        .header("Authorization", "Bearer " + admin)
                        .POST(HttpRequest.BodyPublishers.ofString(Wire.encode(body)))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(path + ": " + r.body()).isBetween(200, 201);
        return Wire.mapper().readTree(r.body());
    }

    JsonNode get(String path) throws Exception {
        var r = http.send(
                HttpRequest.newBuilder(URI.create(url + path))
                        .header("Authorization", "Bearer " + admin)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        return Wire.mapper().readTree(r.body());
    }

    @Test
    void aSingleJobRunnerInAMicroVmRegistersRunsItsJobAndTheGuestPowersOff() throws Exception {
        String job = post(
                        "/v0/run",
                        Map.of(
                                "project", "bench",
                                "spec", "vm",
                                "cmd", List.of("sh", "-c", "echo \"in-guest $(cat /proc/cmdline)\""),
                                "timeout", 300,
                                "adapter", "raw"))
                .at("/job/uuid")
                .asText();
        JsonNode created = post("/v0/runners", Map.of("name", "pool vm 1", "ephemeral", true, "job", job));
        String slug = created.at("/runner/slug").asText();
        post("/v0/runners/" + slug + "/specs", Map.of("spec", "vm"));

        Path base = Path.of("target", "microvm-pool-" + UUID.randomUUID()).toAbsolutePath();
        Files.createDirectories(base);
        Path baton = base.resolve("baton");
        Files.writeString(
                baton,
                "#!/bin/sh\nexec java -Xshare:auto -XX:TieredStopAtLevel=1 -cp '"
                        + System.getProperty("java.class.path") + "' dev.baton.cli.Baton \"$@\"\n");
        Files.setPosixFilePermissions(baton, PosixFilePermissions.fromString("rwx------"));
        Path work = base.resolve("machines");
        machine = provider.start(new PoolProvider.StartRequest(
                url,
                slug,
                created.get("key").asText(),
                Map.of(),
                "m1",
                "vm",
                Map.of(
                        "root", // this host's root: the test's classpath and JDK; a test machine holds no secrets
                        "/",
                        "work_dir",
                        work.toString(),
                        "command",
                        baton.toString(),
                        "args",
                        "--executor process --allow-no-sandbox",
                        "memory_mib",
                        "1024")));
        long pid = Long.parseLong(machine.substring(0, machine.indexOf('@')));

        // TCG: the guest's JVM starts 15-20 times slower than the host's; the bound is generous.
        await().atMost(Duration.ofMinutes(15))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> get("/v0/projects/bench/jobs/" + job)
                                .path("status")
                                .asText()
                                .equals("processed")
                        || ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty());
        JsonNode done = get("/v0/projects/bench/jobs/" + job);
        Path m1 = work.resolve("m1");
        assertThat(done.path("status").asText())
                .as(
                        "job %s; agent.log: %s; console: %s",
                        done, tail(m1.resolve("agent.log")), tail(m1.resolve("console.log")))
                .isEqualTo("processed");
        assertThat(done.at("/output/results/0/exit_code").asInt()).isZero();
        assertThat(done.at("/output/results/0/stdout").asText())
                .contains("in-guest")
                .contains("baton.dir=" + m1);

        // Its one job reported, the runner leaves and the guest powers off: QEMU exits by itself.
        await().atMost(Duration.ofMinutes(5))
                .pollInterval(Duration.ofSeconds(1))
                .until(() ->
                        ProcessHandle.of(pid).filter(ProcessHandle::isAlive).isEmpty());
        assertThat(Files.readString(m1.resolve("console.log"))).contains("the runner exited with 0");
        provider.stop(machine, Map.of()); // gone already: a success
        machine = null;
    }

    private static String tail(Path p) {
        try {
            String s = Files.exists(p) ? Files.readString(p) : "(none)";
            return s.length() > 3000 ? s.substring(s.length() - 3000) : s;
        } catch (java.io.IOException e) {
            return e.toString();
        }
    }
}

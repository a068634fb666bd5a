package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The machine fingerprint in the CLI: a real server on SQLite and the local runner of
 * {@code baton up} (real agent, process executor) reading this machine; {@code jobs get} and
 * {@code reports get} print what /proc says, and specs take the clean-fingerprint requirement.
 */
class MachineFingerprintCliTest {
    @TempDir
    Path dir;

    BatonServer server;
    LocalInstallation local;
    CliEnvironment environment;

    @BeforeEach
    void start() throws Exception {
        server = ServerAssembly.builder(
                        ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0), Clock.systemUTC())
                .start();
        String token = Files.readString(dir.resolve("data/admin-token")).strip();
        local = LocalInstallation.start(server.publicUrl(), token, dir.resolve("data"));
        environment = CliRun.environment(dir, Map.of("BATON_SERVER", server.publicUrl(), "BATON_TOKEN", token));
    }

    @AfterEach
    void stop() {
        if (local != null) local.close();
        if (server != null) server.close();
    }

    CliRun.Result baton(String... args) {
        return CliRun.run(environment, args);
    }

    @Test
    void jobsGetAndReportsGetShowTheMachineTheNumbersCameFrom() throws Exception {
        CliRun.Result run = baton(
                "run",
                "--project",
                "local",
                "--spec",
                "local",
                "--wait",
                "--poll-interval",
                "50ms",
                "--",
                "sh",
                "-c",
                "echo '{\"parse\":{\"latency\":{\"value\":1}}}'");
        assertThat(run.exit()).as(run.err()).isEqualTo(ExitCodes.OK);

        var job = baton("jobs", "get", "--project", "local", "latest", "--json").json();
        var fingerprint = job.path("fingerprint");
        assertThat(fingerprint.isObject()).as(job.toString()).isTrue();
        String kernel = Files.readString(Path.of("/proc/sys/kernel/osrelease")).strip();
        assertThat(fingerprint.path("kernel").asText()).isEqualTo(kernel);

        CliRun.Result get = baton("jobs", "get", "--project", "local", "latest");
        assertThat(get.exit()).as(get.err()).isZero();
        assertThat(get.out())
                .contains("machine the job ran on")
                .containsPattern("kernel +" + java.util.regex.Pattern.quote(kernel))
                .containsPattern("executor +process, runner ");
        if (fingerprint.path("warnings").isEmpty()) {
            assertThat(get.out()).contains("clean: no setting that adds noise was found");
        } else {
            for (var w : fingerprint.path("warnings"))
                assertThat(get.out()).contains("warning " + w.path("code").asText() + ": ");
        }
        boolean cpufreq = Files.exists(Path.of("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor"));
        if (!cpufreq)
            assertThat(get.out()).as("no cpufreq here: said so, not guessed").containsPattern("governor +unknown");

        CliRun.Result report =
                baton("reports", "get", "--project", "local", job.path("report").asText());
        assertThat(report.out())
                .contains("measured on")
                .containsPattern("kernel +" + java.util.regex.Pattern.quote(kernel));
    }

    @Test
    void specsTakeTheCleanFingerprintRequirement() {
        var created = baton(
                "specs",
                "create",
                "--name",
                "Bare metal",
                "--cpu",
                "1",
                "--memory",
                "1GiB",
                "--disk",
                "1GiB",
                "--require-clean-fingerprint",
                "--json");
        assertThat(created.exit()).as(created.err()).isZero();
        assertThat(created.json().path("require_clean_fingerprint").asBoolean()).isTrue();
        assertThat(baton("specs", "update", "bare-metal", "--require-clean-fingerprint", "false", "--json")
                        .json()
                        .path("require_clean_fingerprint")
                        .asBoolean())
                .isFalse();
        CliRun.Result nothing = baton("specs", "update", "bare-metal");
        assertThat(nothing.exit()).isNotZero();
        assertThat(nothing.err()).contains("--require-clean-fingerprint");
        assertThat(baton("specs", "get", "bare-metal").out()).containsPattern("require_clean_fingerprint +false");
    }
}

package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole pool loop (issue 43) on a real server on SQLite, with the {@code process} provider
 * and real runners: {@code baton pools create} makes a pool of at most 2 machines for a spec no
 * runner serves; three jobs submitted with {@code baton run} each get a machine started for it
 * (a real {@code baton runner up --ephemeral} process, this build's classes on a JVM of its own),
 * run on it and on no other, and every machine is stopped after its job, so the pool is back to
 * zero. {@code baton pools list|get|update|delete} are checked on the way. Real clock: the
 * machines are real processes.
 */
class PoolLoopTest {
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
        // Whatever the test left, the pool's delete stops it (and fails the test if it cannot).
        if (server != null && baton("pools", "list", "--json").json().size() > 0)
            assertThat(baton("pools", "delete", "burst").exit()).isZero();
        if (local != null) local.close();
        if (server != null) server.close();
    }

    CliRun.Result baton(String... args) {
        return CliRun.run(environment, args);
    }

    /** {@code baton} as a pool's process provider runs it: this JVM's classes on a JVM of its own. */
    private Path launcher() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Path script = dir.resolve("baton-launcher");
        Files.writeString(
                script,
                "#!/bin/sh\nexec '" + java + "' -Xmx256m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp '"
                        + System.getProperty("java.class.path") + "' dev.baton.cli.Baton \"$@\"\n");
        Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
        return script;
    }

    private JsonNode pool() {
        CliRun.Result r = baton("pools", "get", "burst", "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        return r.json();
    }

    @Test
    void aPoolStartsAMachineForEachWaitingJobRunsItThereAndStopsItAfter() throws Exception {
        assertThat(baton(
                                "specs",
                                "create",
                                "--name",
                                "pooled",
                                "--slug",
                                "pooled",
                                "--cpu",
                                "1",
                                "--memory",
                                "1GiB",
                                "--disk",
                                "1GiB")
                        .exit())
                .isZero();
        CliRun.Result created = baton(
                "pools",
                "create",
                "burst",
                "--spec",
                "pooled",
                "--max",
                "2",
                "--idle-timeout",
                "5s",
                "--boot-timeout",
                "2m",
                "--provider",
                "process",
                "--label",
                "pool=burst",
                "--provider-config",
                "command=" + launcher(),
                "--provider-config",
                "work_dir=" + dir.resolve("machines"),
                "--provider-config",
                "args=--executor process --allow-no-sandbox");
        assertThat(created.exit()).as(created.err()).isZero();
        CliRun.Result listed = baton("pools", "list");
        assertThat(listed.out()).containsPattern("burst +pooled +process +0 +2 +0 +0 +0 +0");

        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            CliRun.Result run = baton(
                    "run",
                    "--project",
                    "local",
                    "--spec",
                    "pooled",
                    "--json",
                    "--",
                    "sh",
                    "-c",
                    "echo '{\"pool\":{\"n\":{\"value\":" + i + "}}}'");
            assertThat(run.exit()).as(run.err()).isZero();
            jobs.add(run.json().path("job").path("uuid").asText());
        }

        // Never more than max live machines, while the jobs run to their end.
        AtomicInteger mostLive = new AtomicInteger();
        await().atMost(Duration.ofMinutes(4))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    JsonNode p = pool();
                    int live = p.path("starting").asInt()
                            + p.path("idle").asInt()
                            + p.path("busy").asInt();
                    mostLive.accumulateAndGet(live, Math::max);
                    for (String job : jobs) {
                        JsonNode j = baton("jobs", "get", job, "--project", "local", "--json")
                                .json();
                        if (!j.path("status").asText().equals("processed")) return false;
                    }
                    return true;
                });
        assertThat(mostLive.get()).isBetween(1, 2);

        // Every machine ends stopped after its job: nothing is left running.
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(200))
                .until(() -> {
                    JsonNode p = pool();
                    return p.path("starting").asInt()
                                            + p.path("idle").asInt()
                                            + p.path("busy").asInt()
                                    == 0
                            && p.path("machines").findValuesAsText("state").stream()
                                    .noneMatch("stopping"::equals);
                });
        JsonNode p = pool();
        Set<String> ranOn = new HashSet<>();
        for (String job : jobs) {
            JsonNode j =
                    baton("jobs", "get", job, "--project", "local", "--json").json();
            String runnerUuid = j.path("attempts").path(0).path("runner").asText();
            CliRun.Result got = baton("runners", "get", runnerUuid, "--json");
            assertThat(got.exit()).as(got.err()).isZero();
            String runner = got.json().findValue("slug").asText();
            assertThat(runner).as("job %s ran on a pool runner", job).startsWith("pool-burst-");
            // The machine started for the job ran it (bound: no job runs on another's machine).
            JsonNode machine = null;
            for (JsonNode m : p.path("machines")) if (m.path("job").asText().equals(job)) machine = m;
            assertThat(machine).as("the machine started for job %s", job).isNotNull();
            assertThat(machine.path("runner").asText()).isEqualTo(runner);
            assertThat(machine.path("state").asText()).isEqualTo("stopped");
            assertThat(machine.path("reason").asText()).isEqualTo("its job ended");
            ranOn.add(runner);
        }
        assertThat(ranOn).hasSize(3);
        for (JsonNode m : p.path("machines")) {
            long pid = Long.parseLong(m.path("provider_id").asText().split("@")[0]);
            assertThat(ProcessHandle.of(pid).filter(ProcessHandle::isAlive))
                    .as("machine process %s", pid)
                    .isEmpty();
        }
        CliRun.Result shown = baton("pools", "get", "burst");
        assertThat(shown.out()).contains("MACHINE").contains("stopped").contains(jobs.getFirst());

        CliRun.Result updated = baton("pools", "update", "burst", "--max", "1", "--json");
        assertThat(updated.exit()).as(updated.err()).isZero();
        assertThat(updated.json().path("max").asInt()).isEqualTo(1);
        assertThat(baton("pools", "update", "burst").exit()).isNotZero();
        CliRun.Result deleted = baton("pools", "delete", "burst");
        assertThat(deleted.exit()).as(deleted.err()).isZero();
        assertThat(baton("pools", "get", "burst").exit()).isNotZero();
    }
}

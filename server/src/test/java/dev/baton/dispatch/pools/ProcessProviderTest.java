package dev.baton.dispatch.pools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code process} provider (issue 43) with a stand-in for {@code baton}: a script that writes
 * what it was given and waits, so the test sees the arguments, the environment and the stop.
 */
class ProcessProviderTest {
    @TempDir
    Path dir;

    private final ProcessProvider provider = new ProcessProvider();

    @Test
    void startsAnEphemeralRunnerProcessWithTheKeyInItsEnvironmentAndStopsIt() throws Exception {
        Path baton = dir.resolve("baton");
        Files.writeString(
                baton,
                "#!/bin/sh\necho \"$* | $BATON_SERVER | $BATON_RUNNER_KEY\" > \"$(dirname \"$0\")/seen\"\nexec sleep 600\n");
        Files.setPosixFilePermissions(baton, PosixFilePermissions.fromString("rwx------"));
        String key = "baton_runner_" + "b".repeat(64);
        String id = provider.start(new PoolProvider.StartRequest(
                "http://127.0.0.1:7700",
                "pool-burst-1",
                key,
                Map.of("pool", "burst"),
                "m1",
                "burst",
                Map.of(
                        "command", baton.toString(),
                        "work_dir", dir.resolve("work").toString(),
                        "args", "--executor process --allow-no-sandbox")));
        assertThat(id).matches("\\d+@\\d+@[0-9a-f]{12}\\.\\d+").endsWith("@" + ProcessProvider.HOST);
        Path seen = dir.resolve("seen");
        await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(seen) && Files.size(seen) > 0);
        assertThat(Files.readString(seen).strip())
                .isEqualTo("runner up --ephemeral --runner pool-burst-1 --work-dir " + dir.resolve("work/m1")
                        + " --executor process --allow-no-sandbox --label pool=burst | http://127.0.0.1:7700 | " + key);
        assertThat(ProcessProvider.find(id)).isPresent();

        provider.stop(id, Map.of());
        assertThat(ProcessProvider.find(id)).isEmpty();
        provider.stop(id, Map.of()); // gone already: still a success
    }

    @Test
    void aCommandThatCannotStartIsAProviderFailure() {
        assertThatThrownBy(() -> provider.start(new PoolProvider.StartRequest(
                        "http://127.0.0.1:7700",
                        "r",
                        "baton_runner_" + "c".repeat(64),
                        Map.of(),
                        "m2",
                        "p",
                        Map.of("command", dir.resolve("missing").toString(), "work_dir", dir.toString()))))
                .isInstanceOf(PoolProvider.ProviderException.class)
                .hasMessageContaining("cannot start")
                .hasMessageNotContaining("baton_runner_");
    }

    private Path standIn(String body) throws Exception {
        Path baton = dir.resolve("baton");
        Files.writeString(baton, "#!/bin/sh\n" + body);
        Files.setPosixFilePermissions(baton, PosixFilePermissions.fromString("rwx------"));
        return baton;
    }

    private PoolProvider.StartRequest request(String machine, Path command) {
        return new PoolProvider.StartRequest(
                "http://127.0.0.1:7700",
                "r",
                "baton_runner_" + "d".repeat(64),
                Map.of(),
                machine,
                "p",
                Map.of(
                        "command",
                        command.toString(),
                        "work_dir",
                        dir.resolve("work").toString()));
    }

    @Test
    void aProcessThatExitsAtOnceIsAFailedStartWithItsStatusAndOutput() throws Exception {
        Path baton = standIn("echo \"unknown option --nope\"\nexit 2\n");
        assertThatThrownBy(() -> provider.start(request("m3", baton)))
                .isInstanceOf(PoolProvider.ProviderException.class)
                .hasMessageContaining("exited with status 2")
                .hasMessageContaining("unknown option --nope")
                .hasMessageNotContaining("baton_runner_");
    }

    /** What another node does: it never started the process, it has only the id the store holds. */
    @Test
    void anIdOfAnotherHostIsNeverSignalled() throws Exception {
        String id = provider.start(request("m4", standIn("exec sleep 600\n")));
        String elsewhere = id.substring(0, id.lastIndexOf('@')) + "@0123456789ab.1";
        try {
            assertThatThrownBy(() -> provider.stop(elsewhere, Map.of()))
                    .isInstanceOf(PoolProvider.ProviderException.class)
                    .hasMessageContaining("another host");
            assertThat(ProcessProvider.find(id)).isPresent();
            // An older id without a host part is this host's.
            String old = id.substring(0, id.lastIndexOf('@'));
            assertThat(ProcessProvider.find(old)).isPresent();
        } finally {
            provider.stop(id, Map.of());
        }
        assertThat(ProcessProvider.find(id)).isEmpty();
    }

    /**
     * A node that died between the start and writing the id back: the next scaler has only the
     * machine's own id, and the provider finds the process by its work directory.
     */
    @Test
    void aMachineWhoseIdWasNeverRecordedIsFoundByItsDirectoryAndStopped() throws Exception {
        // Not exec'd: the shell keeps its arguments on its command line, as the real launcher's JVM does.
        Path baton = standIn("while :; do sleep 1; done\n");
        String id = provider.start(request("m5", baton));
        String other = provider.start(request("m6", baton));
        Map<String, String> config = Map.of("work_dir", dir.resolve("work").toString());
        try {
            assertThat(provider.stopUnrecorded("m5", config)).isTrue();
            assertThat(ProcessProvider.find(id)).isEmpty();
            assertThat(ProcessProvider.find(other))
                    .as("another machine's process")
                    .isPresent();
            assertThat(provider.stopUnrecorded("m7", config)).isTrue(); // nothing runs for it: nothing to do
        } finally {
            provider.stop(other, Map.of());
        }
    }
}

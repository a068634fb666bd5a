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
        assertThat(id).matches("\\d+@\\d+");
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
}

package dev.baton.dispatch.pools;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code exec} provider with real scripts that succeed, fail and hang (issue 43). */
class ExecProviderTest {
    @TempDir
    Path dir;

    private final ExecProvider exec = new ExecProvider();

    private PoolProvider.StartRequest request(Map<String, String> config) {
        return new PoolProvider.StartRequest(
                "http://127.0.0.1:7700",
                "pool-burst-1",
                "baton_runner_" + "a".repeat(64),
                Map.of(),
                "0b8f-machine",
                "burst",
                config);
    }

    @Test
    void startPassesTheRunnerInTheEnvironmentAndReturnsTheLastLineItPrints() throws Exception {
        Path seen = dir.resolve("env");
        String start =
                "echo booting; echo \"$BATON_SERVER $BATON_RUNNER $BATON_RUNNER_KEY $BATON_POOL $BATON_MACHINE\" > "
                        + seen + "; echo i-0abc";
        String id = exec.start(request(Map.of("start", start, "stop", "true")));
        assertThat(id).isEqualTo("i-0abc");
        assertThat(Files.readString(seen).strip())
                .isEqualTo("http://127.0.0.1:7700 pool-burst-1 baton_runner_" + "a".repeat(64) + " burst 0b8f-machine");
    }

    @Test
    void stopGetsTheIdAndAStopOfAGoneMachineIsTheScriptsToSucceed() throws Exception {
        Path stopped = dir.resolve("stopped");
        exec.stop("i-0abc", Map.of("start", "true", "stop", "echo $BATON_PROVIDER_ID >> " + stopped));
        assertThat(Files.readString(stopped).strip()).isEqualTo("i-0abc");
    }

    @Test
    void aFailingStartSaysWhatItWroteToStderrAndNeverTheKey() {
        assertThatThrownBy(
                        () -> exec.start(request(Map.of("start", "echo 'quota exceeded' >&2; exit 3", "stop", "true"))))
                .isInstanceOf(PoolProvider.ProviderException.class)
                .hasMessageContaining("exited with 3")
                .hasMessageContaining("quota exceeded")
                .hasMessageNotContaining("baton_runner_");
        assertThatThrownBy(() -> exec.start(request(Map.of("start", "true", "stop", "true"))))
                .hasMessageContaining("printed no machine id");
        assertThatThrownBy(() -> exec.start(request(Map.of("stop", "true")))).hasMessageContaining("no 'start'");
    }

    @Test
    void aHangingCommandIsKilledAfterItsTimeout() {
        assertThatThrownBy(
                        () -> exec.start(request(Map.of("start", "sleep 600", "stop", "true", "timeout_seconds", "1"))))
                .isInstanceOf(PoolProvider.ProviderException.class)
                .hasMessageContaining("did not finish within 1 s");
        assertThatThrownBy(() -> exec.stop("i-1", Map.of("stop", "exit 1", "timeout_seconds", "0")))
                .hasMessageContaining("timeout_seconds must be 1-3600");
    }
}

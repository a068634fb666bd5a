package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.model.RunnerCapabilities;
import org.junit.jupiter.api.Test;

/** Issue 45 on the wire: {@code ready}'s capabilities say whether the executor runs a baseline image; older agents say nothing. */
class BaselineImageCapabilityWireTest {
    @Test
    void readySaysWhetherTheExecutorRunsABaselineImageAndAnOlderReadyLeavesItUnknown() {
        var runc = new RunnerMessage.Ready(
                30,
                "linux",
                "x86_64",
                "0.5.0",
                1,
                RunnerCapabilities.executor("runc").withBaselineImage(true));
        String encoded = Wire.encode(runc);
        assertThat(encoded).contains("\"capabilities\":{\"executor\":\"runc\",\"baseline_image\":true}");
        assertThat(((RunnerMessage.Ready) Wire.decodeRunnerMessage(encoded)).capabilities())
                .isEqualTo(new RunnerCapabilities("runc", null, null, true));

        var old = (RunnerMessage.Ready) Wire.decodeRunnerMessage(
                "{\"event\":\"ready\",\"os\":\"linux\",\"arch\":\"x86_64\",\"version\":\"0.4.0\","
                        + "\"capabilities\":{\"executor\":\"process\"}}");
        assertThat(old.capabilities().baselineImage()).isNull();
        assertThat(old.capabilities().withBaselineImage(false).bounded().baselineImage())
                .isFalse();
    }
}

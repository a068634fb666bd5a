package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.model.RunnerHost;
import java.net.InetSocketAddress;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Issue 41 on the wire: the agent's machine in {@code ready}, a router's {@code machine} in {@code running}, both optional. */
class RunnerHostWireTest {
    @Test
    void readyCarriesTheAgentsHostPidAndStartAndOlderReadiesStillRead() {
        var ready = (RunnerMessage.Ready) Wire.decodeRunnerMessage(
                "{\"event\":\"ready\",\"os\":\"linux\",\"arch\":\"x86_64\",\"version\":\"0.4.0\","
                        + "\"host\":\"bench-1\",\"pid\":4242,\"agent_started\":\"2026-11-29T05:00:00Z\"}");
        assertThat(ready.machine("10.0.0.7"))
                .isEqualTo(new RunnerHost(
                        "linux",
                        "x86_64",
                        "0.4.0",
                        "bench-1",
                        4242L,
                        Instant.parse("2026-11-29T05:00:00Z"),
                        "10.0.0.7"));
        var old = (RunnerMessage.Ready) Wire.decodeRunnerMessage(
                "{\"event\":\"ready\",\"os\":\"linux\",\"arch\":\"x86_64\",\"version\":\"0.1\"}");
        assertThat(old.machine(null)).isEqualTo(new RunnerHost("linux", "x86_64", "0.1", null, null, null, null));
        String encoded = Wire.encode(ready);
        assertThat(encoded)
                .contains("\"host\":\"bench-1\"")
                .contains("\"pid\":4242")
                .contains("\"agent_started\":\"2026-11-29T05:00:00Z\"");
    }

    @Test
    void aRoutersRunningNamesTheMachineBehindIt() {
        RunnerHost behind = new RunnerHost(
                "linux", "aarch64", "0.4.0", "arm-3", 77L, Instant.parse("2026-11-29T05:00:00Z"), "192.168.1.3");
        var running = new RunnerMessage.Running(JobUuid.random(), LeaseId.random()).withMachine(behind);
        assertThat(((RunnerMessage.Running) Wire.decodeRunnerMessage(Wire.encode(running))).machine())
                .isEqualTo(behind);
        assertThat(Wire.encode(running.withMachine(null))).doesNotContain("machine");
    }

    @Test
    void whatIsOnlyShownIsCutNotRefused() {
        RunnerHost cut = new RunnerHost("x".repeat(500), null, null, "h".repeat(129), -1L, null, null).bounded();
        assertThat(cut.os()).hasSize(RunnerHost.MAX_LENGTH);
        assertThat(cut.host()).hasSize(RunnerHost.MAX_LENGTH);
        assertThat(cut.pid()).isNull();
        assertThat(RunnerHost.address(new InetSocketAddress("127.0.0.1", 5555))).isEqualTo("127.0.0.1");
    }
}

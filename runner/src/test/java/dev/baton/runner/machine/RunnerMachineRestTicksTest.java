package dev.baton.runner.machine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.model.ClaimedJob;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 45 (decision 0051): an agent at rest ticks — and so heartbeats — at a third of the
 * server's read timeout, as its welcome says it, never more often than needed and never so seldom
 * that the server loses it; whenever a tick has work it ticks every second.
 */
class RunnerMachineRestTicksTest {
    private static final Instant T0 = Instant.parse("2026-11-29T10:00:00Z");
    private static final Duration BUSY = Duration.ofSeconds(1);
    private static final Duration REST = Duration.ofSeconds(10);

    private RunnerMachine machine;

    @BeforeEach
    void start() {
        machine = RunnerMachine.fresh(MachineConfig.defaults("test"), new Random(1));
        machine.handle(new Input.Start(T0));
    }

    private void connectedWith(Long readTimeoutSeconds) {
        machine.handle(new Input.ConnectionOpened(T0));
        machine.handle(
                new Input.Received(new ServerMessage.Welcome("r", "r", List.of("host"), 1L << 20, readTimeoutSeconds)));
    }

    @Test
    void atRestItTicksAtAThirdOfTheServersReadTimeoutCappedByTheRestInterval() {
        connectedWith(30L);
        assertThat(machine.tickWithin(BUSY, REST)).isEqualTo(Duration.ofSeconds(10));
        assertThat(machine.tickWithin(BUSY, Duration.ofSeconds(5))).isEqualTo(Duration.ofSeconds(5));
        assertThat(machine.tickWithin(BUSY, Duration.ofHours(1))).isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aShortReadTimeoutNeverMakesItTickFasterThanBusy() {
        connectedWith(2L);
        assertThat(machine.tickWithin(BUSY, REST)).isEqualTo(BUSY);
    }

    @Test
    void aWelcomeWithoutTheReadTimeoutKeepsTheOneSecondTick() {
        connectedWith(null); // a router or an older server
        assertThat(machine.tickWithin(BUSY, REST)).isEqualTo(BUSY);
    }

    @Test
    void notConnectedItTicksEverySecond() {
        assertThat(machine.tickWithin(BUSY, REST)).isEqualTo(BUSY);
        connectedWith(30L);
        machine.handle(new Input.ConnectionClosed(T0, "gone", false, false, false));
        assertThat(machine.tickWithin(BUSY, REST)).isEqualTo(BUSY);
    }

    @Test
    void aJobHeldMakesItTickEverySecondUntilItsResultIsAcknowledged() {
        connectedWith(30L);
        ClaimedJob job = Jobs.claimed(60);
        machine.handle(new Input.Received(new ServerMessage.Job(job)));
        assertThat(machine.tickWithin(BUSY, REST)).isEqualTo(BUSY);
    }

    @Test
    void quietItTicksEverySecond() {
        connectedWith(30L);
        machine.handle(new Input.SignalReceived(Input.Signal.QUIET, T0));
        assertThat(machine.tickWithin(BUSY, REST)).isEqualTo(BUSY);
        machine.handle(new Input.SignalReceived(Input.Signal.RESUME, T0));
        assertThat(machine.tickWithin(BUSY, REST)).isEqualTo(Duration.ofSeconds(10));
    }
}

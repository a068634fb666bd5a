package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A real signal sent to this JVM by {@code kill}: WINCH, whose default action is to be ignored. */
class OsSignalTest {
    @Test
    void aHandledSignalRunsTheActionAndTheOldHandlerComesBack() throws Exception {
        CountDownLatch delivered = new CountDownLatch(1);
        OsSignal handled = OsSignal.handle("WINCH", delivered::countDown);
        try {
            kill("WINCH");
            assertThat(delivered.await(30, TimeUnit.SECONDS))
                    .as("the handler ran")
                    .isTrue();
        } finally {
            handled.restore();
        }
        CountDownLatch second = new CountDownLatch(1);
        OsSignal again = OsSignal.handle("WINCH", second::countDown);
        again.restore();
        kill("WINCH");
        assertThat(second.await(300, TimeUnit.MILLISECONDS))
                .as("a restored handler no longer runs")
                .isFalse();
    }

    @Test
    void anUnknownSignalIsRefusedWithItsReason() {
        assertThatThrownBy(() -> OsSignal.handle("NOSUCHSIGNAL", () -> {}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NOSUCHSIGNAL");
        assertThat(OsSignal.tryHandle("NOSUCHSIGNAL", () -> {})).isEmpty();
    }

    private static void kill(String signal) throws Exception {
        Process kill = new ProcessBuilder(
                        "kill",
                        "-" + signal,
                        Long.toString(ProcessHandle.current().pid()))
                .inheritIO()
                .start();
        assertThat(kill.waitFor()).isZero();
    }
}

package dev.baton.cli.runner;

import dev.baton.channelclient.machine.Input;
import dev.baton.cli.OsSignal;
import java.io.PrintWriter;
import java.util.function.Consumer;

/**
 * Maps operating-system signals to agent inputs (seed 002): TERM and INT begin the graceful
 * shutdown, TSTP makes the runner quiet (the JVM is not stopped), CONT makes it take jobs again.
 * Limits are {@link OsSignal}'s; a signal that cannot be handled is reported.
 */
final class Signals {
    private Signals() {}

    /** @param agent the runner agent of either transport ({@code RunnerAgent::signal}, {@code LeaseRunner::signal}) */
    static void install(Consumer<Input.Signal> agent, PrintWriter err) {
        handle("TERM", Input.Signal.TERMINATE, agent, err);
        handle("INT", Input.Signal.TERMINATE, agent, err);
        handle("TSTP", Input.Signal.QUIET, agent, err);
        handle("CONT", Input.Signal.RESUME, agent, err);
    }

    private static void handle(String name, Input.Signal meaning, Consumer<Input.Signal> agent, PrintWriter err) {
        try {
            OsSignal.handle(name, () -> agent.accept(meaning));
        } catch (IllegalArgumentException e) {
            err.println("baton runner up: cannot handle SIG" + name + ": " + e.getMessage());
        }
    }
}

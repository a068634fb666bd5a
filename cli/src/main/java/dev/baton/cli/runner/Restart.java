package dev.baton.cli.runner;

import dev.baton.runner.machine.RunnerMachine;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts the updated agent. Under systemd ({@code INVOCATION_ID} set) the agent just exits with
 * status 75 and the unit's {@code Restart=} starts the new jar; a child started here would be
 * killed with the unit's control group. Elsewhere it starts the same command line again, with
 * the same standard streams, and exits.
 */
final class Restart {
    private Restart() {}

    static int afterUpdate(PrintWriter err) {
        if (System.getenv("INVOCATION_ID") != null) return RunnerMachine.EXIT_RESTART;
        ProcessHandle.Info info = ProcessHandle.current().info();
        if (info.command().isEmpty() || info.arguments().isEmpty()) {
            err.println(
                    "baton runner up: updated; start the runner again (the command line is not available to restart it)");
            return RunnerMachine.EXIT_RESTART;
        }
        List<String> command = new ArrayList<>();
        command.add(info.command().get());
        command.addAll(List.of(info.arguments().get()));
        try {
            new ProcessBuilder(command).inheritIO().start();
            return 0;
        } catch (Exception e) {
            err.println("baton runner up: updated, but could not restart: " + e.getMessage());
            return RunnerMachine.EXIT_RESTART;
        }
    }
}

package dev.baton.cli;

import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * {@code baton up}: the one-command local installation. Today it starts the server on the
 * embedded SQLite file in ./data; the local runner and a sample job join this same command.
 */
@Command(name = "up", mixinStandardHelpOptions = true, description = "Start Baton locally (server on SQLite in ./data).")
final class UpCommand implements Callable<Integer> {
    @Mixin
    ServerOptions options;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException {
        String next = String.join(System.lineSeparator(),
                "",
                "Next, in another terminal (the CLI finds ./data/admin-token by itself):",
                "  ./baton runners list",
                "  ./baton --help");
        return ServerCommand.serve(options.load(System.getenv()), spec.commandLine().getOut(), spec.commandLine().getErr(), next);
    }
}

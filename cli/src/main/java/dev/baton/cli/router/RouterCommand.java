package dev.baton.cli.router;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code baton router}: a local queue between a Baton server and a fleet of runners (docs/router.md). */
@Command(
        name = "router",
        mixinStandardHelpOptions = true,
        description = "Run a router: one runner to the server, a server to the runners behind it.",
        subcommands = {RouterUpCommand.class, RouterKeysCommand.class, RouterStatusCommand.class})
public final class RouterCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}

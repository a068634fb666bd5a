package dev.baton.cli.runner;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** {@code baton runner}: the runner agent. Register this class as a subcommand of the {@code baton} command. */
@Command(
        name = "runner",
        mixinStandardHelpOptions = true,
        description = "Run a runner agent on this machine.",
        subcommands = {UpCommand.class})
public final class RunnerCommand implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}

package dev.baton.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code baton} command: the server, and a client of its REST API. */
@Command(
        name = "baton",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Baton: a self-hosted job orchestrator for dedicated runner machines.",
        subcommands = {
            UpCommand.class,
            ServerCommand.class,
            RunnersCommand.class,
            SpecsCommand.class,
            OrganizationsCommand.class,
            ProjectsCommand.class,
            RunCommand.class,
            JobsCommand.class,
            dev.baton.cli.image.ImageCommand.class,
            dev.baton.cli.runner.RunnerCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Baton implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, shared by main and tests. */
    public static CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Baton());
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> {
            if (e instanceof ClientException ce) {
                cmd.getErr().println("baton: " + ce.getMessage());
                return 1;
            }
            if (e instanceof dev.baton.server.config.ConfigException || e instanceof IllegalArgumentException) {
                cmd.getErr().println("baton: " + e.getMessage());
                return 2;
            }
            throw e;
        });
        return cli;
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}

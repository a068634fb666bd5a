package dev.baton.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code baton} command: the server, and a client of its REST API. */
@Command(
        name = "baton",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        description = "Baton: a self-hosted job orchestrator for dedicated runner machines.")
public final class Baton implements Runnable {
    /**
     * The subcommands, in the order of the usage message. They are registered here rather than in
     * {@code @Command(subcommands = …)} so that {@link #main} can build only the one a call names:
     * picocli reads every option of every registered command by reflection when the command line
     * is built, which was a quarter of a short command's start-up.
     */
    static final List<Class<?>> SUBCOMMANDS = List.of(
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
            CommandLine.HelpCommand.class);

    /** Subcommands that look at the whole command tree, so they get every command registered. */
    private static final List<String> NEED_THE_WHOLE_TREE = List.of("help", "completion", "generate-completion");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine(args).execute(args));
    }

    /** The configured command line with every subcommand, shared by tests and help. */
    public static CommandLine commandLine() {
        return configure(SUBCOMMANDS);
    }

    /**
     * The command line for one call: only the subcommand that {@code args} names (none for
     * {@code --version}), or every one when the first argument names none of them, so that usage,
     * help and suggestions for a mistyped command still see them all.
     */
    static CommandLine commandLine(String[] args) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) return configure(List.of());
        if (args.length > 0 && !NEED_THE_WHOLE_TREE.contains(args[0])) {
            for (Class<?> command : SUBCOMMANDS) {
                if (command.getAnnotation(Command.class).name().equals(args[0])) return configure(List.of(command));
            }
        }
        return commandLine();
    }

    private static CommandLine configure(List<Class<?>> subcommands) {
        CommandLine cli = new CommandLine(new Baton());
        subcommands.forEach(cli::addSubcommand);
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

package dev.baton.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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
            ReportsCommand.class,
            dev.baton.cli.image.ImageCommand.class,
            dev.baton.cli.runner.RunnerCommand.class,
            CompletionCommand.class,
            CommandLine.HelpCommand.class
        })
public final class Baton implements Runnable {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Inherited by every subcommand: stack traces on errors, and (baton up) the server log on the console. */
    @Option(names = "--verbose", scope = CommandLine.ScopeType.INHERIT,
            description = "show stack traces of errors; 'up' also logs to the console instead of data/server.log")
    boolean verbose;

    private final CliEnvironment environment;

    Baton(CliEnvironment environment) {
        this.environment = environment;
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The configured command line, on this process's environment. */
    public static CommandLine commandLine() {
        return commandLine(CliEnvironment.system());
    }

    /** The configured command line on a given environment (tests pass their own). */
    static CommandLine commandLine(CliEnvironment environment) {
        CommandLine cli = new CommandLine(new Baton(environment));
        addHelpEverywhere(cli);
        ErrorHandlers.install(cli);
        return cli;
    }

    /** The environment of the command line {@code spec} belongs to. */
    static CliEnvironment environment(CommandLine.Model.CommandSpec spec) {
        return spec.root().userObject() instanceof Baton b ? b.environment : CliEnvironment.system();
    }

    /** Whether {@code --verbose} was given anywhere on the command line {@code spec} belongs to. */
    static boolean verbose(CommandLine.Model.CommandSpec spec) {
        return spec.root().userObject() instanceof Baton b && b.verbose;
    }

    /**
     * Every command answers --help and exits 0, also when it has required options: picocli skips
     * the required-option check when a usage-help option is present, so each command needs its
     * own (the annotations only gave them to the group commands).
     */
    private static void addHelpEverywhere(CommandLine cli) {
        CommandLine.Model.CommandSpec spec = cli.getCommandSpec();
        if (spec.optionsMap().get("--help") == null && !(cli.getCommand() instanceof CommandLine.HelpCommand)) {
            spec.mixinStandardHelpOptions(true);
        }
        for (CommandLine sub : cli.getSubcommands().values()) addHelpEverywhere(sub);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }
}

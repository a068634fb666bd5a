package dev.baton.cli;

import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

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
    static final List<Subcommand> SUBCOMMANDS = List.of(
            new Subcommand("up", UpCommand.class),
            new Subcommand("server", ServerCommand.class),
            new Subcommand("runners", RunnersCommand.class),
            new Subcommand("specs", SpecsCommand.class),
            new Subcommand("pools", PoolsCommand.class),
            new Subcommand("orgs", OrganizationsCommand.class),
            new Subcommand("projects", ProjectsCommand.class),
            new Subcommand("run", RunCommand.class),
            new Subcommand("jobs", JobsCommand.class),
            new Subcommand("reports", ReportsCommand.class),
            new Subcommand("thresholds", ThresholdsCommand.class),
            new Subcommand("alerts", AlertsCommand.class),
            new Subcommand("metrics", MetricsCommand.class),
            new Subcommand("webhooks", WebhooksCommand.class),
            new Subcommand("code-hosts", CodeHostsCommand.class),
            new Subcommand("schedules", SchedulesCommand.class),
            new Subcommand("users", UsersCommand.class),
            new Subcommand("members", MembersCommand.class),
            new Subcommand("tokens", TokensCommand.class),
            new Subcommand("audit", AuditCommand.class),
            new Subcommand("usage", UsageCommand.class),
            new Subcommand("login", LoginCommand.class),
            new Subcommand("whoami", WhoAmICommand.class),
            new Subcommand("ojs", OjsCommand.class),
            new Subcommand("image", dev.baton.cli.image.ImageCommand.class),
            new Subcommand("runner", dev.baton.cli.runner.RunnerCommand.class),
            new Subcommand("router", dev.baton.cli.router.RouterCommand.class),
            new Subcommand("completion", CompletionCommand.class),
            new Subcommand("help", CommandLine.HelpCommand.class));

    /**
     * A subcommand's name and class. The name is its {@code @Command}'s too (a test holds them
     * equal); it is written here again so that finding the command a call names reads no
     * annotation: parsing one {@code @Command} loads the classes of all its subcommands, and reading
     * them all loaded about 120 command classes that a runner agent never uses (decision 0078).
     */
    record Subcommand(String name, Class<?> type) {}

    /** Subcommands that look at the whole command tree, so they get every command registered. */
    private static final List<String> NEED_THE_WHOLE_TREE = List.of("help", "completion", "generate-completion");

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    /** Inherited by every subcommand: stack traces on errors, and (baton up) the server log on the console. */
    @Option(
            names = "--verbose",
            scope = CommandLine.ScopeType.INHERIT,
            description = "show stack traces of errors; 'up' also logs to the console instead of data/server.log")
    boolean verbose;

    private final CliEnvironment environment;

    Baton(CliEnvironment environment) {
        this.environment = environment;
    }

    public static void main(String[] args) {
        System.exit(commandLine(args).execute(args));
    }

    /** The configured command line with every subcommand, on this process's environment. */
    public static CommandLine commandLine() {
        return commandLine(CliEnvironment.system());
    }

    /** The configured command line with every subcommand on a given environment (tests pass their own). */
    static CommandLine commandLine(CliEnvironment environment) {
        return configure(environment, SUBCOMMANDS);
    }

    /** The command line for one call on this process's environment (see below). */
    static CommandLine commandLine(String[] args) {
        return commandLine(CliEnvironment.system(), args);
    }

    /**
     * The command line for one call: only the subcommand that {@code args} names (none for
     * {@code --version}), or every one when the first argument names none of them, so that usage,
     * help and suggestions for a mistyped command still see them all.
     */
    static CommandLine commandLine(CliEnvironment environment, String[] args) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V")))
            return configure(environment, List.of());
        if (args.length > 0 && !NEED_THE_WHOLE_TREE.contains(args[0])) {
            for (Subcommand command : SUBCOMMANDS) {
                if (command.name().equals(args[0])) return configure(environment, List.of(command));
            }
        }
        return commandLine(environment);
    }

    private static CommandLine configure(CliEnvironment environment, List<Subcommand> subcommands) {
        CommandLine cli = new CommandLine(new Baton(environment));
        subcommands.forEach(command -> cli.addSubcommand(command.type()));
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

package dev.baton.cli;

import dev.baton.core.config.ConfigException;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * How {@code baton} reports what went wrong: one line that starts with {@code baton:}, no stack
 * trace unless {@code --verbose}. A mistyped option or command is named together with its nearest
 * match, also when the same command line lacks a required option (picocli reports the missing
 * option first, which hid the typo that caused it).
 */
final class ErrorHandlers {
    private ErrorHandlers() {}

    static void install(CommandLine cli) {
        cli.setParameterExceptionHandler(ErrorHandlers::usageError);
        cli.setExecutionExceptionHandler((e, cmd, parsed) -> executionError(e, cmd));
    }

    private static int usageError(ParameterException ex, String[] args) {
        CommandLine cmd = ex.getCommandLine();
        PrintWriter err = cmd.getErr();
        List<String> unmatched =
                ex instanceof UnmatchedArgumentException u ? u.getUnmatched() : cmd.getUnmatchedArguments();
        String line = unmatched.isEmpty() ? ex.getMessage() : unmatchedMessage(cmd, unmatched);
        err.println("baton: " + line);
        err.println("See '" + cmd.getCommandSpec().qualifiedName() + " --help'.");
        err.flush();
        return ExitCodes.USAGE;
    }

    /** "unknown option '--projetc' for 'baton jobs list' (did you mean '--project'?)", likewise for commands. */
    static String unmatchedMessage(CommandLine cmd, List<String> unmatched) {
        String first = unmatched.get(0);
        CommandLine.Model.CommandSpec spec = cmd.getCommandSpec();
        boolean option = first.startsWith("-");
        String word = option && first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
        List<String> candidates = new ArrayList<>();
        if (option) {
            for (CommandLine.Model.OptionSpec o : spec.options())
                if (!o.hidden()) candidates.addAll(List.of(o.names()));
        } else {
            candidates.addAll(spec.subcommands().keySet());
        }
        String kind =
                option ? "unknown option" : spec.subcommands().isEmpty() ? "unexpected argument" : "unknown command";
        String hint = NearestMatch.of(word, candidates)
                .map(m -> " (did you mean '" + m + "'?)")
                .orElse("");
        return kind + " '" + word + "' for '" + spec.qualifiedName() + "'" + hint;
    }

    private static int executionError(Exception e, CommandLine cmd) {
        PrintWriter err = cmd.getErr();
        boolean verbose = Baton.verbose(cmd.getCommandSpec());
        int status;
        if (e instanceof ClientException ce) {
            err.println("baton: " + ce.getMessage());
            status = ExitCodes.CLIENT_ERROR;
        } else if (e instanceof ConfigException || e instanceof IllegalArgumentException) {
            err.println("baton: " + e.getMessage());
            status = ExitCodes.USAGE;
        } else {
            err.println("baton: unexpected error: " + ServerCommand.reason(e)
                    + (verbose ? "" : " (run again with --verbose for details)"));
            status = ExitCodes.CLIENT_ERROR;
        }
        if (verbose) e.printStackTrace(err);
        err.flush();
        return status;
    }
}

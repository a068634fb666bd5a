package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Base of the client subcommands: server and token options, one request, its answer printed as
 * aligned text (or the server's JSON with {@code --json}).
 */
abstract class ClientCommand implements Callable<Integer> {
    @Mixin
    ClientOptions connection;

    @Option(names = "--json", description = "print the server's JSON instead of text (for scripts)")
    boolean json;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    abstract JsonNode call(ApiClient api);

    /** How a person sees the answer; by default its fields, one per line. */
    void human(JsonNode answer, PrintWriter out) {
        Output.fields(out, answer);
    }

    @Override
    public Integer call() {
        JsonNode answer = call(connection.client());
        if (answer == null) return ExitCodes.OK;
        if (json) Output.json(out(), answer);
        else {
            human(answer, out());
            out().flush();
        }
        return ExitCodes.OK;
    }

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    CliEnvironment environment() {
        return Baton.environment(spec);
    }

    void note(String text) {
        spec.commandLine().getErr().println(text);
        spec.commandLine().getErr().flush();
    }
}

package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;

/** Base of the client subcommands: server and token options, one request, JSON printed. */
abstract class ClientCommand implements Callable<Integer> {
    @Mixin
    ClientOptions connection;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    abstract JsonNode call(ApiClient api);

    @Override
    public Integer call() {
        Output.json(spec.commandLine().getOut(), call(connection.client()));
        return 0;
    }

    void note(String text) {
        spec.commandLine().getErr().println(text);
        spec.commandLine().getErr().flush();
    }
}

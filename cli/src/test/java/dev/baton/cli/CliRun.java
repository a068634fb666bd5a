package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.BufferedReader;
import java.io.PrintWriter;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;
import picocli.CommandLine;

/** Runs {@code baton} in this JVM as a user would, on a test environment (no real ~/.config, no terminal). */
final class CliRun {
    record Result(int exit, String out, String err) {
        JsonNode json() {
            try {
                return Wire.mapper().readTree(out);
            } catch (Exception e) {
                throw new AssertionError("not JSON: " + out + err, e);
            }
        }
    }

    private CliRun() {}

    static JsonNode parse(String json) {
        try {
            return Wire.mapper().readTree(json);
        } catch (Exception e) {
            throw new AssertionError("not JSON: " + json, e);
        }
    }

    static CliEnvironment environment(Path home, Map<String, String> env) {
        return new CliEnvironment(env, home, Clock.systemUTC(), new BufferedReader(new StringReader("")), false);
    }

    static Result run(CliEnvironment environment, String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cli = Baton.commandLine(environment);
        cli.setOut(new PrintWriter(out, true));
        cli.setErr(new PrintWriter(err, true));
        int exit = cli.execute(args);
        return new Result(exit, out.toString(), err.toString());
    }
}

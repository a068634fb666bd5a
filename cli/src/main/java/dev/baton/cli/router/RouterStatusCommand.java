package dev.baton.cli.router;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code baton router status}: the router's upstream link, its runners and the jobs it holds (from its /status). */
@Command(name = "status", mixinStandardHelpOptions = true, description = "Show a router's runners and jobs.")
public final class RouterStatusCommand implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(
            names = "--router",
            defaultValue = "http://127.0.0.1:7710",
            description = "The router's URL (default ${DEFAULT-VALUE})")
    URI router;

    @Override
    public Integer call() throws Exception {
        PrintWriter out = spec.commandLine().getOut();
        JsonNode s;
        try (HttpClient http =
                HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
            var response = http.send(
                    HttpRequest.newBuilder(router.resolve("/status"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (response.statusCode() != 200) {
                spec.commandLine()
                        .getErr()
                        .println("baton router status: " + router + " answered HTTP " + response.statusCode());
                return 1;
            }
            s = Wire.mapper().readTree(response.body());
        } catch (IOException e) {
            spec.commandLine()
                    .getErr()
                    .println("baton router status: cannot reach the router at " + router + ": " + e.getMessage());
            return 6;
        }
        out.println("upstream: runner " + s.path("upstream_runner").asText() + ", "
                + (s.path("upstream_connected").asBoolean() ? "connected" : "DISCONNECTED") + ", policy "
                + s.path("policy").asText());
        out.println();
        out.println(String.format("%-20s %-20s %-10s %-8s %s", "RUNNER", "SPECS", "CONNECTED", "WAITING", "JOBS"));
        for (JsonNode r : s.path("runners")) {
            out.println(String.format(
                    "%-20s %-20s %-10s %-8d %d",
                    r.path("name").asText(),
                    join(r.path("specs")),
                    r.path("connected").asBoolean() ? "yes" : "no",
                    r.path("free").asInt(),
                    r.path("jobs").asInt()));
        }
        out.println();
        out.println(String.format("%-36s %-10s %-10s %-10s %s", "JOB", "SPEC", "STATE", "RUNNER", "HELD"));
        for (JsonNode j : s.path("jobs")) {
            out.println(String.format(
                    "%-36s %-10s %-10s %-10s %ds",
                    j.path("job").asText(),
                    j.path("spec").asText("-"),
                    j.path("state").asText(),
                    j.path("runner").asText("-"),
                    j.path("held_seconds").asLong()));
        }
        out.flush();
        return 0;
    }

    private static String join(JsonNode array) {
        StringBuilder b = new StringBuilder();
        for (JsonNode n : array) b.append(b.isEmpty() ? "" : ",").append(n.asText());
        return b.toString();
    }
}

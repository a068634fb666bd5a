package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.cli.runner.UpCommand.DurationConverter;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code baton pools}: runner pools that start single-job runners when jobs wait (docs/cli.md, runner.md "Pools"). */
@Command(
        name = "pools",
        mixinStandardHelpOptions = true,
        description = "Manage runner pools: single-job runners started when jobs wait for a spec (admin).",
        subcommands = {
            PoolsCommand.ListPools.class,
            PoolsCommand.Get.class,
            PoolsCommand.Create.class,
            PoolsCommand.Update.class,
            PoolsCommand.Delete.class
        })
final class PoolsCommand {
    static void table(Iterable<JsonNode> pools, java.io.PrintWriter out) {
        Table t = new Table(
                "SLUG", "SPEC", "PROVIDER", "MIN_IDLE", "MAX", "STARTING", "IDLE", "BUSY", "FAILED_STARTS", "REASON");
        for (JsonNode p : pools) {
            t.row(
                    p.path("slug").asText(),
                    p.path("spec").asText(),
                    p.path("provider").asText(),
                    p.path("min_idle").asText(),
                    p.path("max").asText(),
                    p.path("starting").asText(),
                    p.path("idle").asText(),
                    p.path("busy").asText(),
                    p.path("failed_starts").asText(),
                    p.hasNonNull("backoff_until") ? p.path("reason").asText() : "");
        }
        if (t.isEmpty()) out.println("(no pools)");
        else t.print(out);
    }

    static void machines(JsonNode pool, java.io.PrintWriter out) {
        Table t = new Table("MACHINE", "STATE", "AGE", "RUNNER", "JOB", "NODE", "REASON");
        for (JsonNode m : pool.path("machines")) {
            t.row(
                    m.path("uuid").asText(),
                    m.path("state").asText(),
                    m.path("age_seconds").asText() + "s",
                    Output.text(m.get("runner")),
                    Output.text(m.get("job")),
                    Output.text(m.get("node")),
                    Output.text(m.get("reason")));
        }
        if (t.isEmpty()) out.println("(no machines)");
        else t.print(out);
    }

    @Command(name = "list", description = "List the pools with their machines by state.")
    static final class ListPools extends ClientCommand {
        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/pools").path("pools");
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            table(answer, out);
        }
    }

    @Command(name = "get", description = "Show one pool and its machines (state, age, the job each took).")
    static final class Get extends ClientCommand {
        @Parameters(paramLabel = "POOL")
        String pool;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/pools/" + seg(pool));
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            table(java.util.List.of(answer), out);
            out.println();
            machines(answer, out);
        }
    }

    /** The settings both create and update take; null: not given. */
    abstract static class Settings extends ClientCommand {
        @Option(names = "--spec", description = "the spec its runners serve")
        String spec;

        @Option(names = "--label", paramLabel = "KEY=VALUE", description = "a label its runners get (repeatable)")
        Map<String, String> labels;

        @Option(names = "--min-idle", description = "unbound machines kept idle (0: scale to zero)")
        Integer minIdle;

        @Option(names = "--max", description = "the most live machines (1-1000)")
        Integer max;

        @Option(
                names = "--idle-timeout",
                converter = DurationConverter.class,
                description = "an idle machine beyond --min-idle is stopped after this (e.g. 5m)")
        Duration idleTimeout;

        @Option(
                names = "--boot-timeout",
                converter = DurationConverter.class,
                description = "a machine not registered after this is stopped, a failed start (e.g. 5m)")
        Duration bootTimeout;

        @Option(names = "--provider", description = "process or exec")
        String provider;

        @Option(
                names = "--provider-config",
                paramLabel = "KEY=VALUE",
                description = "a provider setting, e.g. start=/etc/baton/start-vm (repeatable; replaces them all)")
        Map<String, String> providerConfig;

        Map<String, Object> body() {
            Map<String, Object> body = new HashMap<>();
            if (spec != null) body.put("spec", spec);
            if (labels != null) body.put("labels", new LinkedHashMap<>(labels));
            if (minIdle != null) body.put("min_idle", minIdle);
            if (max != null) body.put("max", max);
            if (idleTimeout != null) body.put("idle_timeout_seconds", idleTimeout.toSeconds());
            if (bootTimeout != null) body.put("boot_timeout_seconds", bootTimeout.toSeconds());
            if (provider != null) body.put("provider", provider);
            if (providerConfig != null) body.put("provider_config", new LinkedHashMap<>(providerConfig));
            return body;
        }
    }

    @Command(name = "create", description = "Create a pool.")
    static final class Create extends Settings {
        @Parameters(paramLabel = "SLUG")
        String slug;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> body = body();
            body.put("slug", slug);
            return api.post("/v0/pools", body);
        }
    }

    @Command(
            name = "update",
            description = "Change a pool's settings (those given); the scaler follows within seconds.")
    static final class Update extends Settings {
        @Parameters(paramLabel = "POOL")
        String pool;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> body = body();
            if (body.isEmpty()) throw new ClientException("nothing to change: pass a setting such as --max");
            return api.patch("/v0/pools/" + seg(pool), body);
        }
    }

    @Command(name = "delete", description = "Stop a pool's machines (busy ones too) and delete it.")
    static final class Delete extends ClientCommand {
        @Parameters(paramLabel = "POOL")
        String pool;

        @Override
        JsonNode call(ApiClient api) {
            api.delete("/v0/pools/" + seg(pool));
            note("deleted " + pool);
            return null;
        }
    }
}

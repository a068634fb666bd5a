package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.Sizes;
import dev.baton.protocol.value.Architecture;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "specs",
        mixinStandardHelpOptions = true,
        description = "Manage specs (hardware classes jobs target).",
        subcommands = {
            SpecsCommand.Create.class,
            SpecsCommand.ListSpecs.class,
            SpecsCommand.Get.class,
            SpecsCommand.Archive.class,
            SpecsCommand.Delete.class,
            SpecsCommand.Update.class
        })
final class SpecsCommand {
    /** Specs as a table, sizes in binary units (what --memory and --disk take). */
    static void table(JsonNode specs, java.io.PrintWriter out) {
        Table t = new Table("SLUG", "NAME", "ARCH", "CPU", "MEMORY", "DISK", "NETWORK", "ARCHIVED");
        for (JsonNode s : specs) {
            t.row(
                    s.path("slug").asText(),
                    s.path("name").asText(),
                    s.path("architecture").asText(),
                    s.path("cpu").asText(),
                    Output.bytes(s.get("memory")),
                    Output.bytes(s.get("disk")),
                    s.path("network").asText("false"),
                    Output.text(s.get("archived")));
        }
        if (t.isEmpty()) out.println("(no specs)");
        else t.print(out);
    }

    @Command(name = "create", description = "Create a spec.")
    static final class Create extends ClientCommand {
        @Option(names = "--name", required = true)
        String name;

        @Option(names = "--slug")
        String slug;

        @Option(names = "--architecture", description = "x86_64 or aarch64 (default: this machine's)")
        String architecture;

        @Option(names = "--cpu", required = true)
        int cpu;

        @Option(names = "--memory", required = true, description = "bytes, or e.g. 4GiB")
        String memory;

        @Option(names = "--disk", required = true, description = "bytes, or e.g. 20GiB")
        String disk;

        @Option(names = "--network", description = "jobs get network access")
        boolean network;

        @Option(
                names = "--require-clean-fingerprint",
                description = "run its jobs only on machines whose fingerprint has no noise"
                        + " warning; other runners decline them (noisy_machine)")
        boolean requireCleanFingerprint;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> body = new HashMap<>();
            body.put("name", name);
            if (slug != null) body.put("slug", slug);
            body.put(
                    "architecture",
                    architecture != null
                            ? architecture
                            : Architecture.ofHost()
                                    .map(Architecture::wireName)
                                    .orElseThrow(() ->
                                            new ClientException("unknown host architecture; pass --architecture")));
            body.put("cpu", cpu);
            body.put("memory", Sizes.parse(memory));
            body.put("disk", Sizes.parse(disk));
            body.put("network", network);
            if (requireCleanFingerprint) body.put("require_clean_fingerprint", true);
            return api.post("/v0/specs", body);
        }
    }

    @Command(name = "list", description = "List specs.")
    static final class ListSpecs extends ClientCommand {
        @Option(names = "--archived", description = "include archived specs")
        boolean archived;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/specs" + (archived ? "?archived=true" : ""));
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            table(answer, out);
        }
    }

    @Command(name = "get", description = "Show one spec.")
    static final class Get extends ClientCommand {
        @Parameters(paramLabel = "SPEC")
        String spec;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/specs/" + seg(spec));
        }
    }

    @Command(name = "archive", description = "Archive a spec (no new jobs may target it).")
    static final class Archive extends ClientCommand {
        @Parameters(paramLabel = "SPEC")
        String spec;

        @Override
        JsonNode call(ApiClient api) {
            return api.patch("/v0/specs/" + seg(spec), Map.of("archived", true));
        }
    }

    @Command(name = "update", description = "Change a spec's settings.")
    static final class Update extends ClientCommand {
        @Parameters(paramLabel = "SPEC")
        String spec;

        @Option(
                names = "--require-clean-fingerprint",
                arity = "1",
                paramLabel = "true|false",
                description = "run its jobs only on machines whose fingerprint has no noise warning")
        Boolean requireCleanFingerprint;

        @Override
        JsonNode call(ApiClient api) {
            if (requireCleanFingerprint == null)
                throw new ClientException("nothing to change: pass --require-clean-fingerprint true|false");
            return api.patch("/v0/specs/" + seg(spec), Map.of("require_clean_fingerprint", requireCleanFingerprint));
        }
    }

    @Command(name = "delete", description = "Delete a spec no job references.")
    static final class Delete extends ClientCommand {
        @Parameters(paramLabel = "SPEC")
        String spec;

        @Override
        JsonNode call(ApiClient api) {
            api.delete("/v0/specs/" + seg(spec));
            note("deleted " + spec);
            return null;
        }
    }
}

package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.message.Wire;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton runners capabilities}: what a runner can run, in one place. What its executor
 * detected (sent with {@code ready}, known while it is connected: {@code GET
 * /v0/runners/{r}/capabilities}) is the machine's to say; which specs it serves, the only thing
 * dispatch matches on, is the admin's to set, and {@code --spec} sets exactly that list.
 */
@Command(
        name = "capabilities",
        description = {
            "Show what a runner can run: what its executor detected (while it is connected)",
            "and the specs it serves; with --spec (repeatable) or --no-specs, set exactly the specs it serves."
        })
final class RunnersCapabilities extends ClientCommand {
    @Parameters(paramLabel = "RUNNER", description = "UUID or slug")
    String runner;

    @ArgGroup(exclusive = true)
    SpecSet set;

    static final class SpecSet {
        @Option(
                names = "--spec",
                paramLabel = "SPEC",
                description = "a spec (UUID or slug) the runner is to serve; repeatable")
        List<String> specs;

        @Option(names = "--no-specs", description = "the runner is to serve no spec (it then takes no jobs)")
        boolean none;
    }

    @Override
    JsonNode call(ApiClient api) {
        JsonNode found = api.get("/v0/runners/" + seg(runner));
        String uuid = found.path("uuid").asText();
        ObjectNode answer = Wire.mapper().createObjectNode();
        answer.put("runner", uuid);
        answer.put("slug", found.path("slug").asText());
        // Asked first: a token that may not see it (admin only) is refused before anything is changed.
        JsonNode detected = detected(api, uuid);
        answer.put("connected", detected != null);
        answer.set("capabilities", detected == null ? null : detected.get("capabilities"));
        answer.set("images", detected == null ? null : detected.get("images"));
        if (set != null) {
            Change change = setSpecs(api, uuid, set.none ? List.of() : set.specs);
            answer.set("added", Wire.mapper().valueToTree(change.added()));
            answer.set("removed", Wire.mapper().valueToTree(change.removed()));
        }
        answer.set("specs", api.get("/v0/runners/" + seg(uuid) + "/specs"));
        return answer;
    }

    /** The capabilities answer, or null when the runner has no open channel (a fact to show, not an error). */
    private static JsonNode detected(ApiClient api, String runner) {
        try {
            return api.get("/v0/runners/" + seg(runner) + "/capabilities");
        } catch (ClientException e) {
            if ("runner_not_connected".equals(e.code())) return null;
            throw e;
        }
    }

    private record Change(List<String> added, List<String> removed) {}

    /**
     * Every named spec is looked up before the first change, so a misspelt one changes nothing;
     * then the missing ones are added and the others removed.
     */
    private static Change setSpecs(ApiClient api, String runner, List<String> refs) {
        Map<String, String> wanted = new LinkedHashMap<>(); // uuid → slug
        for (String ref : refs) {
            JsonNode spec = api.get("/v0/specs/" + seg(ref));
            wanted.put(spec.path("uuid").asText(), spec.path("slug").asText());
        }
        Set<String> served = new LinkedHashSet<>();
        List<String> removed = new ArrayList<>();
        for (JsonNode s : api.get("/v0/runners/" + seg(runner) + "/specs")) {
            String uuid = s.path("uuid").asText();
            served.add(uuid);
            if (!wanted.containsKey(uuid)) {
                api.delete("/v0/runners/" + seg(runner) + "/specs/" + seg(uuid));
                removed.add(s.path("slug").asText());
            }
        }
        List<String> added = new ArrayList<>();
        for (var e : wanted.entrySet()) {
            if (served.contains(e.getKey())) continue;
            api.post("/v0/runners/" + seg(runner) + "/specs", Map.of("spec", e.getKey()));
            added.add(e.getValue());
        }
        return new Change(added, removed);
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        Table t = new Table(
                "runner",
                answer.path("slug").asText() + " (" + answer.path("runner").asText() + ")");
        t.row(
                "connected",
                answer.path("connected").asBoolean()
                        ? "yes"
                        : "no (what it detected is known only while it is connected)");
        if (answer.path("connected").asBoolean()) {
            JsonNode c = answer.path("capabilities");
            if (c.isObject()) {
                for (String field : List.of("executor", "hypervisor", "accelerator"))
                    if (c.hasNonNull(field)) t.row(field, c.get(field).asText());
                // Issue 45: absent from agents too old to say (they would run the baseline in the job's image).
                if (c.hasNonNull("baseline_image"))
                    t.row(
                            "baseline image",
                            c.get("baseline_image").asBoolean() ? "yes" : "no (runc and microvm runners only)");
            } else {
                t.row("executor", "- (the runner reports none)");
            }
            JsonNode images = answer.path("images");
            t.row("images held", images.isArray() ? String.valueOf(images.size()) : "-");
        }
        List<String> specs = new ArrayList<>();
        for (JsonNode s : answer.path("specs"))
            specs.add(s.path("slug").asText() + (s.hasNonNull("archived") ? " (archived)" : ""));
        t.row("specs", specs.isEmpty() ? "none: it takes no jobs" : String.join(", ", specs));
        if (answer.has("added")) t.row("added", words((ArrayNode) answer.get("added")));
        if (answer.has("removed")) t.row("removed", words((ArrayNode) answer.get("removed")));
        t.print(out);
    }

    private static String words(ArrayNode slugs) {
        List<String> all = new ArrayList<>();
        slugs.forEach(s -> all.add(s.asText()));
        return all.isEmpty() ? "-" : String.join(", ", all);
    }
}

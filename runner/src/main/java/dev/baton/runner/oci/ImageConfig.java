package dev.baton.runner.oci;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** The parts of an image's config that decide how its process starts (Docker semantics). */
public record ImageConfig(
        String architecture,
        List<String> entrypoint,
        List<String> cmd,
        List<String> env,
        String workingDir,
        String user) {

    static ImageConfig parse(JsonNode root) {
        JsonNode c = root.path("config");
        return new ImageConfig(
                text(root.path("architecture")),
                strings(c.path("Entrypoint")),
                strings(c.path("Cmd")),
                strings(c.path("Env")),
                text(c.path("WorkingDir")),
                text(c.path("User")));
    }

    private static String text(JsonNode n) {
        return n.isTextual() && !n.asText().isEmpty() ? n.asText() : null;
    }

    private static List<String> strings(JsonNode n) {
        if (!n.isArray()) return null;
        List<String> out = new ArrayList<>();
        n.forEach(x -> out.add(x.asText()));
        return out;
    }
}

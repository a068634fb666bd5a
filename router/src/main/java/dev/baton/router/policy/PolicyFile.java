package dev.baton.router.policy;

import dev.baton.protocol.id.ProjectUuid;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;

/**
 * Reads the scheduling policy from a properties file:
 * <pre>
 * policy = fair-share            # or first-come (the default without a file)
 * default_weight = 1
 * weight.3f2c…-…-…  = 3          # a project's UUID
 * </pre>
 */
public final class PolicyFile {
    private PolicyFile() {}

    public static SchedulingPolicy read(Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return parse(p);
    }

    static SchedulingPolicy parse(Properties p) {
        String policy = p.getProperty("policy", "first-come").strip();
        return switch (policy) {
            case "first-come" -> new FirstCome();
            case "fair-share" -> {
                Map<ProjectUuid, Double> weights = new HashMap<>();
                for (String key : p.stringPropertyNames()) {
                    if (!key.startsWith("weight.")) continue;
                    weights.put(ProjectUuid.parse(key.substring("weight.".length())), number(p, key));
                }
                yield new FairShare(weights, p.containsKey("default_weight") ? number(p, "default_weight") : 1.0);
            }
            default ->
                throw new IllegalArgumentException("policy must be first-come or fair-share, got '" + policy + "'");
        };
    }

    private static double number(Properties p, String key) {
        try {
            return Double.parseDouble(p.getProperty(key).strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(key + " must be a number, got '" + p.getProperty(key) + "'");
        }
    }
}

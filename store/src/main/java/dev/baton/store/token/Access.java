package dev.baton.store.token;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * One entry of a registry token's {@code access} claim, in the shape of the Docker token
 * specification: a resource type, a name and the actions allowed on it.
 *
 * <ul>
 *   <li>{@code repository}: {@code name} is {@code <project uuid>/<path>} (the project part
 *       canonicalized to its UUID, so renaming a project's slug does not change what a token
 *       means), or the name as requested when the project did not exist at issue time;
 *   <li>{@code project}: {@code name} is a project UUID; every repository of the project.
 * </ul>
 *
 * Actions are {@code pull}, {@code push}, {@code delete}; {@code *} means all of them.
 */
public record Access(String type, String name, Set<String> actions) {
    public static final String REPOSITORY = "repository";
    public static final String PROJECT = "project";
    public static final Set<String> KNOWN_ACTIONS = Set.of("pull", "push", "delete", "*");

    public Access {
        if (!REPOSITORY.equals(type) && !PROJECT.equals(type))
            throw new IllegalArgumentException("unknown access type " + type);
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("access name must not be empty");
        actions = Set.copyOf(actions);
    }

    public boolean allows(String action) {
        return actions.contains(action) || actions.contains("*");
    }

    Map<String, Object> toClaim() {
        return Map.of(
                "type",
                type,
                "name",
                name,
                "actions",
                List.copyOf(actions.stream().sorted().toList()));
    }

    @SuppressWarnings("unchecked")
    static Access fromClaim(Object claim) {
        if (!(claim instanceof Map<?, ?> map)) throw new IllegalArgumentException("access entry must be an object");
        Object actions = map.get("actions");
        if (!(actions instanceof List<?> list)) throw new IllegalArgumentException("access actions must be a list");
        return new Access((String) map.get("type"), (String) map.get("name"), Set.copyOf((List<String>) list));
    }
}

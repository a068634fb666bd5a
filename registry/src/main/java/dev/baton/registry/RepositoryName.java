package dev.baton.registry;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A repository name as a client writes it, {@code <project>[/<path>]}: the first component names
 * the project (UUID or slug), the rest is the image's path inside the project (empty for the
 * project's root repository, as in {@code registry/<project>:<tag>} of seed 001). Validated
 * against the distribution specification's grammar, so the path is safe to use as directories.
 */
public record RepositoryName(String text, String project, String path) {
    public static final int MAX_LENGTH = 255;
    private static final Pattern GRAMMAR =
            Pattern.compile("[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*(/[a-z0-9]+((\\.|_|__|-+)[a-z0-9]+)*)*");

    public static Optional<RepositoryName> parse(String text) {
        if (text == null || text.length() > MAX_LENGTH || !GRAMMAR.matcher(text).matches()) return Optional.empty();
        int slash = text.indexOf('/');
        return Optional.of(
                slash < 0
                        ? new RepositoryName(text, text, "")
                        : new RepositoryName(text, text.substring(0, slash), text.substring(slash + 1)));
    }

    @Override
    public String toString() {
        return text;
    }
}

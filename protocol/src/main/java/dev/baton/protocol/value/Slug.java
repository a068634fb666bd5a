package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.text.Normalizer;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * URL-friendly unique name: lowercase letters, digits and single hyphens, 1–64 characters. A
 * slug is never shaped like a UUID, so a path parameter is unambiguously one or the other.
 */
public record Slug(@JsonValue String value) {
    public static final int MAX_LENGTH = 64;
    private static final Pattern UUID_SHAPE =
            Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

    public Slug {
        if (value == null || value.isEmpty() || value.length() > MAX_LENGTH || !wellShaped(value)) {
            throw new IllegalArgumentException(
                    "slug must be 1-" + MAX_LENGTH + " lowercase letters, digits and single hyphens");
        }
        if (value.length() == 36 && UUID_SHAPE.matcher(value).matches())
            throw new IllegalArgumentException("slug must not look like a UUID");
    }

    /**
     * {@code [a-z0-9]+(-[a-z0-9]+)*}, checked by hand: every row the store maps carries slugs, and
     * a regular expression per slug was a measurable share of the server's CPU (issue 13).
     */
    private static boolean wellShaped(String value) {
        char previous = '-';
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            boolean alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (!alnum && (c != '-' || previous == '-')) return false;
            previous = c;
        }
        return previous != '-';
    }

    @JsonCreator
    public static Slug of(String value) {
        return new Slug(value);
    }

    /** The slug a name suggests ("My Runner #1" → "my-runner-1"); callers add a suffix on collision. */
    public static Slug fromName(String name) {
        String ascii = Normalizer.normalize(name, Normalizer.Form.NFD).replaceAll("\\p{M}", "");
        String slug =
                ascii.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-").replaceAll("(^-+|-+$)", "");
        if (slug.length() > MAX_LENGTH - 9)
            slug = slug.substring(0, MAX_LENGTH - 9).replaceAll("-+$", "");
        if (slug.isEmpty() || UUID_SHAPE.matcher(slug).matches()) slug = "r-" + Integer.toHexString(name.hashCode());
        return new Slug(slug);
    }

    /** This slug with a suffix, kept within the length limit. */
    public Slug withSuffix(String suffix) {
        String base = value.length() + 1 + suffix.length() > MAX_LENGTH
                ? value.substring(0, MAX_LENGTH - 1 - suffix.length())
                : value;
        return new Slug(base.replaceAll("-+$", "") + "-" + suffix);
    }

    @Override
    public String toString() {
        return value;
    }
}

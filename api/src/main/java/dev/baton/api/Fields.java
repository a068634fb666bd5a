package dev.baton.api;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.value.ResourceName;
import dev.baton.protocol.value.Slug;
import dev.baton.web.http.ApiException;
import java.util.function.Function;

/** Turns raw request fields into validated protocol values, naming the field in every error. */
final class Fields {
    private Fields() {}

    static <R> R require(String field, R value) {
        if (value == null) throw ApiException.missingField(field);
        return value;
    }

    /** Parses with a protocol value's own check; its message becomes the error message. */
    static <T, R> R parse(String field, T raw, Function<T, R> parser) {
        if (raw == null) return null;
        try {
            return parser.apply(raw);
        } catch (IllegalArgumentException e) {
            throw ApiException.invalidField(field, e.getMessage());
        }
    }

    static String name(String field, String raw) {
        ResourceName name = parse(field, raw, ResourceName::of);
        return name == null ? null : name.value();
    }

    static Slug slug(String field, String raw) {
        return parse(field, raw, Slug::of);
    }

    static ResourceId resourceId(String field, String raw) {
        return parse(field, raw, ResourceId::of);
    }

    /** A query flag: absent is false, only "true"/"false" accepted. */
    static boolean flag(String name, String raw) {
        if (raw == null) return false;
        return switch (raw) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new ApiException(400, "invalid_parameter", name + " must be true or false", name);
        };
    }

    static int intParam(String name, String raw, int fallback, int min, int max) {
        if (raw == null) return fallback;
        try {
            int n = Integer.parseInt(raw);
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException ignored) {
            // reported below with the allowed range
        }
        throw new ApiException(
                400, "invalid_parameter", name + " must be a whole number between " + min + " and " + max, name);
    }
}

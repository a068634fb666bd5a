package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.regex.Pattern;

/** An immutable image reference, {@code sha256:} and 64 lowercase hex digits. */
public record ImageDigest(@JsonValue String value) {
    private static final Pattern SHAPE = Pattern.compile("sha256:[0-9a-f]{64}");

    public ImageDigest {
        if (value == null || !SHAPE.matcher(value).matches()) {
            throw new IllegalArgumentException("image must be a digest 'sha256:' followed by 64 lowercase hex digits");
        }
    }

    @JsonCreator
    public static ImageDigest of(String value) {
        return new ImageDigest(value);
    }

    public String hex() {
        return value.substring("sha256:".length());
    }

    @Override
    public String toString() {
        return value;
    }
}

package dev.baton.protocol.message;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.SerializerProvider;
import com.fasterxml.jackson.datatype.jsr310.ser.InstantSerializer;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeFormatter;

/**
 * Jackson's {@link InstantSerializer} with {@link InstantText} as a fast path for the shape Baton
 * always writes (issue 13). It is the standard serializer in every other respect: timestamps when
 * asked for, a pattern from a {@code @JsonFormat}, a mapper time zone, or a year outside 0000 to
 * 9999 all go the standard way.
 */
final class InstantWriter extends InstantSerializer {
    InstantWriter() {
        super();
    }

    private InstantWriter(
            InstantWriter base, Boolean useTimestamp, DateTimeFormatter formatter, JsonFormat.Shape shape) {
        super(base, useTimestamp, formatter, shape);
    }

    /**
     * Contextualization calls this for every property, annotated or not (the default format's
     * shape, ANY, differs from the serializer's none): without it the fast path would never run.
     */
    @Override
    protected InstantWriter withFormat(Boolean useTimestamp, DateTimeFormatter formatter, JsonFormat.Shape shape) {
        return new InstantWriter(this, useTimestamp, formatter, shape);
    }

    @Override
    public void serialize(Instant value, JsonGenerator generator, SerializerProvider provider) throws IOException {
        if (_formatter == null
                && !useTimestamp(provider)
                && !provider.getConfig().hasExplicitTimeZone()) {
            char[] text = new char[InstantText.MAX_LENGTH];
            int length = InstantText.format(value, text);
            if (length > 0) {
                generator.writeString(text, 0, length);
                return;
            }
        }
        super.serialize(value, generator, provider);
    }
}

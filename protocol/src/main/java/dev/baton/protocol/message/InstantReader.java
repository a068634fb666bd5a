package dev.baton.protocol.message;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import java.io.IOException;
import java.time.Instant;

/**
 * Jackson's {@link InstantDeserializer#INSTANT} with {@link InstantText} as a fast path for the
 * shape Baton writes (issue 13). Every string the fast path does not recognise, and every other
 * token (numbers as epoch seconds, arrays, …), goes to the standard deserializer, so what was
 * accepted is accepted with the same value and what was refused is refused with the same error.
 * A {@code @JsonFormat} on a property yields a plain {@link InstantDeserializer} on contextualization.
 */
final class InstantReader extends InstantDeserializer<Instant> {
    InstantReader() {
        super(InstantDeserializer.INSTANT, (Boolean) null);
    }

    @Override
    public Instant deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (parser.hasToken(JsonToken.VALUE_STRING)) {
            char[] text = parser.getTextCharacters(); // the parser's buffer, no String built
            Instant fast =
                    text == null ? null : InstantText.parse(text, parser.getTextOffset(), parser.getTextLength());
            if (fast != null) return fast;
        }
        return super.deserialize(parser, context);
    }
}

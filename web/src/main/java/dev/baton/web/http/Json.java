package dev.baton.web.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.baton.protocol.message.UnicodeCheck;
import dev.baton.protocol.message.Wire;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.stream.Collectors;

/**
 * Reading request bodies and writing responses. Bodies are read with a hard bound (413 before
 * any parsing) and decoded strictly: unknown fields, strings for numbers, floats for integers
 * and trailing garbage are all 400s, so a typo never turns into a silently ignored setting.
 */
public final class Json {
    private static final ObjectMapper STRICT = strictMapper();
    /** A reader per body type: {@code readValue(…, Class)} would resolve the type and find its deserializer on every call. */
    private static final ClassValue<ObjectReader> READERS = new ClassValue<>() {
        @Override
        protected ObjectReader computeValue(Class<?> type) {
            return STRICT.readerFor(type);
        }
    };

    private Json() {}

    private static ObjectMapper strictMapper() {
        // Scalar exactness comes with Wire's mapper (shared with the runner channel); the API
        // adds only the refusal of unknown fields, which the channel tolerates for newer runners.
        return Wire.mapper().copy().enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    /** Reads at most {@code maxBytes} of the body; more is a 413, whatever Content-Length said. */
    public static byte[] readBody(Context ctx, long maxBytes) {
        long declared = ctx.req().getContentLengthLong();
        if (declared > maxBytes) throw tooLarge(maxBytes);
        try (InputStream in = ctx.req().getInputStream()) {
            int cap = (int) Math.min(maxBytes, Integer.MAX_VALUE - 16);
            byte[] bytes = in.readNBytes(cap + 1);
            if (bytes.length > cap) throw tooLarge(maxBytes);
            return bytes;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read request body", e);
        }
    }

    public static ApiException tooLarge(long maxBytes) {
        return new ApiException(
                413,
                "payload_too_large",
                "request body is larger than " + maxBytes + " bytes (request_body_max_bytes)");
    }

    /** Decodes a JSON object body into {@code type}; every failure is a 400 with a stable code. */
    public static <T> T decode(byte[] body, Class<T> type) {
        if (body.length == 0) throw ApiException.badRequest("invalid_json", "request body must be a JSON object");
        ObjectReader reader = READERS.get(type);
        BodyText text = BodyText.of(body);
        // Nearly every body is ASCII without a \\u escape: valid UTF-8 as it is and unable to hold a
        // lone surrogate, so Jackson reads the bytes themselves and nothing else looks at them.
        if (text == BodyText.PLAIN_ASCII) return read(reader, body);
        if (text == BodyText.ASCII) {
            checkSurrogates(new String(body, StandardCharsets.ISO_8859_1)); // a copy, not a decode
            return read(reader, body);
        }
        if (text == BodyText.PLAIN_UTF8 && StrictUtf8.isWellFormed(body)) {
            // Well-formed UTF-8 without a \\u escape holds no lone surrogate either. Refusals are
            // worded by the path through text below (Jackson's byte and text parsers word a few
            // differently), so this one only ever answers with a value.
            try {
                return read(reader, body);
            } catch (ApiException e) {
                return readText(reader, body);
            }
        }
        return readText(reader, body);
    }

    /**
     * The body as text, refused as every API body is when it is not valid UTF-8 or holds a lone
     * surrogate (400 {@code invalid_json}): for a route that reads the body its own way (transport
     * A's lease messages, which tolerate unknown fields as the runner channel does).
     */
    public static String text(byte[] body) {
        String text = strictUtf8(body);
        checkSurrogates(text);
        return text;
    }

    /** Decodes the body strictly to text, checks it for lone surrogates and parses the text. */
    private static <T> T readText(ObjectReader reader, byte[] body) {
        String text = strictUtf8(body);
        checkSurrogates(text);
        return read(reader, text);
    }

    private static void checkSurrogates(String text) {
        String unicode = UnicodeCheck.loneSurrogate(text);
        if (unicode != null) throw ApiException.badRequest("invalid_json", "request body " + unicode);
    }

    /** What a body's bytes say about the way it can be read, found in one pass. */
    private enum BodyText {
        /** ASCII with no {@code \\u} escape. */
        PLAIN_ASCII,
        /** ASCII with a {@code \\u} escape, which may stand for a lone surrogate. */
        ASCII,
        /**
         * Not ASCII, no {@code \\u} escape, and starting with four bytes that are neither zero nor
         * a byte-order mark: read as bytes, Jackson takes them for UTF-8 as the text path does,
         * rather than detecting UTF-16, UTF-32 or a BOM.
         */
        PLAIN_UTF8,
        /** Anything else. */
        OTHER;

        static BodyText of(byte[] body) {
            boolean ascii = true;
            boolean escapes = false;
            for (int i = 0; i < body.length; i++) {
                byte b = body[i];
                if (b < 0) ascii = false;
                else if (b == '\\' && i + 1 < body.length && body[i + 1] == 'u') escapes = true;
            }
            if (ascii) return escapes ? ASCII : PLAIN_ASCII;
            if (escapes || body.length < 4) return OTHER;
            for (int i = 0; i < 4; i++) {
                if (body[i] <= 0) return OTHER; // a zero, or the first byte of a BOM or any non-ASCII character
            }
            return PLAIN_UTF8;
        }
    }

    private static <T> T read(ObjectReader reader, byte[] body) {
        try {
            return checked(reader.readValue(body));
        } catch (IOException e) {
            throw refusal(e);
        }
    }

    private static <T> T read(ObjectReader reader, String text) {
        try {
            return checked(reader.readValue(text));
        } catch (IOException e) {
            throw refusal(e);
        }
    }

    private static <T> T checked(T value) {
        if (value == null) throw ApiException.badRequest("invalid_json", "request body must be a JSON object");
        return value;
    }

    private static RuntimeException refusal(IOException e) {
        if (e instanceof UnrecognizedPropertyException u) {
            return new ApiException(400, "unknown_field", "unknown field '" + u.getPropertyName() + "'", path(u));
        }
        if (e instanceof JsonMappingException m) {
            String field = path(m);
            if (m.getCause() instanceof IllegalArgumentException iae)
                return ApiException.invalidField(field, iae.getMessage());
            String what = field == null ? "request body" : field;
            return new ApiException(
                    400,
                    "invalid_json",
                    what + " has the wrong type or shape: " + firstLine(m.getOriginalMessage()),
                    field);
        }
        if (e instanceof JsonProcessingException p) {
            return ApiException.badRequest("invalid_json", "malformed JSON: " + firstLine(p.getOriginalMessage()));
        }
        return new UncheckedIOException(e);
    }

    /**
     * The body as UTF-8, refusing what Jackson would let through: overlong forms (C0 AF for
     * '/'), encoded surrogates and truncated sequences. The JDK's decoder is strict when told to
     * report instead of replace.
     */
    private static String strictUtf8(byte[] body) {
        try {
            return StandardCharsets.UTF_8
                    .newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body))
                    .toString();
        } catch (CharacterCodingException e) {
            throw ApiException.badRequest(
                    "invalid_json",
                    "request body is not valid UTF-8 (overlong form, encoded surrogate or truncated sequence)");
        }
    }

    private static String path(JsonMappingException e) {
        if (e.getPath().isEmpty()) return null;
        return e.getPath().stream()
                .map(r -> r.getFieldName() != null ? r.getFieldName() : "[" + r.getIndex() + "]")
                .collect(Collectors.joining("."))
                .replace(".[", "[");
    }

    private static String firstLine(String text) {
        return text == null ? "unreadable" : text.lines().findFirst().orElse("unreadable");
    }

    public static void write(Context ctx, int status, Object body) {
        try {
            ctx.status(status)
                    .contentType("application/json")
                    .result(Wire.mapper().writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "cannot encode response " + body.getClass().getSimpleName(), e);
        }
    }

    public static void error(Context ctx, int status, ApiError error) {
        write(ctx, status, error);
    }
}

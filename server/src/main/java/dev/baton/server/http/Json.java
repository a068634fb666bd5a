package dev.baton.server.http;

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
        return new ApiException(413, "payload_too_large", "request body is larger than " + maxBytes + " bytes (request_body_max_bytes)");
    }

    /** Decodes a JSON object body into {@code type}; every failure is a 400 with a stable code. */
    public static <T> T decode(byte[] body, Class<T> type) {
        if (body.length == 0) throw ApiException.badRequest("invalid_json", "request body must be a JSON object");
        // Nearly every body is ASCII, which is valid UTF-8 as it is: Jackson then reads the bytes
        // themselves, and only the surrogate check needs the text (a copy, not a decode).
        boolean ascii = isAscii(body);
        String text = ascii ? new String(body, StandardCharsets.ISO_8859_1) : strictUtf8(body);
        String unicode = UnicodeCheck.loneSurrogate(text);
        if (unicode != null) throw ApiException.badRequest("invalid_json", "request body " + unicode);
        try {
            ObjectReader reader = READERS.get(type);
            T value = ascii ? reader.readValue(body) : reader.readValue(text);
            if (value == null) throw ApiException.badRequest("invalid_json", "request body must be a JSON object");
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw new ApiException(400, "unknown_field", "unknown field '" + e.getPropertyName() + "'", path(e));
        } catch (JsonMappingException e) {
            String field = path(e);
            if (e.getCause() instanceof IllegalArgumentException iae) throw ApiException.invalidField(field, iae.getMessage());
            String what = field == null ? "request body" : field;
            throw new ApiException(400, "invalid_json", what + " has the wrong type or shape: " + firstLine(e.getOriginalMessage()), field);
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("invalid_json", "malformed JSON: " + firstLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean isAscii(byte[] body) {
        for (byte b : body) {
            if (b < 0) return false;
        }
        return true;
    }

    /**
     * The body as UTF-8, refusing what Jackson would let through: overlong forms (C0 AF for
     * '/'), encoded surrogates and truncated sequences. The JDK's decoder is strict when told to
     * report instead of replace.
     */
    private static String strictUtf8(byte[] body) {
        try {
            return StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body))
                    .toString();
        } catch (CharacterCodingException e) {
            throw ApiException.badRequest("invalid_json", "request body is not valid UTF-8 (overlong form, encoded surrogate or truncated sequence)");
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
            ctx.status(status).contentType("application/json").result(Wire.mapper().writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot encode response " + body.getClass().getSimpleName(), e);
        }
    }

    public static void error(Context ctx, int status, ApiError error) {
        write(ctx, status, error);
    }
}

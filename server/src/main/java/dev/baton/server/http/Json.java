package dev.baton.server.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.type.LogicalType;
import dev.baton.protocol.message.Wire;
import io.javalin.http.Context;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.stream.Collectors;

/**
 * Reading request bodies and writing responses. Bodies are read with a hard bound (413 before
 * any parsing) and decoded strictly: unknown fields, strings for numbers, floats for integers
 * and trailing garbage are all 400s, so a typo never turns into a silently ignored setting.
 */
public final class Json {
    private static final ObjectMapper STRICT = strictMapper();

    private Json() {}

    private static ObjectMapper strictMapper() {
        ObjectMapper mapper = Wire.mapper().copy()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
        for (LogicalType type : new LogicalType[] {LogicalType.Integer, LogicalType.Float, LogicalType.Boolean}) {
            mapper.coercionConfigFor(type).setCoercion(CoercionInputShape.String, CoercionAction.Fail);
        }
        mapper.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail);
        return mapper;
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
        try {
            T value = STRICT.readValue(body, type);
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

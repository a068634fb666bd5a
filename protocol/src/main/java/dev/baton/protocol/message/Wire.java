package dev.baton.protocol.message;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.PropertyNamingStrategies;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.databind.type.LogicalType;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.time.Instant;

/**
 * The JSON codec of the protocol and the API: snake_case fields, absent rather than null,
 * ISO-8601 instants. One configured mapper, shared (it is thread-safe once built).
 *
 * <p>Scalars are exact: every field has exactly its documented JSON type. Jackson by default
 * turns {@code "1"} into 1, {@code 1.5} into 1 and {@code 42} into {@code "42"}; here each of
 * those is a decoding error, so the channel refuses what the REST API refuses and a runner bug
 * never becomes a silently different value in the store.
 */
public final class Wire {
    private static final ObjectMapper MAPPER = newMapper();
    /**
     * Readers bound to the two message types: {@code MAPPER.readValue(text, Class)} resolves the
     * type and looks up its root deserializer on every call (an LRU map read), about a quarter of
     * decoding a heartbeat. Same settings as the mapper, which nobody reconfigures after this.
     */
    private static final ObjectReader RUNNER_MESSAGES = MAPPER.readerFor(RunnerMessage.class);

    private static final ObjectReader SERVER_MESSAGES = MAPPER.readerFor(ServerMessage.class);

    private Wire() {}

    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /** A fresh mapper with Baton's settings, for callers that must add modules of their own. */
    public static ObjectMapper newMapper() {
        ObjectMapper mapper = JsonMapper.builder()
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .build()
                .registerModule(new JavaTimeModule())
                // Registered after JavaTimeModule, so these win for Instant: the same text both
                // ways, without DateTimeFormatter for the usual shape (InstantText).
                .registerModule(new SimpleModule("baton-instants")
                        .addSerializer(Instant.class, new InstantWriter())
                        .addDeserializer(Instant.class, new InstantReader()))
                .setPropertyNamingStrategy(PropertyNamingStrategies.SNAKE_CASE)
                .setSerializationInclusion(JsonInclude.Include.NON_NULL)
                .disable(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .enable(DeserializationFeature.FAIL_ON_NUMBERS_FOR_ENUMS)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
        // ALLOW_COERCION_OF_SCALARS covers text to numbers and booleans; the reverse direction
        // (a number or boolean where text belongs) is configured per target type.
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

    public static String encode(Object message) {
        try {
            return MAPPER.writeValueAsString(message);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(
                    "cannot encode " + message.getClass().getSimpleName(), e);
        }
    }

    /** Decodes a runner message; throws {@link InvalidMessageException} with a client-safe reason. */
    public static RunnerMessage decodeRunnerMessage(String json) {
        return decode(json, RUNNER_MESSAGES);
    }

    public static ServerMessage decodeServerMessage(String json) {
        return decode(json, SERVER_MESSAGES);
    }

    private static <T> T decode(String json, ObjectReader reader) {
        String unicode = UnicodeCheck.loneSurrogate(json);
        if (unicode != null) throw new InvalidMessageException(unicode);
        try {
            T value = reader.readValue(json);
            if (value == null) throw new InvalidMessageException("message must be a JSON object");
            return value;
        } catch (JsonProcessingException e) {
            throw new InvalidMessageException(reason(e));
        } catch (IllegalArgumentException e) {
            throw new InvalidMessageException(e.getMessage());
        }
    }

    private static String reason(JsonProcessingException e) {
        Throwable cause = e.getCause();
        if (cause instanceof IllegalArgumentException) return cause.getMessage();
        String message = e.getOriginalMessage();
        return message == null
                ? "malformed message"
                : message.lines().findFirst().orElse("malformed message");
    }
}

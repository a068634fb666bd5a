package dev.baton.web.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import dev.baton.protocol.message.UnicodeCheck;
import dev.baton.protocol.message.Wire;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#decode} parses most bodies from their bytes (issue 13); this compares it with the
 * decode it replaced, which made every body text first (copied below as it was), over bodies of
 * every kind: the same value, or the same status, code, message and field.
 */
class JsonDecodePathsTest {
    record Inner(String label, List<Integer> sizes) {}

    record Body(String name, int count, Inner inner, Map<String, String> env) {
        Body {
            if (count < 0) throw new IllegalArgumentException("count must not be negative");
        }
    }

    private static final ObjectReader REFERENCE = Wire.mapper()
            .copy()
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .readerFor(Body.class);

    @Test
    void everyBodyGivesTheOutcomeTheTextPathGave() {
        List<byte[]> bodies = new ArrayList<>();
        String[] names = {
            "cafe",
            "café",
            "Grüße 😀",
            "\\u00e9t\\u00e9",
            "caf\\u00e9 é",
            "\\ud83d\\ude00",
            "\\ud800",
            "é\\udc00",
            "\\\\u0041é"
        };
        String[] shapes = {
            "{\"name\":\"%s\",\"count\":2}",
            "{\"name\":\"%s\",\"count\":2,\"inner\":{\"label\":\"%<s\",\"sizes\":[1,2]},\"env\":{\"%<s\":\"%<s\"}}",
            "  {\"name\":\"%s\",\"count\":2}\n",
            "{\"name\":\"%s\",\"count\":2} x",
            "{\"name\":\"%s\",\"count\":2}é",
            "{\"name\":\"%s\",\"count\":2,\"extra\":1}",
            "{\"name\":\"%s\",\"count\":2,\"éxtra\":1}",
            "{\"name\":\"%s\",\"count\":\"2\"}",
            "{\"name\":\"%s\",\"count\":2.5}",
            "{\"name\":\"%s\",\"count\":-1}",
            "{\"name\":\"%s\",\"count\":2,\"inner\":{\"label\":7}}",
            "{\"name\":\"%s\",\"count\":2,\"inner\":{\"label\":\"x\",\"sizes\":[1,\"2\"]}}",
            "{\"name\":\"%s\",\"count\":2,\"inner\":{\"label\":\"x\",\"sizes\":[1,é]}}",
            "{\"name\":\"%s\",}",
            "{\"name\":\"%s\"",
            "{\"name\":\"%s\",\"count\":é}",
            "{\"name\":é%s}",
            "{é:\"%s\"}",
            "[\"%s\"]",
            "\"%s\"",
            "{\"name\":\"%s\u0001\",\"count\":2}",
            "{\"name\":\"%s\",\"count\":2}/*é*/",
        };
        for (String shape : shapes) {
            for (String name : names)
                bodies.add(shape.replace("%<s", name).formatted(name).getBytes(StandardCharsets.UTF_8));
        }
        for (String text : new String[] {
            "null", "é", "ééé", "{}", "{\"name\":\"é\"}", "1", "true", "[]", "{\"name\":\"\uFEFF\",\"count\":1}"
        }) {
            bodies.add(text.getBytes(StandardCharsets.UTF_8));
        }
        HexFormat hex = HexFormat.of();
        for (String raw : new String[] {
            "efbbbf7b226e616d65223a22c3a9222c22636f756e74223a317d", // a BOM, then a body
            "7b226e616d65223a22c0af222c22636f756e74223a317d", // an overlong '/'
            "7b226e616d65223a22eda080222c22636f756e74223a317d", // an encoded surrogate
            "7b226e616d65223a22c3222c22636f756e74223a317d", // a truncated sequence
            "7b226e616d65223a22f4908080222c22636f756e74223a317d", // beyond U+10FFFF
            "7b226e616d65223a22c3a9222c22636f756e74223a317dc3", // truncated at the very end
            "007b0022006e0061006d00650022003a002200e90022007d", // UTF-16BE
            "7b0022006e0061006d00650022003a002200e90022007d00", // UTF-16LE
            "7b00e9",
            "c3a97b7d",
            "7b7d00c3a9",
            "7b0a0ac3a9",
        }) {
            bodies.add(hex.parseHex(raw));
        }
        for (byte[] body : bodies) {
            String label = new String(body, StandardCharsets.UTF_8) + " / " + hex.formatHex(body);
            assertThat(outcome(() -> Json.decode(body, Body.class)))
                    .as(label)
                    .isEqualTo(outcome(() -> textPathDecode(body)));
        }
    }

    private static String outcome(java.util.function.Supplier<Body> decode) {
        try {
            return "value " + decode.get();
        } catch (ApiException e) {
            return "refused " + e.status() + " " + e.error();
        }
    }

    // The decode as it was before issue 13's byte paths: strict text first, then the surrogate check, then the parse.

    private static Body textPathDecode(byte[] body) {
        if (body.length == 0) throw ApiException.badRequest("invalid_json", "request body must be a JSON object");
        String text;
        try {
            text = StandardCharsets.UTF_8
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
        String unicode = UnicodeCheck.loneSurrogate(text);
        if (unicode != null) throw ApiException.badRequest("invalid_json", "request body " + unicode);
        try {
            Body value = REFERENCE.readValue(text);
            if (value == null) throw ApiException.badRequest("invalid_json", "request body must be a JSON object");
            return value;
        } catch (UnrecognizedPropertyException e) {
            throw new ApiException(400, "unknown_field", "unknown field '" + e.getPropertyName() + "'", path(e));
        } catch (JsonMappingException e) {
            String field = path(e);
            if (e.getCause() instanceof IllegalArgumentException iae)
                throw ApiException.invalidField(field, iae.getMessage());
            String what = field == null ? "request body" : field;
            throw new ApiException(
                    400,
                    "invalid_json",
                    what + " has the wrong type or shape: " + firstLine(e.getOriginalMessage()),
                    field);
        } catch (JsonProcessingException e) {
            throw ApiException.badRequest("invalid_json", "malformed JSON: " + firstLine(e.getOriginalMessage()));
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
}

package dev.baton.web.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * {@link Json#decode} reads an ASCII body and most other ones from their bytes, and the rest
 * strictly decoded to text (JsonDecodePathsTest compares it with the text path): ASCII and other
 * bodies give the same value, and the same refusal with the same words.
 */
class JsonDecodeTest {
    record Body(String name, int count) {}

    private static ApiException refusal(String body) {
        return catchThrowableOfType(
                ApiException.class, () -> Json.decode(body.getBytes(StandardCharsets.UTF_8), Body.class));
    }

    @Test
    void asciiAndOtherBodiesDecodeAndAreRefusedAlike() {
        for (String name : new String[] {"cafe", "café"}) {
            assertThat(Json.decode(
                            ("{\"name\":\"" + name + "\",\"count\":2}").getBytes(StandardCharsets.UTF_8), Body.class))
                    .isEqualTo(new Body(name, 2));
        }
        String[] bad = {
            "{\"name\":\"%s\",\"count\":2} x",
            "{\"name\":\"%s\",\"count\":2,\"extra\":1}",
            "{\"name\":\"%s\",\"count\":\"2\"}",
            "{\"name\":\"%s\",\"count\":2.5}",
            "{\"name\":\"%s\",}",
            "{\"name\":\"%s\\ud800\",\"count\":2}",
            "[\"%s\"]",
        };
        for (String shape : bad) {
            ApiException ascii = refusal(shape.formatted("cafe"));
            ApiException other = refusal(shape.formatted("café"));
            assertThat(ascii).as(shape).isNotNull();
            assertThat(other).as(shape).isNotNull();
            assertThat(other.error()).as(shape).isEqualTo(ascii.error());
        }
        assertThat(refusal("null").error().code()).isEqualTo("invalid_json");
    }
}

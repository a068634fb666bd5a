package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonFormat;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.deser.DefaultDeserializationContext;
import com.fasterxml.jackson.databind.module.SimpleModule;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import com.fasterxml.jackson.datatype.jsr310.ser.InstantSerializer;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.model.SpecView;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import java.time.Instant;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TimeZone;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fast Instant path (InstantText, InstantWriter, InstantReader) against Jackson's standard
 * one, which Wire used before: the same bytes out and, for every input, the same value or the
 * same error.
 */
class InstantTextTest {
    private static final ObjectMapper FAST = Wire.newMapper();
    /** Wire's settings with the standard Instant codec registered last, so it wins: the old path. */
    private static final ObjectMapper STANDARD = Wire.newMapper()
            .registerModule(new SimpleModule("standard-instants")
                    .addSerializer(Instant.class, InstantSerializer.INSTANCE)
                    .addDeserializer(Instant.class, InstantDeserializer.INSTANT));

    private static final long FIRST_SECOND =
            Instant.parse("0000-01-01T00:00:00Z").getEpochSecond();
    private static final long LAST_SECOND =
            Instant.parse("9999-12-31T23:59:59Z").getEpochSecond();

    record Stamped(Instant at) {}

    record StampedAsNumber(
            @JsonFormat(shape = JsonFormat.Shape.NUMBER) Instant at) {}

    record StampedWithPattern(
            @JsonFormat(pattern = "yyyy-MM-dd HH:mm", timezone = "UTC")
            Instant at) {}

    private static List<Instant> instants() {
        List<Instant> all = new ArrayList<>(List.of(
                Instant.EPOCH,
                Instant.EPOCH.minusNanos(1),
                Instant.ofEpochSecond(-1),
                Instant.ofEpochSecond(0, 1),
                Instant.parse("2026-11-24T12:00:00Z"),
                Instant.parse("2026-11-24T12:00:00.123456Z"),
                Instant.parse("2026-11-24T12:00:00.100Z"),
                Instant.parse("2026-11-24T12:00:00.000001Z"),
                Instant.parse("2026-11-24T12:00:00.000000001Z"),
                Instant.parse("2026-11-24T12:00:00.999999999Z"),
                Instant.parse("2024-02-29T23:59:59.5Z"),
                Instant.parse("1969-12-31T23:59:59.999Z"),
                Instant.parse("1900-03-01T00:00:00Z"),
                Instant.parse("0999-06-15T08:09:10.01Z"),
                Instant.ofEpochSecond(FIRST_SECOND),
                Instant.ofEpochSecond(FIRST_SECOND - 1, 999_999_999),
                Instant.ofEpochSecond(LAST_SECOND, 999_999_999),
                Instant.ofEpochSecond(LAST_SECOND + 1),
                Instant.parse("-0001-01-01T00:00:00Z"),
                Instant.parse("+10000-01-01T00:00:00.5Z"),
                Instant.MIN,
                Instant.MAX));
        SplittableRandom random = new SplittableRandom(13);
        for (int i = 0; i < 20_000; i++) {
            long seconds = random.nextLong(FIRST_SECOND - 400L * 86_400 * 365, LAST_SECOND + 400L * 86_400 * 365);
            int nanos = switch (i % 4) {
                case 0 -> 0;
                case 1 -> random.nextInt(1000) * 1_000_000;
                case 2 -> random.nextInt(1_000_000) * 1_000;
                default -> random.nextInt(1_000_000_000);
            };
            all.add(Instant.ofEpochSecond(seconds, nanos));
        }
        return all;
    }

    @Test
    void encodingIsByteIdenticalToTheStandardSerializer() throws Exception {
        for (Instant instant : instants()) {
            assertThat(FAST.writeValueAsBytes(instant))
                    .as("%s", instant)
                    .isEqualTo(STANDARD.writeValueAsBytes(instant));
            assertThat(FAST.writeValueAsString(new Stamped(instant)))
                    .isEqualTo(STANDARD.writeValueAsString(new Stamped(instant)));
            assertThat(Wire.encode(new Stamped(instant)))
                    .isEqualTo("{\"at\":\"" + DateTimeFormatter.ISO_INSTANT.format(instant) + "\"}");
        }
    }

    @Test
    void decodingGivesTheStandardValueForEveryShapeTheStandardWrites() throws Exception {
        for (Instant instant : instants()) {
            String iso = DateTimeFormatter.ISO_INSTANT.format(instant);
            assertSameOutcome("\"" + iso + "\"");
            // the same instant with every number of fraction digits from 0 to 9 (some lose precision, alike)
            if (iso.length() >= 20 && iso.charAt(19) == '.' || iso.length() == 20) {
                String whole = iso.substring(0, 19);
                String fraction = String.format("%09d", instant.getNano());
                for (int digits = 0; digits <= 9; digits++) {
                    assertSameOutcome("\"" + whole + (digits == 0 ? "" : "." + fraction.substring(0, digits)) + "Z\"");
                }
            }
        }
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "\"2026-11-24T12:00:00Z\"",
                "\"2026-11-24T12:00:00.123456Z\"",
                "\"2026-11-24t12:00:00z\"",
                "\"2026-11-24T12:00:00.123z\"",
                "\"2026-11-24T12:00:00+00:00\"",
                "\"2026-11-24T12:00:00+0000\"",
                "\"2026-11-24T12:00:00+01:00\"",
                "\"2026-11-24T12:00:00-05:30\"",
                "\"2026-11-24T12:00:00.5+02:00\"",
                "\"2026-11-24T12:00Z\"",
                "\"2026-11-24T12Z\"",
                "\"2026-11-24\"",
                "\"2026-11-24T12:00:00\"",
                "\"2016-12-31T23:59:60Z\"",
                "\"2026-11-24T24:00:00Z\"",
                "\"2026-11-24T23:60:00Z\"",
                "\"2026-11-24T12:00:61Z\"",
                "\"2025-02-29T00:00:00Z\"",
                "\"2024-02-29T00:00:00Z\"",
                "\"2026-02-30T00:00:00Z\"",
                "\"2026-04-31T00:00:00Z\"",
                "\"2026-13-01T00:00:00Z\"",
                "\"2026-00-01T00:00:00Z\"",
                "\"2026-01-00T00:00:00Z\"",
                "\"0000-01-01T00:00:00Z\"",
                "\"9999-12-31T23:59:59.999999999Z\"",
                "\"+10000-01-01T00:00:00Z\"",
                "\"-0001-01-01T00:00:00Z\"",
                "\"+2026-11-24T12:00:00Z\"",
                "\"12026-11-24T12:00:00Z\"",
                "\"2026-11-24T12:00:00.Z\"",
                "\"2026-11-24T12:00:00.1234567890Z\"",
                "\"2026-11-24T12:00:00,5Z\"",
                "\"2026-11-24 12:00:00Z\"",
                "\" 2026-11-24T12:00:00Z\"",
                "\"2026-11-24T12:00:00Z \"",
                "\"2026-11-24T12:00:00ZZ\"",
                "\"2026-1-24T12:00:00Z\"",
                "\"2026-11-24T1:00:00.00Z\"",
                "\"2026-11-24T12:00:00.-1Z\"",
                "\"2026-11-24T12:00:00.12a4Z\"",
                "\"2O26-11-24T12:00:00Z\"",
                "\"2026/11/24T12:00:00Z\"",
                "\"2026-11-24T12-00-00Z\"",
                "\"\"",
                "\"   \"",
                "\"Z\"",
                "\"1700000000\"",
                "\"1700000000.5\"",
                "\"-1700000000\"",
                "\"2026-11-24T12:00:00\\u005A\"",
                "1700000000",
                "-1",
                "1700000000.25",
                "1e3",
                "true",
                "null",
                "[]",
                "[1700000000]",
                "{}",
                "{\"value\":\"2026-11-24T12:00:00Z\"}",
            })
    void decodingAcceptsAndRefusesExactlyWhatTheStandardDid(String json) throws Exception {
        assertSameOutcome(json);
    }

    private static void assertSameOutcome(String value) throws Exception {
        assertThat(outcome(FAST, value)).as(value).isEqualTo(outcome(STANDARD, value));
        String record = "{\"at\":" + value + "}";
        assertThat(outcome(FAST, record, Stamped.class)).as(record).isEqualTo(outcome(STANDARD, record, Stamped.class));
        // through bytes too: a parser over UTF-8 bytes hands out its text differently from one over a String
        assertThat(outcomeOfBytes(FAST, record)).as(record).isEqualTo(outcomeOfBytes(STANDARD, record));
    }

    private static String outcome(ObjectMapper mapper, String json) {
        return outcome(mapper, json, Instant.class);
    }

    private static String outcome(ObjectMapper mapper, String json, Class<?> type) {
        try {
            return "value " + mapper.readValue(json, type);
        } catch (Exception e) {
            return "error " + e.getClass().getName() + ": " + e.getMessage();
        }
    }

    private static String outcomeOfBytes(ObjectMapper mapper, String json) {
        try {
            return "value " + mapper.readValue(json.getBytes(java.nio.charset.StandardCharsets.UTF_8), Stamped.class);
        } catch (Exception e) {
            return "error " + e.getClass().getName() + ": " + e.getMessage();
        }
    }

    @Test
    void aFormatOnAPropertyOrATimeZoneOnTheMapperStillGoesTheStandardWay() throws Exception {
        Instant at = Instant.parse("2026-11-24T12:00:00.123456Z");
        assertThat(FAST.writeValueAsString(new StampedAsNumber(at)))
                .isEqualTo(STANDARD.writeValueAsString(new StampedAsNumber(at)))
                .isEqualTo("{\"at\":1795521600.123456000}");
        assertThat(FAST.writeValueAsString(new StampedWithPattern(at)))
                .isEqualTo(STANDARD.writeValueAsString(new StampedWithPattern(at)))
                .isEqualTo("{\"at\":\"2026-11-24 12:00\"}");
        assertThat(FAST.readValue("{\"at\":\"2026-11-24 12:00\"}", StampedWithPattern.class))
                .isEqualTo(STANDARD.readValue("{\"at\":\"2026-11-24 12:00\"}", StampedWithPattern.class));
        assertThat(FAST.writer()
                        .with(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                        .writeValueAsString(new Stamped(at)))
                .isEqualTo(STANDARD.writer()
                        .with(SerializationFeature.WRITE_DATES_AS_TIMESTAMPS)
                        .writeValueAsString(new Stamped(at)));
        ObjectMapper zoned = Wire.newMapper().setTimeZone(TimeZone.getTimeZone("Europe/Paris"));
        ObjectMapper zonedStandard = STANDARD.copy().setTimeZone(TimeZone.getTimeZone("Europe/Paris"));
        assertThat(zoned.writeValueAsString(new Stamped(at)))
                .isEqualTo(zonedStandard.writeValueAsString(new Stamped(at)));
    }

    @Test
    void aJobMessageDecodesAlikeWhateverTheOrderOfItsFields() {
        // With "event" last, Jackson buffers the fields before it knows the type: the Instants then
        // come from a token buffer, not from the text.
        Instant at = Instant.parse("2026-11-24T12:00:00.123456Z");
        ServerMessage.Job job = new ServerMessage.Job(new ClaimedJob(
                JobUuid.random(),
                LeaseId.random(),
                1,
                new SpecView(
                        SpecUuid.random(),
                        "bench",
                        "bench",
                        Architecture.X86_64,
                        2,
                        1L << 30,
                        10L << 30,
                        false,
                        at,
                        at.plusNanos(1),
                        null),
                new JobConfig(
                        "http://127.0.0.1:7700",
                        ProjectUuid.random(),
                        ImageDigest.of("sha256:" + "b".repeat(64)),
                        null,
                        List.of("true"),
                        null,
                        JobTimeout.of(60),
                        null,
                        1),
                "token",
                60,
                Instant.parse("1969-07-20T20:17:40Z")));
        String json = Wire.encode(job);
        assertThat(json).startsWith("{\"event\":\"job\",");
        String eventLast =
                "{" + json.substring("{\"event\":\"job\",".length(), json.length() - 1) + ",\"event\":\"job\"}";
        assertThat(Wire.decodeServerMessage(json)).isEqualTo(job);
        assertThat(Wire.decodeServerMessage(eventLast)).isEqualTo(job);
    }

    @Test
    void theFastPathIsTheOneWireUses() throws Exception {
        // as contextualized for a value and for a property, where Jackson may swap the instance
        assertThat(FAST.getSerializerProviderInstance().findTypedValueSerializer(Instant.class, true, null))
                .isInstanceOf(InstantWriter.class);
        assertThat(FAST.getSerializerProviderInstance()
                        .findValueSerializer(FAST.constructType(Instant.class), (BeanProperty) null))
                .isInstanceOf(InstantWriter.class);
        var context = ((DefaultDeserializationContext) FAST.getDeserializationContext())
                .createDummyInstance(FAST.getDeserializationConfig());
        assertThat(context.findRootValueDeserializer(FAST.constructType(Instant.class)))
                .isInstanceOf(InstantReader.class);
        assertThat(context.findContextualValueDeserializer(FAST.constructType(Instant.class), null))
                .isInstanceOf(InstantReader.class);
        char[] text = new char[InstantText.MAX_LENGTH];
        int length = InstantText.format(Instant.parse("2026-11-24T12:00:00.123456Z"), text);
        assertThat(new String(text, 0, length)).isEqualTo("2026-11-24T12:00:00.123456Z");
        assertThat(InstantText.parse(text, 0, length)).isEqualTo(Instant.parse("2026-11-24T12:00:00.123456Z"));
        assertThat(InstantText.parse("2026-11-24T12:00:00+01:00".toCharArray(), 0, 25))
                .isNull();
    }
}

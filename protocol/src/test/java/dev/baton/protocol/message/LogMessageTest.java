package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** The {@code log} runner message: its wire shape, exact field types and named bounds. */
class LogMessageTest {
    private static final JobUuid JOB = JobUuid.parse("0b6f8c1e-2d3a-4c5b-9e8f-7a6b5c4d3e2f");
    private static final LeaseId LEASE = LeaseId.parse("A".repeat(LeaseId.LENGTH));

    private static ObjectNode valid() {
        ObjectNode n = Wire.mapper().createObjectNode();
        n.put("event", "log")
                .put("job", JOB.toString())
                .put("lease", LEASE.value())
                .put("seq", 1)
                .put("stream", "stdout")
                .put("iteration", 0)
                .put("text", "hello\n");
        return n;
    }

    private static RunnerMessage decode(Consumer<ObjectNode> edit) {
        ObjectNode n = valid();
        edit.accept(n);
        return Wire.decodeRunnerMessage(n.toString());
    }

    private static void refused(Consumer<ObjectNode> edit, String reason) {
        assertThatThrownBy(() -> decode(edit))
                .as(reason)
                .isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining(reason);
    }

    @Test
    void aLogRoundTripsWithTheDocumentedFieldNames() {
        var log = RunnerMessage.Log.text(JOB, LEASE, 7, LogStream.STDERR, 2, "line\n");
        String json = Wire.encode(log);
        assertThat(json)
                .isEqualTo("{\"event\":\"log\",\"job\":\"" + JOB + "\",\"lease\":\"" + LEASE.value()
                        + "\",\"seq\":7,\"stream\":\"stderr\",\"iteration\":2,\"text\":\"line\\n\"}");
        assertThat(Wire.decodeRunnerMessage(json)).isEqualTo(log);

        var marker = RunnerMessage.Log.dropped(JOB, LEASE, 8, LogStream.STDOUT, 0, 123_456);
        String markerJson = Wire.encode(marker);
        assertThat(markerJson).contains("\"dropped\":123456").contains("\"text\":\"\"");
        assertThat(Wire.decodeRunnerMessage(markerJson)).isEqualTo(marker);
        assertThat(((RunnerMessage.Log) Wire.decodeRunnerMessage(markerJson)).marksDrop())
                .isTrue();
    }

    @Test
    void everyFieldMustHaveExactlyItsType() {
        refused(n -> n.put("seq", "1"), "seq must be an integer");
        refused(n -> n.put("seq", 1.5), "seq must be an integer");
        refused(n -> n.put("iteration", "0"), "iteration must be an integer");
        refused(n -> n.put("text", 5), "text must be a string");
        refused(n -> n.put("text", true), "text must be a string");
        refused(n -> n.put("stream", 1), "stream must be a string");
        refused(n -> n.put("dropped", "10").put("text", ""), "dropped must be an integer");
        refused(n -> n.put("job", 12), "job must be a string");
        refused(n -> n.putArray("lease"), "lease must be a string");
    }

    @Test
    void requiredFieldsAreRequired() {
        for (String field : new String[] {"job", "lease", "seq", "stream", "iteration", "text"}) {
            refused(n -> n.remove(field), field + " is required");
            refused(n -> n.putNull(field), field + " is required");
        }
    }

    @Test
    void valuesAreCheckedAtTheirNamedBounds() {
        assertThat(decode(n -> n.put("seq", RunnerMessage.Log.MIN_SEQ))).isInstanceOf(RunnerMessage.Log.class);
        refused(n -> n.put("seq", RunnerMessage.Log.MIN_SEQ - 1), "seq must be between 1");
        refused(n -> n.put("seq", RunnerMessage.Log.MAX_SEQ + 1), "seq must be between 1");
        assertThat(decode(n -> n.put("iteration", RunnerMessage.Log.MAX_ITERATION)))
                .isInstanceOf(RunnerMessage.Log.class);
        refused(n -> n.put("iteration", -1), "iteration must be between 0");
        refused(n -> n.put("iteration", RunnerMessage.Log.MAX_ITERATION + 1), "iteration must be between 0");
        refused(n -> n.put("iteration", 1L << 40), "iteration must be between 0");
        refused(n -> n.put("stream", "stdin"), "stream must be \"stdout\" or \"stderr\"");
        refused(n -> n.put("text", ""), "text must not be empty");
        refused(n -> n.put("dropped", 0).put("text", ""), "dropped must be between 1");
        refused(n -> n.put("dropped", 5), "a dropped marker carries no text");
        refused(n -> n.put("lease", "short"), "lease must be");
        refused(n -> n.put("job", "not-a-uuid"), "job uuid");
    }

    @Test
    void textIsBoundedInUtf8Bytes() {
        String atLimit = "a".repeat(RunnerMessage.Log.MAX_TEXT_BYTES);
        assertThat(((RunnerMessage.Log) decode(n -> n.put("text", atLimit))).text())
                .hasSize(RunnerMessage.Log.MAX_TEXT_BYTES);
        refused(n -> n.put("text", atLimit + "a"), "text must be at most 16384 bytes");
        // 6,000 characters of three bytes each: fewer characters than the limit, more bytes.
        refused(n -> n.put("text", "€".repeat(6_000)), "text must be at most 16384 bytes");
    }
}

package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.value.ImageDigest;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code images} in {@code ready} and heartbeats (issue 19): optional, bounded, digests only, no repeats. */
class HeldImagesTest {
    private static final String A = "sha256:" + "a".repeat(64);
    private static final String B = "sha256:" + "b".repeat(64);

    @Test
    void readyAndHeartbeatCarryTheListInOrderAndOlderMessagesStillDecode() {
        var ready = (RunnerMessage.Ready)
                Wire.decodeRunnerMessage("{\"event\":\"ready\",\"images\":[\"" + B + "\",\"" + A + "\"]}");
        assertThat(ready.images()).containsExactly(ImageDigest.of(B), ImageDigest.of(A));
        var beat = (RunnerMessage.Heartbeat) Wire.decodeRunnerMessage("{\"event\":\"heartbeat\",\"images\":[]}");
        assertThat(beat.images()).isEmpty();
        assertThat(((RunnerMessage.Ready) Wire.decodeRunnerMessage("{\"event\":\"ready\"}")).images())
                .isNull();
        assertThat(((RunnerMessage.Heartbeat) Wire.decodeRunnerMessage("{\"event\":\"heartbeat\"}")).images())
                .isNull();
        // Absent when not set: an old server sees the messages it always saw.
        assertThat(Wire.encode(new RunnerMessage.Heartbeat(null, null))).doesNotContain("images");
        assertThat(Wire.encode(new RunnerMessage.Heartbeat(null, null, List.of(ImageDigest.of(A)))))
                .contains("\"images\":[\"" + A + "\"]");
    }

    @Test
    void tooManyRepeatedOrMalformedImagesAreInvalid() {
        StringBuilder many = new StringBuilder();
        for (int i = 0; i <= HeldImages.MAX; i++)
            many.append(i == 0 ? "" : ",")
                    .append('"')
                    .append(String.format("sha256:%064x", i))
                    .append('"');
        assertThatThrownBy(() -> Wire.decodeRunnerMessage("{\"event\":\"ready\",\"images\":[" + many + "]}"))
                .isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("at most 64 images");
        assertThatThrownBy(() ->
                        Wire.decodeRunnerMessage("{\"event\":\"heartbeat\",\"images\":[\"" + A + "\",\"" + A + "\"]}"))
                .isInstanceOf(InvalidMessageException.class)
                .hasMessageContaining("must not repeat");
        assertThatThrownBy(() -> Wire.decodeRunnerMessage("{\"event\":\"heartbeat\",\"images\":[\"ubuntu:24.04\"]}"))
                .isInstanceOf(InvalidMessageException.class);
        assertThatThrownBy(() -> Wire.decodeRunnerMessage("{\"event\":\"heartbeat\",\"images\":[null]}"))
                .isInstanceOf(InvalidMessageException.class);
    }
}

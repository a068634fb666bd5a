package dev.baton.runner.logs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.OutputChunk;
import dev.baton.protocol.message.LogStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The capture-side buffer: bounded, ordered, whole characters, exact byte counts. */
class LiveOutputTest {
    private static boolean write(LiveOutput o, LogStream s, byte[] b) {
        return o.write(0, s, b, 0, b.length);
    }

    @Test
    void keepsPrintOrderAcrossStreamsAndMergesRunsOfOneStream() {
        LiveOutput o = new LiveOutput();
        write(o, LogStream.STDOUT, "a".getBytes());
        write(o, LogStream.STDOUT, "b\n".getBytes());
        write(o, LogStream.STDERR, "e\n".getBytes());
        write(o, LogStream.STDOUT, "c\n".getBytes());
        assertThat(o.claim()).isTrue();
        assertThat(o.claim()).as("one batch at a time").isFalse();
        assertThat(o.drain())
                .containsExactly(
                        OutputChunk.text(0, LogStream.STDOUT, "ab\n", 3),
                        OutputChunk.text(0, LogStream.STDERR, "e\n", 2),
                        OutputChunk.text(0, LogStream.STDOUT, "c\n", 2));
        assertThat(o.consumed()).as("nothing printed meanwhile").isFalse();
        assertThat(o.claim()).as("nothing waiting").isFalse();
    }

    /** What a job prints while its last batch is queued is not left behind: the loop's consumed() says so. */
    @Test
    void consumedSaysWhetherOutputArrivedWhileTheBatchWasQueued() {
        LiveOutput o = new LiveOutput();
        write(o, LogStream.STDOUT, "a\n".getBytes());
        assertThat(o.claim()).isTrue();
        o.drain();
        write(o, LogStream.STDOUT, "b\n".getBytes());
        assertThat(o.claim()).as("the first batch is still queued").isFalse();

        assertThat(o.consumed()).isTrue();
        assertThat(o.claim()).isTrue();
        assertThat(o.drain()).containsExactly(OutputChunk.text(0, LogStream.STDOUT, "b\n", 2));
    }

    @Test
    void aCharacterSplitAcrossReadsWaitsForItsLastBytes() {
        LiveOutput o = new LiveOutput();
        byte[] euro = "€".getBytes(StandardCharsets.UTF_8);
        o.write(0, LogStream.STDOUT, euro, 0, 1);
        assertThat(o.drain()).isEmpty();
        o.write(0, LogStream.STDOUT, euro, 1, 2);
        assertThat(o.drain()).containsExactly(OutputChunk.text(0, LogStream.STDOUT, "€", 3));
    }

    @Test
    void overTheBoundBytesAreCountedNotKeptAndTheCountIsExact() {
        LiveOutput o = new LiveOutput(10, 4);
        assertThat(write(o, LogStream.STDOUT, "12345678".getBytes())).isFalse();
        byte[] more = ("9" + "€").getBytes(StandardCharsets.UTF_8); // 4 bytes: over the bound of 10
        assertThat(write(o, LogStream.STDOUT, more)).as("a flush is due").isTrue();
        List<OutputChunk> chunks = o.drain();
        assertThat(chunks)
                .containsExactly(
                        OutputChunk.text(0, LogStream.STDOUT, "1234", 4),
                        OutputChunk.text(0, LogStream.STDOUT, "5678", 4),
                        OutputChunk.dropped(0, LogStream.STDOUT, 4));
        // A character cut by the drop: its remaining bytes are dropped too, so counts stay exact.
        byte[] ae = "äb".getBytes(StandardCharsets.UTF_8);
        o.write(0, LogStream.STDOUT, ae, 0, 1);
        o.drain();
        LiveOutput small = new LiveOutput(2, 4);
        small.write(0, LogStream.STDOUT, "xy".getBytes(), 0, 2);
        small.write(0, LogStream.STDOUT, ae, 0, 1); // dropped: the buffer is full
        small.drain();
        small.write(0, LogStream.STDOUT, ae, 1, 2); // the rest of 'ä', then 'b'
        assertThat(small.drain())
                .containsExactly(
                        OutputChunk.dropped(0, LogStream.STDOUT, 1), OutputChunk.text(0, LogStream.STDOUT, "b", 1));
    }

    @Test
    void chunksNeverSplitACharacter() {
        LiveOutput o = new LiveOutput(1 << 20, 4);
        write(o, LogStream.STDOUT, "ab€€".getBytes(StandardCharsets.UTF_8));
        List<OutputChunk> chunks = o.drain();
        assertThat(chunks).extracting(OutputChunk::text).containsExactly("ab", "€", "€");
        assertThat(chunks).extracting(OutputChunk::bytes).containsExactly(2, 3, 3);
    }
}

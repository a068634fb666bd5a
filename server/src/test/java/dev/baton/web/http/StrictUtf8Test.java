package dev.baton.web.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link StrictUtf8} gives the JDK's strict decoder's verdict on every short sequence that matters and on random ones. */
class StrictUtf8Test {
    private final CharsetDecoder strict = StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);

    private boolean jdkAccepts(byte[] bytes) {
        try {
            strict.reset().decode(ByteBuffer.wrap(bytes));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    private void assertSameVerdict(byte[] bytes) {
        boolean expected = jdkAccepts(bytes);
        if (StrictUtf8.isWellFormed(bytes) != expected) {
            assertThat(StrictUtf8.isWellFormed(bytes))
                    .as(HexFormat.of().formatHex(bytes))
                    .isEqualTo(expected);
        }
    }

    @Test
    void everySequenceOfUpToTwoBytesAndEveryThreeByteOneWithAMultiByteLead() {
        for (int a = 0; a < 256; a++) {
            assertSameVerdict(new byte[] {(byte) a});
            for (int b = 0; b < 256; b++) {
                assertSameVerdict(new byte[] {(byte) a, (byte) b});
                if (a < 0xC0) continue; // an ASCII or continuation byte first: the random bodies below have those
                for (int c = 0; c < 256; c++) assertSameVerdict(new byte[] {(byte) a, (byte) b, (byte) c});
            }
        }
    }

    @Test
    void fourByteSequencesAroundEveryBoundAndRandomBytes() {
        // every lead byte from F0 on, with every second byte, and third and fourth bytes at and around the bounds
        int[] edges = {0x00, 0x41, 0x7F, 0x80, 0x81, 0xBF, 0xC0, 0xFF};
        for (int a = 0xF0; a < 256; a++) {
            for (int b = 0; b < 256; b++) {
                for (int c : edges)
                    for (int d : edges) assertSameVerdict(new byte[] {(byte) a, (byte) b, (byte) c, (byte) d});
            }
        }
        SplittableRandom random = new SplittableRandom(13);
        byte[] alphabet = "{}\"a\\é€😀".getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < 200_000; i++) {
            byte[] bytes = new byte[random.nextInt(1, 12)];
            for (int k = 0; k < bytes.length; k++) {
                // mostly pieces of real text, sometimes any byte: valid and broken sequences both
                bytes[k] =
                        random.nextInt(4) == 0 ? (byte) random.nextInt(256) : alphabet[random.nextInt(alphabet.length)];
            }
            assertSameVerdict(bytes);
        }
    }
}

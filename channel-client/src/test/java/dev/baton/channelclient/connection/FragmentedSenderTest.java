package dev.baton.channelclient.connection;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Where a message is cut into partial sends (the sending itself is exercised against the real server by LargeResultAgainstServerTest). */
class FragmentedSenderTest {
    private static final int N = FragmentedSender.FRAGMENT_CHARS;

    @Test
    void aShortMessageIsOneFragmentAndALongOneIsCutAtTheFragmentSize() {
        assertThat(FragmentedSender.fragmentEnd("{}", 0)).isEqualTo(2);
        String text = "x".repeat(2 * N + 5);
        assertThat(FragmentedSender.fragmentEnd(text, 0)).isEqualTo(N);
        assertThat(FragmentedSender.fragmentEnd(text, N)).isEqualTo(2 * N);
        assertThat(FragmentedSender.fragmentEnd(text, 2 * N)).isEqualTo(2 * N + 5);
    }

    @Test
    void aSurrogatePairIsNeverSplitBetweenTwoFragments() {
        // The pair's high half would be the fragment's last char: the JDK's encoder refuses a lone surrogate.
        String text = "x".repeat(N - 1) + "\uD83D\uDE00" + "y";
        int end = FragmentedSender.fragmentEnd(text, 0);
        assertThat(end).isEqualTo(N - 1);
        assertThat(FragmentedSender.fragmentEnd(text, end)).isEqualTo(text.length());
    }

    @Test
    void fragmentsStayFarBelowTheFrameCountAtWhichTheJdkBreaksItsFraming() {
        // 2048 frames of 16 KiB (see FragmentedSender): even at 3 bytes per char a fragment is a small fraction.
        assertThat(3L * N).isLessThan(2048L * 16 * 1024 / 8);
    }
}

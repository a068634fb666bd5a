package dev.baton.channelclient.connection;

import java.net.http.WebSocket;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The one writer of a channel's text messages: each message goes out as a series of partial
 * {@code sendText} calls of at most {@link #FRAGMENT_CHARS} characters, each waiting for the one
 * before, and one message at a time (callers are serialized here, so the runner's loop and a
 * router's threads can share a channel).
 *
 * <p>Why fragments: the JDK's WebSocket client (17 through 25 at least) breaks its own framing
 * once one {@code sendText} call has been cut into about 2048 frames — 32 MiB of UTF-8 with its
 * default 16 KiB buffers. Each frame adds 8 header bytes to a 16 KiB payload, so headers drift
 * through the 16 KiB write buffer; when one ends exactly at the buffer's end,
 * {@code MessageEncoder.maskAvailable} reports "nothing left" for a payload it has not written
 * (0, not a negative count) and the encoder moves on to the next frame: the frame's length says
 * 16 KiB but the next frame's header follows. The server then reads payload as headers ("RSV1 not
 * allowed", "Unknown opcode", "Client MUST mask all frames") and closes the channel, every time
 * the result is resent. A partial send starts the encoder afresh, so fragments of 256 Ki chars
 * (at most 768 KiB of UTF-8, 48 frames) stay far below that point.
 *
 * <p>Waiting per fragment also makes the timeout a bound on progress, not on the whole message:
 * a 50 MiB result on a slow link is not cut off at a fixed time while bytes still move.
 */
final class FragmentedSender {
    /** Characters per partial send; see the class comment for why it must stay well below 2048 × 16 KiB of UTF-8. */
    static final int FRAGMENT_CHARS = 256 * 1024;

    private final WebSocket socket;
    private final Duration progressTimeout;

    FragmentedSender(WebSocket socket, Duration progressTimeout) {
        this.socket = socket;
        this.progressTimeout = progressTimeout;
    }

    /** Sends {@code text} as one message; returns once the last fragment is written. */
    synchronized void send(String text) throws InterruptedException, ExecutionException, TimeoutException {
        int length = text.length();
        int start = 0;
        do {
            int end = fragmentEnd(text, start);
            boolean last = end == length;
            socket.sendText(text.substring(start, end), last).get(progressTimeout.toMillis(), TimeUnit.MILLISECONDS);
            start = end;
        } while (start < length);
    }

    /** Where the fragment from {@code start} ends: never between the two halves of a surrogate pair, which the encoder would refuse. */
    static int fragmentEnd(String text, int start) {
        int end = Math.min(text.length(), start + FRAGMENT_CHARS);
        if (end < text.length() && Character.isHighSurrogate(text.charAt(end - 1))) end--;
        return end;
    }
}

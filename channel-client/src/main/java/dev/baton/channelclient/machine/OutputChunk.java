package dev.baton.channelclient.machine;

import dev.baton.protocol.message.LogStream;

/**
 * A piece of a running job's output, as the capture buffer hands it to the machine: either text
 * (whole UTF-8 characters, {@code bytes} long, at most one log message's worth) or a count of
 * bytes the buffer itself had to drop. Iterations count from 0.
 */
public record OutputChunk(int iteration, LogStream stream, String text, int bytes, long dropped) {
    public static OutputChunk text(int iteration, LogStream stream, String text, int bytes) {
        return new OutputChunk(iteration, stream, text, bytes, 0);
    }

    public static OutputChunk dropped(int iteration, LogStream stream, long bytes) {
        return new OutputChunk(iteration, stream, null, 0, bytes);
    }

    public boolean isDrop() {
        return text == null;
    }
}

package dev.baton.protocol.value;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;

/**
 * How long a job may wait in the queue (pending, or claimed and declined again and again) before
 * it fails with {@code queue_timeout}, in seconds. Optional per spec and per job; at least ten
 * seconds, so that a dispatch round trip can never lose the race, and at most thirty days.
 */
public record QueueTimeout(@JsonValue int seconds) {
    public static final int MIN = 10;
    public static final int MAX = 30 * 24 * 3600;

    public QueueTimeout {
        Ranges.check("queue_timeout", seconds, MIN, MAX);
    }

    @JsonCreator
    public static QueueTimeout of(int seconds) {
        return new QueueTimeout(seconds);
    }
}

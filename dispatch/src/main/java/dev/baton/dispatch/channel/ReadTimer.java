package dev.baton.dispatch.channel;

import dev.baton.dispatch.Deadlines;
import dev.baton.dispatch.Presence;
import dev.baton.dispatch.RunnerSession;
import dev.baton.dispatch.Sessions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * The channel's read timeout: once a second (on the injected clock) every open channel whose
 * last valid message is older than the heartbeat timeout is closed and its jobs handled as lost.
 * One sweep instead of one timer per message keeps heartbeats cheap.
 */
public final class ReadTimer {
    private static final String KEY = "read-timer";
    private static final Duration PERIOD = Duration.ofSeconds(1);

    private final Sessions sessions;
    private final Presence presence;
    private final Deadlines deadlines;
    private final Clock clock;
    private final Duration heartbeatTimeout;

    public ReadTimer(
            Sessions sessions, Presence presence, Deadlines deadlines, Clock clock, Duration heartbeatTimeout) {
        this.sessions = sessions;
        this.presence = presence;
        this.deadlines = deadlines;
        this.clock = clock;
        this.heartbeatTimeout = heartbeatTimeout;
    }

    public void start() {
        deadlines.set(KEY, clock.instant().plus(PERIOD), this::sweep);
    }

    private void sweep() {
        Instant now = clock.instant();
        try {
            for (RunnerSession s : sessions.all()) {
                if (s.isOpen() && !s.lastValidMessage().plus(heartbeatTimeout).isAfter(now)) {
                    // Unregister first so the close does not also schedule a disconnect check.
                    sessions.unregister(s);
                    presence.readTimedOut(s);
                    s.close(RunnerSession.CLOSE_HEARTBEAT_TIMEOUT, "no valid message within the heartbeat timeout");
                }
            }
        } finally {
            deadlines.set(KEY, now.plus(PERIOD), this::sweep);
        }
    }
}

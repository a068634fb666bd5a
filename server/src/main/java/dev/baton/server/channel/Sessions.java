package dev.baton.server.channel;

import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The current channel of each runner. A runner has at most one: a new connection replaces the
 * old one, which is closed with {@link RunnerSession#CLOSE_REPLACED}. The newest connection wins
 * because a runner that reconnects after a network split must not be locked out by a half-dead
 * socket the server has not noticed yet.
 */
public final class Sessions {
    private final ConcurrentHashMap<Long, RunnerSession> byRunner = new ConcurrentHashMap<>();

    /** Registers {@code session}; returns the session it replaced, if any. */
    Optional<RunnerSession> register(RunnerSession session) {
        return Optional.ofNullable(byRunner.put(session.runnerId(), session));
    }

    /** Unregisters {@code session} if it is still the runner's current one. */
    boolean unregister(RunnerSession session) {
        return byRunner.remove(session.runnerId(), session);
    }

    public Optional<RunnerSession> of(long runnerId) {
        return Optional.ofNullable(byRunner.get(runnerId));
    }

    public boolean isCurrent(RunnerSession session) {
        return byRunner.get(session.runnerId()) == session;
    }

    public int size() {
        return byRunner.size();
    }

    public Collection<RunnerSession> all() {
        return List.copyOf(byRunner.values());
    }
}

package dev.baton.dispatch;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The current channel of each runner. A runner has at most one: a new connection replaces the
 * old one, which is closed with {@link RunnerSession#CLOSE_REPLACED}. The newest connection wins
 * because a runner that reconnects after a network split must not be locked out by a half-dead
 * socket the server has not noticed yet.
 */
public final class Sessions {
    private final ConcurrentHashMap<Long, RunnerSession> byRunner = new ConcurrentHashMap<>();

    private volatile boolean shuttingDown;

    /**
     * Registers {@code session}; returns the session it replaced, if any. After
     * {@link #shutdown} a new session is closed at once with {@link RunnerSession#CLOSE_SHUTDOWN}
     * (checked after the put, so a connection racing the shutdown is closed by one side or the other).
     */
    public Optional<RunnerSession> register(RunnerSession session) {
        Optional<RunnerSession> replaced = Optional.ofNullable(byRunner.put(session.runnerId(), session));
        if (shuttingDown) session.close(RunnerSession.CLOSE_SHUTDOWN, SHUTDOWN_REASON);
        return replaced;
    }

    static final String SHUTDOWN_REASON = "server shutting down";

    /**
     * Graceful shutdown, first step: closes every channel with {@link RunnerSession#CLOSE_SHUTDOWN}
     * and refuses new ones, waiting (at most {@code wait}) until the close frames are written.
     * Runners then reconnect to the next server start or another node and carry on.
     */
    public void shutdown(Duration wait) {
        shuttingDown = true;
        CompletableFuture<?>[] written = all().stream()
                .map(s -> s.closeWritten(RunnerSession.CLOSE_SHUTDOWN, SHUTDOWN_REASON))
                .toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(written).get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // a runner that cannot take its close frame is closed by Jetty's stop instead
        }
    }

    /** Unregisters {@code session} if it is still the runner's current one. */
    public boolean unregister(RunnerSession session) {
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

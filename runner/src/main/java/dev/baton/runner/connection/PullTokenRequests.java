package dev.baton.runner.connection;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.runner.oci.PullCredentials;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Fresh registry pull tokens over the runner channel (issue 41, docs/protocol.md "pull_token"): an
 * image pull whose token the registry refused asks here, from its executor thread; the request
 * goes out as {@code pull_token}, the server's {@code pull_token} answer (or a {@code stale} for
 * the job: it ended) comes back through the channel client's tap. No state of the runner's machine
 * changes: a token is a credential of the pull, not of the job's lifecycle.
 */
public final class PullTokenRequests {
    /** How long a pull waits for the server's answer before it gives up as denied. */
    public static final Duration ANSWER_WAIT = Duration.ofSeconds(30);

    private final Map<JobUuid, CompletableFuture<Optional<String>>> waiting = new ConcurrentHashMap<>();
    /** Null until a channel is wired: the NATS transport's runner has no channel to ask on. */
    private volatile Consumer<RunnerMessage> sender;

    /** Where requests are sent: the channel client's send. */
    public void sendWith(Consumer<RunnerMessage> send) {
        this.sender = send;
    }

    /** Hears every server message; completes the request a {@code pull_token} or a job's {@code stale} answers. */
    public void answer(ServerMessage message) {
        switch (message) {
            case ServerMessage.PullToken p -> {
                var request = waiting.remove(p.job());
                if (request != null) request.complete(Optional.ofNullable(p.token()));
            }
            case ServerMessage.Stale s -> {
                var request = waiting.remove(s.job());
                if (request != null) request.complete(Optional.empty());
            }
            default -> {}
        }
    }

    /** A fresh token for this attempt, or empty when the server refuses (the job ended) or does not answer in time. */
    public Optional<String> ask(JobUuid job, LeaseId lease, Duration wait) {
        Consumer<RunnerMessage> send = sender;
        if (send == null) return Optional.empty();
        CompletableFuture<Optional<String>> request = waiting.computeIfAbsent(job, j -> new CompletableFuture<>());
        send.accept(new RunnerMessage.PullToken(job, lease));
        try {
            return request.get(wait.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } catch (ExecutionException | TimeoutException e) {
            return Optional.empty();
        } finally {
            waiting.remove(job, request);
        }
    }

    /** The credentials of one attempt's pulls: the claim's token first, fresh ones asked for here when refused. */
    public PullCredentials credentials(JobUuid job, LeaseId lease, String claimToken) {
        return new PullCredentials() {
            private String token = claimToken;

            @Override
            public synchronized String current() {
                return token;
            }

            @Override
            public synchronized Optional<String> refresh(String refused) {
                // Another blob of the same pull refreshed it meanwhile: use that one.
                if (token != null && !token.equals(refused)) return Optional.of(token);
                Optional<String> fresh = ask(job, lease, ANSWER_WAIT);
                fresh.ifPresent(t -> token = t);
                return fresh;
            }
        };
    }
}

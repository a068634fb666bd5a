package dev.baton.dispatch;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * What this node knows about pending jobs, so that a pump does not ask the store
 * ({@code Store.hasPendingFor}) when the answer can only be "none" (issue 13,
 * docs/decisions/0020-pending-knowledge.md). Most pumps (every {@code ready}, every finished job)
 * find nothing pending; once the store said so for a set of specs, that answer holds until a job
 * of one of those specs is heard to be pending: submitted or requeued on this node
 * ({@link JobEvents}, the lifecycle), or on another node (its bus notification).
 *
 * <p>A notification can be lost (the bus listener's resync), and a process without a bus may
 * write jobs: such a job is found when the node {@link #forget}s (the fallback sweep, every
 * second, and every resync) or once the answer is {@link #MAX_AGE} old, never lost.
 *
 * <p>Ticks order the answers and the news: a pump takes a {@link Ticket} <em>before</em> it reads,
 * and a job is heard of after its commit. So a job the read may have missed (committed after the
 * ticket) is always heard of with a later tick, and the answer stops counting for its specs; a
 * job heard of earlier was committed before the read began and the read saw it.
 */
public final class PendingKnowledge {
    /** The longest an answer "nothing pending" is trusted without news (the fallback sweep forgets sooner). */
    public static final Duration MAX_AGE = Duration.ofSeconds(2);

    /** Taken before a read of the store; records the read's answer. */
    public record Ticket(long tick, Instant at) {}

    private final Clock clock;
    private final AtomicLong ticks = new AtomicLong();
    /** The tick of the last job heard to be pending, by spec id. */
    private final Map<Long, Long> heard = new ConcurrentHashMap<>();
    /** Sets of specs for which the store said "nothing pending", and the ticket of that read. */
    private final Map<Set<Long>, Ticket> empty = new ConcurrentHashMap<>();
    /** Answers with an earlier tick than this are not trusted (see {@link #forget}). */
    private volatile long forgotAt;

    public PendingKnowledge(Clock clock) {
        this.clock = clock;
    }

    /** Take before reading the store; pass to {@link #nothingPending} if it said none. */
    public Ticket ticket() {
        return new Ticket(ticks.get(), clock.instant());
    }

    /** A job of this spec became pending (after its commit): answers read before now no longer count for it. */
    public void pending(long specId) {
        long tick = ticks.incrementAndGet();
        heard.merge(specId, tick, Math::max);
    }

    /** The store said that no job of {@code specIds} is pending, in a read begun after {@code ticket} was taken. */
    public void nothingPending(Set<Long> specIds, Ticket ticket) {
        empty.merge(specIds, ticket, (old, now) -> now.tick() >= old.tick() ? now : old);
    }

    /** True when no job of {@code specIds} can be pending, as far as this node heard; false when it must ask. */
    public boolean knownEmpty(Set<Long> specIds) {
        Ticket answer = empty.get(specIds);
        if (answer == null || answer.tick() < forgotAt) return false;
        Instant now = clock.instant();
        if (now.isBefore(answer.at()) || !now.isBefore(answer.at().plus(MAX_AGE))) return false;
        for (Long spec : specIds) {
            if (heard.getOrDefault(spec, 0L) > answer.tick()) return false;
        }
        return true;
    }

    /** News may have been lost (or a process without a bus wrote jobs): every answer is read again. */
    public void forget() {
        forgotAt = ticks.incrementAndGet();
        empty.clear();
    }
}

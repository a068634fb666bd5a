package dev.baton.dispatch.logs;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.message.RunnerMessage;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

/**
 * The live logs this server node holds, in memory and bounded: one {@link JobLog} per job whose
 * attempt runs here (its runner's channel is on this node), plus the last {@link #IDLE_LOGS} logs
 * of jobs whose attempt ended or that readers asked about. Nothing here is written to the
 * database: the whole log of an ended job is its stored output.
 */
public final class LiveLogs implements AutoCloseable {
    /** Text kept per job while it runs (the tail); older entries are dropped from memory. */
    public static final int TAIL_BYTES = 1 << 20;
    /** Entries with text kept per job while it runs. */
    public static final int TAIL_ENTRIES = 10_000;
    /**
     * Entries (positions only, about 64 bytes each) per job; past this the job's live log stops and
     * the rest is served from the stored output when the job ends.
     */
    public static final int MAX_ENTRIES = 100_000;
    /** Logs of ended (or merely looked-up) jobs kept for consistent seqs, least recently used first out. */
    public static final int IDLE_LOGS = 256;

    /** Both maps are guarded by {@code idle}'s monitor, so a log is in exactly one of them. */
    private final Map<JobUuid, JobLog> live = new ConcurrentHashMap<>();

    private final Map<JobUuid, JobLog> idle = new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<JobUuid, JobLog> eldest) {
            return size() > IDLE_LOGS;
        }
    };
    private volatile boolean closed;
    private final Predicate<JobUuid> handedOutHere;

    private final java.util.function.Supplier<java.time.Instant> now;

    /** Logs of a node that hands out no attempts of its own (tests of the log alone); entries carry no times. */
    public LiveLogs() {
        this(job -> false, () -> null);
    }

    /**
     * @param handedOutHere true while an attempt of the job is handed out on this node's channel
     *                      (claimed or running here), before any of its log arrived
     * @param now           the server's clock: each entry carries when its chunk arrived
     */
    public LiveLogs(Predicate<JobUuid> handedOutHere, java.util.function.Supplier<java.time.Instant> now) {
        this.handedOutHere = handedOutHere;
        this.now = now;
    }

    /** Stores a log message whose lease the lifecycle has checked to be current. */
    public JobLog.Appended append(JobUuid job, LeaseId lease, RunnerMessage.Log message) {
        JobLog log;
        synchronized (idle) {
            log = live.get(job);
            if (log == null) {
                JobLog known = idle.remove(job);
                log = known != null ? known : newLog();
                live.put(job, log);
            }
        }
        return log.append(lease, message, now.get());
    }

    /**
     * The job's attempt on this node is over (finished, lost, requeued, …): its log leaves the live
     * set, and readers waiting on it look at the job again.
     */
    public void attemptEnded(JobUuid job) {
        JobLog log;
        synchronized (idle) {
            log = live.remove(job);
            if (log != null) idle.put(job, log);
            else log = idle.get(job);
        }
        if (log != null) log.poke();
    }

    /** True while an attempt of the job runs on this node (its log may still grow). */
    public boolean isLive(JobUuid job) {
        return live.containsKey(job);
    }

    /**
     * True when this node numbers the job's log itself: an attempt is handed out or runs here
     * (even before its first entry, so that another node's follower waits here for it rather than
     * polling), or ran here and its log is still kept. Another node's reader is then served this
     * node's entries (docs/decisions/0016-cross-node-live.md).
     */
    public boolean heldLive(JobUuid job) {
        if (live.containsKey(job) || handedOutHere.test(job)) return true;
        JobLog log;
        synchronized (idle) {
            log = idle.get(job);
        }
        return log != null && log.wasLive();
    }

    /**
     * The job's log, made empty when this node knows nothing of it yet. A reader waiting on a log
     * made here before the attempt's first entry is woken by it: {@link #append} moves this same
     * log to the live set.
     */
    JobLog logFor(JobUuid job) {
        synchronized (idle) {
            JobLog log = live.get(job);
            return log != null ? log : idle.computeIfAbsent(job, j -> newLog());
        }
    }

    boolean isClosed() {
        return closed;
    }

    private static JobLog newLog() {
        return new JobLog(TAIL_BYTES, TAIL_ENTRIES, MAX_ENTRIES);
    }

    /** Server shutdown: followers end their streams (without {@code end}) so the server can stop. */
    @Override
    public void close() {
        closed = true;
        List<JobLog> all = new ArrayList<>(live.values());
        synchronized (idle) {
            all.addAll(idle.values());
        }
        all.forEach(JobLog::poke);
    }
}

package dev.baton.runner.logs;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.LogStream;
import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * Carries each held job's live output from its capture threads to the agent's loop: a
 * {@link LiveOutput} buffer per job, drained into {@link Input.Output} on the agent's timer
 * thread. A pump runs {@link LiveOutput#FLUSH_INTERVAL} after the first bytes wait, at once when
 * {@link LiveOutput#FLUSH_BYTES} wait, and again when the loop consumed a batch while more was
 * printed; nothing is scheduled while no job prints, so a silent job's agent, like an idle one,
 * has no timer waking it (issue 45, decision 0078).
 *
 * <p>At most one batch per job is in the loop's queue at a time: while the loop is busy (a slow
 * send), output piles up in the bounded buffer and is dropped there, never in an unbounded queue.
 */
public final class OutputPump {
    private final Map<JobUuid, LiveOutput> buffers = new ConcurrentHashMap<>();
    private final ScheduledExecutorService timers;
    private final Consumer<Input> loop;
    private final Clock clock;
    /** A pump is queued to run at once. */
    private final AtomicBoolean soon = new AtomicBoolean();
    /** A pump is due within {@link LiveOutput#FLUSH_INTERVAL}. */
    private final AtomicBoolean timed = new AtomicBoolean();

    /** Pumps on {@code timers}' thread into {@code loop} (the agent's input queue). */
    public OutputPump(ScheduledExecutorService timers, Consumer<Input> loop, Clock clock) {
        this.timers = timers;
        this.loop = loop;
        this.clock = clock;
    }

    /** A job's output starts to be carried (before its executor prepares). */
    public void open(JobUuid job) {
        buffers.put(job, new LiveOutput());
    }

    /** The job is over; what it printed after its last batch is in its result. */
    public void close(JobUuid job) {
        buffers.remove(job);
    }

    /** From a job's capture thread: copies the bytes and arms a pump (never waits on the loop). */
    public void write(JobUuid job, int iteration, LogStream stream, byte[] bytes, int offset, int length) {
        LiveOutput buffer = buffers.get(job);
        if (buffer == null) return;
        if (buffer.write(iteration, stream, bytes, offset, length)) pumpSoon();
        else pumpWithin();
    }

    /** From the loop, after it handled the job's batch: what the job printed meanwhile waits for the next pump. */
    public void consumed(JobUuid job) {
        LiveOutput buffer = buffers.get(job);
        if (buffer != null && buffer.consumed()) pumpWithin();
    }

    private void pump() {
        for (var e : buffers.entrySet()) {
            if (e.getValue().claim())
                loop.accept(new Input.Output(e.getKey(), e.getValue().drain(), clock.instant()));
        }
    }

    private void pumpWithin() {
        if (!timed.compareAndSet(false, true)) return;
        try {
            timers.schedule(
                    () -> {
                        timed.set(false);
                        pump();
                    },
                    LiveOutput.FLUSH_INTERVAL.toMillis(),
                    TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            timed.set(false); // shutting down
        }
    }

    private void pumpSoon() {
        if (!soon.compareAndSet(false, true)) return;
        try {
            timers.execute(() -> {
                soon.set(false);
                pump();
            });
        } catch (RejectedExecutionException e) {
            soon.set(false); // shutting down
        }
    }
}

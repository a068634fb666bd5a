package dev.baton.runner.executor;

import dev.baton.protocol.id.JobUuid;
import java.util.Optional;

/**
 * Something a previous agent left running for a job — a process group, a cgroup, a container —
 * that {@link Executor#sweep()} found and stopped at start. The agent reports the job as lost
 * and says what was killed.
 *
 * @param job the job it belonged to
 * @param what a short description for the job's error and the log, e.g. "process group 4242"
 */
public record Leftover(JobUuid job, String what) {

    /**
     * The job of something an executor named {@code <prefix><job uuid>-<iteration>} (a container, a
     * VM); none for a name of another shape (a probe VM, a foreign container).
     */
    static Optional<JobUuid> jobOf(String name, String prefix) {
        if (!name.startsWith(prefix)) return Optional.empty();
        String rest = name.substring(prefix.length());
        int dash = rest.lastIndexOf('-');
        if (dash <= 0) return Optional.empty();
        try {
            return Optional.of(JobUuid.parse(rest.substring(0, dash)));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }
}

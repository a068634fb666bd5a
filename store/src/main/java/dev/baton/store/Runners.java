package dev.baton.store;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.protocol.value.Slug;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The store's part for runners: their keys (only SHA-256 hashes are stored), their labels,
 * their batched heartbeats and their quarantine.
 */
public interface Runners {
    /** Inserts a runner with the SHA-256 of its key; a taken slug is a CONFLICT. */
    Runner createRunner(String name, Slug slug, String keyHash, Instant now);

    /**
     * Inserts a single-job runner (issue 43): it takes one attempt and is spent once that attempt
     * ended ({@link #isSpent}). With {@code boundJob} (a job's row id) it takes only that job, and
     * the job is reserved for it: no other runner takes it while this runner is live (not archived)
     * and unspent. CONFLICT when the slug is taken or the bound job is not pending.
     */
    Runner createEphemeralRunner(String name, Slug slug, String keyHash, Long boundJob, Instant now);

    /**
     * Whether the runner is a single-job runner whose attempt ended (completed, failed, canceled,
     * declined or lost): its key is refused from then on. False for every other runner.
     */
    boolean isSpent(long runnerId);

    Optional<Runner> findRunner(ResourceId id);

    Optional<Runner> findRunner(long id);

    List<Runner> listRunners(RunnerFilter filter);

    /** Null arguments leave a field unchanged; {@code archived} true archives (now), false restores. */
    Runner updateRunner(long runnerId, String name, Slug slug, Boolean archived, Instant now);

    /** Replaces the key hash; the old key stops working at once. Refused (CONFLICT) for archived runners. */
    Runner rotateRunnerKey(long runnerId, String keyHash, Instant now);

    /** One query: the runner named by UUID or slug whose key hash matches, archived runners excluded. */
    Optional<Runner> authenticateRunner(ResourceId id, String keyHash);

    /** Batched liveness: sets each runner's last_heartbeat. */
    void recordRunnerHeartbeats(Map<Long, Instant> lastSeen);

    /** A runner's labels, as the admin set them and as it reported them. */
    RunnerLabels runnerLabels(long runnerId);

    /**
     * Replaces the runner's labels of one source: the admin's ({@code admin} true) or those it
     * reported in {@code ready}. NOT_FOUND if unknown.
     */
    void setRunnerLabels(long runnerId, boolean admin, Map<String, String> labels, Instant now);

    /**
     * Quarantines the runner when its infrastructure failures (lost, accept timeout, declines of
     * the machine: {@code JdbcStore.INFRASTRUCTURE_FAILURE}) that ended within {@code window}
     * before {@code now}, and since its last release, number at least {@code threshold}. Returns
     * the runner when this call quarantined it; empty when it stays or already was quarantined.
     */
    Optional<Runner> quarantineIfFlaky(long runnerId, int threshold, Duration window, Instant now);

    /** Lifts a runner's quarantine (a no-op if it has none); failures before {@code now} do not count again. NOT_FOUND if unknown. */
    Runner releaseRunner(long runnerId, Instant now);

    /**
     * Records the machine a runner's connection describes (issue 41) as the runner's latest: the
     * runner's latest row again when nothing differs (a reconnect of the same process from the same
     * address), else a new row, seen {@code now}. Claims record the runner's latest machine on the
     * attempt they open. Returns the machine.
     */
    KnownMachine recordMachine(long runnerId, RunnerHost machine, Instant now);

    /** The runner's latest machine, if it ever said {@code ready} since machines are recorded. */
    Optional<KnownMachine> latestMachine(long runnerId);

    /** Every runner's latest machine, by runner id (one query, for the runner list and metrics). */
    Map<Long, KnownMachine> latestMachines();

    /**
     * A router's word for the machine behind it that runs the attempt ({@code running} with
     * {@code machine}): recorded as a machine of the router's runner row and set on the attempt
     * under {@code lease}, instead of the router's own. False if no such attempt.
     */
    boolean recordAttemptMachine(long runnerId, JobUuid job, LeaseId lease, RunnerHost machine, Instant now);

    /** The machine of each of the job's attempts that has one, by attempt number. */
    Map<Integer, KnownMachine> attemptMachines(long jobId);
}

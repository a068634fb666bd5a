package dev.baton.chaos;

import java.nio.file.Path;
import java.time.Duration;

/**
 * One chaos run.
 *
 * @param database          the store
 * @param nodes             server nodes on it (1 on SQLite; PostgreSQL takes more once several nodes are supported)
 * @param runners           runner agents, each with {@code slots} jobs at a time
 * @param faultPhase        how long jobs are submitted and faults injected
 * @param faultInterval     mean time between two faults
 * @param submitRate        jobs submitted per second during the fault phase
 * @param heartbeatTimeout  the servers' heartbeat timeout; a SIGSTOP lasts longer than this
 * @param quiesceTimeout    how long, after the last fault, every job has to reach a terminal state
 * @param seed              seeds every random choice, so a run's schedule can be repeated
 * @param install           the unpacked distribution (holds bin/baton)
 * @param workDir           where the run keeps data dirs, logs, the execution log and its summary
 * @param postgresUrl       the PostgreSQL server ({@code postgresql://host:port/db?user=…}); a fresh schema is made in it
 * @param keep              keep the run's PostgreSQL schema (it is dropped at the end otherwise)
 * @param transport         the runners' transport: the runner channel, the NATS transport (a nats-server the run starts), or both
 * @param pool              the pool scenario: no runner agents; a pool of the {@code process} provider ({@code runners} is
 *                          its {@code max}) starts a single-job runner per waiting job, under the pool's faults
 *                          ({@link FaultEvent.Kind#injectedInPool})
 */
public record ChaosSettings(
        Database database,
        int nodes,
        int runners,
        int slots,
        Duration faultPhase,
        Duration faultInterval,
        double submitRate,
        Duration heartbeatTimeout,
        Duration quiesceTimeout,
        long seed,
        Path install,
        Path workDir,
        String postgresUrl,
        boolean keep,
        Transport transport,
        boolean pool) {

    public ChaosSettings {
        if (nodes < 1) throw new IllegalArgumentException("--nodes must be at least 1, got " + nodes);
        if (database == Database.SQLITE && nodes != 1) {
            throw new IllegalArgumentException(
                    "SQLite is the single-node store: --nodes must be 1 with --database sqlite");
        }
        if (runners < 1) throw new IllegalArgumentException("--runners must be at least 1, got " + runners);
        if (slots < 1) throw new IllegalArgumentException("--slots must be at least 1, got " + slots);
        if (submitRate <= 0) throw new IllegalArgumentException("--rate must be above 0, got " + submitRate);
        if (transport == null) transport = Transport.WEBSOCKET;
        if (pool && transport.broker())
            throw new IllegalArgumentException(
                    "--pool runs on the runner channel: single-job runners do not take the NATS transport");
    }

    /**
     * The pool's {@code boot_timeout}: well above a runner JVM's start-up on a loaded machine
     * (4–10 s here), since a machine that misses it ends failed and its job waits this long for
     * the next; a runner killed at boot costs its job this much.
     */
    Duration poolBootTimeout() {
        return Duration.ofSeconds(45);
    }

    /**
     * The NATS transport's {@code lease_ttl} on the nodes: twice the heartbeat timeout, and at least 6 s,
     * so that the runners' heartbeat interval (a sixth of it, in whole seconds) is at least one.
     */
    Duration leaseTtl() {
        Duration twice = heartbeatTimeout.multipliedBy(2);
        return twice.compareTo(Duration.ofSeconds(6)) < 0 ? Duration.ofSeconds(6) : twice;
    }

    /** How long a frozen runner stays frozen: past the heartbeat timeout and, with a broker, past the lease's life. */
    Duration runnerFreeze() {
        Duration longest =
                transport.broker() && leaseTtl().compareTo(heartbeatTimeout) > 0 ? leaseTtl() : heartbeatTimeout;
        return longest.plusSeconds(2);
    }
}

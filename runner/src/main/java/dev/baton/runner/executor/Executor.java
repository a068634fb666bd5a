package dev.baton.runner.executor;

import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.RunnerCapabilities;
import java.util.List;
import java.util.Optional;

/**
 * Runs claimed jobs: provisions the environment, runs the iterations, stops on request. Each
 * job gets its own {@link Execution}, which reports through {@link ExecutionEvents} from its own
 * thread. Implementations: {@link ProcessExecutor} (trusted runners), {@link RuncExecutor},
 * {@link MicroVmExecutor}.
 */
public interface Executor {
    /** A short name for logs and {@code --executor}. */
    String name();

    /**
     * The executor's own version for the machine fingerprint (runc's, QEMU's), or null when the
     * executor is the agent's own code (the fingerprint carries the agent's version anyway).
     */
    default String version() {
        return null;
    }

    /**
     * The CPUs this executor pins every workload to (a kernel cpu list), or empty when it does
     * not pin: then a job may run on any online CPU. The machine fingerprint watches these.
     */
    default Optional<String> workloadCpus() {
        return Optional.empty();
    }

    /**
     * What this executor detected at start, logged by the agent and sent with every {@code ready}
     * (the agent adds {@link #runsBaselineImage()} to it, so no executor can leave it out).
     */
    default RunnerCapabilities capabilities() {
        return RunnerCapabilities.executor(name());
    }

    /**
     * Whether this executor runs a paired job's baseline in an image of its own
     * ({@code config.paired.baseline_image}, issue 45, decision 0069): runc (a second rootfs) and the
     * microVM (a second disk); the process executor runs no images. The agent
     * asks this once, before {@link #prepare}, and declines such a job itself ({@link
     * BaselineImageRefusal}); {@code prepare} never sees one it cannot run.
     */
    default boolean runsBaselineImage() {
        return false;
    }

    /**
     * The images this executor can start without pulling, most recent first (issue 19, image
     * affinity), or empty when it keeps no image cache (the process executor runs no images):
     * then the runner reports none and the server treats it as neither warm nor cold.
     */
    default java.util.Optional<dev.baton.runner.oci.RecentImages> heldImages() {
        return java.util.Optional.empty();
    }

    /** Starts preparing the job in the background and returns its handle at once. */
    Execution prepare(ClaimedJob job, ExecutionEvents events);

    /**
     * Stops and removes everything a previous agent left behind in this executor's work
     * directory — still-running workloads (process groups, cgroups, containers) and their files —
     * and says which jobs the stopped workloads belonged to, so the agent can report them lost.
     *
     * <p>Contract for every executor: whatever it starts for a job, it records in its work
     * directory before the workload runs (a process group, a cgroup, a container id), so that
     * an agent killed with SIGKILL leaves nothing running past its next start. Called once at
     * start, before any job, while the agent holds the work directory's lock (so nothing it
     * finds belongs to a live agent). Must not throw for a single bad entry: it logs and goes on.
     */
    default List<Leftover> sweep() {
        return List.of();
    }
}

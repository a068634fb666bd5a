package dev.baton.runner.executor;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.PairedConfig;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the job's entrypoint and cmd as a child process of the agent, in a fresh work directory
 * per iteration. No isolation at all: the workload has the agent's user, file system and
 * network. Only for trusted runners, so it refuses to exist without {@code --allow-no-sandbox}.
 * The environment is the job's env on top of a minimal PATH/HOME — never the agent's own, which
 * may hold the runner key. With benchmark CPUs configured, the workload is pinned to them with
 * {@code taskset}.
 *
 * <p>Each iteration runs in a session and process group of its own ({@code setsid}) and, where the
 * runner may create cgroups, in a cgroup v2 of this execution's own; both are recorded in the job's
 * directory ({@link ProcessRecord}). Stopping signals the whole group, whatever the iteration
 * left running in the background is killed when it ends, and after a SIGKILLed agent the next
 * start's {@link #sweep()} kills what the record names.
 */
public final class ProcessExecutor implements Executor {
    private static final Logger log = LoggerFactory.getLogger(ProcessExecutor.class);

    private final Path workDir;
    private final OutputLimits limits;
    private final Optional<String> benchmarkCpus;
    private final Clock clock;
    /** Absolute path of setsid(1), or empty: then jobs share the agent's process group (and a SIGKILLed agent leaves them). */
    private final Optional<String> setsid;
    /** Where job cgroups go, or empty when this process may not create cgroups. */
    private final Optional<Path> cgroupParent;

    /** @throws IllegalStateException unless the operator explicitly allowed running without a sandbox */
    public ProcessExecutor(
            Path workDir, OutputLimits limits, Optional<String> benchmarkCpus, Clock clock, boolean allowNoSandbox) {
        if (!allowNoSandbox) {
            throw new IllegalStateException(
                    "the process executor runs jobs without any sandbox; start the runner with --allow-no-sandbox to allow it (trusted jobs only)");
        }
        this.workDir = workDir;
        this.limits = limits;
        this.benchmarkCpus = benchmarkCpus;
        this.clock = clock;
        this.setsid = onPath("setsid");
        this.cgroupParent = Cgroups.jobParent();
        if (setsid.isEmpty()) {
            log.warn(
                    "setsid not found on PATH: jobs share the agent's process group, and a killed agent leaves them running (install util-linux)");
        }
        log.info(
                "process executor: jobs run in {}{}",
                setsid.isPresent() ? "a process group of their own" : "the agent's process group",
                cgroupParent
                        .map(p -> " and a cgroup under " + p)
                        .orElse(" (no cgroup: this process may not create one)"));
    }

    private static Optional<String> onPath(String program) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
            if (dir.isEmpty()) continue;
            Path p = Path.of(dir, program);
            if (Files.isExecutable(p)) return Optional.of(p.toString());
        }
        return Optional.empty();
    }

    @Override
    public String name() {
        return "process";
    }

    @Override
    public Optional<String> workloadCpus() {
        return benchmarkCpus;
    }

    @Override
    public Execution prepare(ClaimedJob job, ExecutionEvents events) {
        var e = new ProcessExecution(job, events);
        e.begin();
        return e;
    }

    /** Kills what the job directories' {@link ProcessRecord}s name, then removes the directories. */
    @Override
    public List<Leftover> sweep() {
        Path root = workDir.resolve("process");
        List<Leftover> found = new ArrayList<>();
        if (Files.isDirectory(root)) {
            try (DirectoryStream<Path> jobs = Files.newDirectoryStream(root)) {
                for (Path dir : jobs) {
                    if (!Files.exists(dir.resolve(ProcessRecord.FILE))) continue;
                    try {
                        ProcessRecord record = ProcessRecord.read(dir);
                        String killed = record.kill();
                        if (killed != null) {
                            log.warn("killed what a previous agent left running for job {}: {}", record.job(), killed);
                            found.add(new Leftover(JobUuid.parse(record.job()), killed));
                        }
                    } catch (IOException | RuntimeException e) {
                        log.error("cannot read or act on the process record in {}: {}", dir, e.toString());
                    }
                }
            } catch (IOException e) {
                log.error("cannot list {}: {}", root, e.toString());
            }
        }
        Trees.deleteTree(root);
        return found;
    }

    private final class ProcessExecution extends IterativeExecution {
        private final Path jobDir;
        private List<String> argv;
        /** A paired job's baseline command (issue 45), pinned as the candidate is; null otherwise. */
        private List<String> baselineArgv;
        /** The job's cgroup, created at the first launch when the runner may create one. */
        private Path cgroup;
        /** The running (or last) iteration's process group, 0 when none. */
        private volatile long pgid;

        ProcessExecution(ClaimedJob job, ExecutionEvents events) {
            super(job, events, ProcessExecutor.this.limits, ProcessExecutor.this.clock);
            this.jobDir = workDir.resolve("process").resolve(job.uuid().toString());
        }

        @Override
        protected void prepare() throws DeclinedException, IOException {
            List<String> command = new ArrayList<>();
            if (job.config().entrypoint() != null) command.addAll(job.config().entrypoint());
            if (job.config().cmd() != null) command.addAll(job.config().cmd());
            if (command.isEmpty())
                throw new DeclinedException(DeclineCode.NO_COMMAND, "the process executor needs an entrypoint or cmd");
            if (job.config().digest() != null
                    && job.config().entrypoint() == null
                    && job.config().cmd() == null) {
                throw new DeclinedException(DeclineCode.IMAGE_REFUSED, "the process executor cannot run images");
            }
            List<String> full = new ArrayList<>();
            benchmarkCpus.ifPresent(cpus -> full.addAll(List.of("taskset", "-c", cpus)));
            full.addAll(command);
            argv = full;
            PairedConfig paired = job.config().paired();
            // A baseline with an image of its own never gets here (Executor#runsBaselineImage).
            if (paired != null) {
                List<String> baseline = new ArrayList<>();
                benchmarkCpus.ifPresent(cpus -> baseline.addAll(List.of("taskset", "-c", cpus)));
                baseline.addAll(paired.baselineCmd());
                baselineArgv = baseline;
            }
            Files.createDirectories(jobDir);
        }

        private Path iterationDir(int i) {
            return jobDir.resolve("iteration-" + i);
        }

        @Override
        protected Process launch(int iteration) throws IOException {
            Path dir = Files.createDirectories(iterationDir(iteration));
            if (cgroup == null && cgroupParent.isPresent()) {
                // One cgroup per execution, not per job: another agent on this host (same parent
                // cgroup) may run a later attempt of the same job, and this one's cleanup must not
                // kill it. The record keeps the full path for the sweep.
                Path c = cgroupParent
                        .get()
                        .resolve("baton-job-" + job.uuid() + "-"
                                + HexFormat.of()
                                        .toHexDigits(ThreadLocalRandom.current().nextInt()));
                try {
                    Files.createDirectories(c);
                    cgroup = c;
                } catch (IOException e) {
                    log.warn(
                            "job {}: cannot create cgroup {} ({}); running in a process group only",
                            job.uuid(),
                            c,
                            e.getMessage());
                }
            }
            String boot = ProcessGroups.bootId();
            // Recorded before the start, so a kill between start and the second write still finds the cgroup.
            if (cgroup != null) new ProcessRecord(job.uuid().toString(), 0, -1, boot, cgroup.toString()).write(jobDir);
            List<String> command = new ArrayList<>();
            if (setsid.isPresent()) command.add(setsid.get());
            if (cgroup != null) {
                // The shell joins the cgroup and becomes the workload (exec): same pid, same group.
                command.addAll(List.of(
                        "/bin/sh",
                        "-c",
                        "echo $$ 2>/dev/null >\"$0\" || echo \"baton: could not join cgroup $0\" >&2; exec \"$@\"",
                        cgroup.resolve("cgroup.procs").toString()));
            }
            PairedConfig paired = job.config().paired();
            PairedConfig.Side side = paired == null ? null : paired.side(iteration - 1);
            command.addAll(side == PairedConfig.Side.BASELINE ? baselineArgv : argv);
            ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile());
            Map<String, String> env = pb.environment();
            env.clear();
            env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
            env.put("HOME", dir.toString());
            env.put("BATON_ITERATION", Integer.toString(iteration));
            if (side != null) {
                env.put("BATON_PAIR", Integer.toString((iteration - 1) / 2));
                env.put("BATON_SIDE", side.wireName());
            }
            if (job.config().env() != null) env.putAll(job.config().env());
            Process p = pb.start();
            if (setsid.isPresent()) {
                // setsid execs in place (the child is no group leader), so the pid is the group id.
                pgid = p.pid();
                new ProcessRecord(
                                job.uuid().toString(),
                                pgid,
                                ProcessGroups.startTicks(pgid).orElse(-1),
                                boot,
                                cgroup == null ? null : cgroup.toString())
                        .write(jobDir);
            }
            return p;
        }

        @Override
        protected void signal(Process process, int iteration, boolean kill) {
            // The whole group and cgroup, so nothing the workload started in the background survives.
            if (pgid > 0) ProcessGroups.signal(pgid, kill);
            if (cgroup != null) {
                Cgroups.procs(cgroup)
                        .forEach(pid -> ProcessHandle.of(pid).ifPresent(h -> {
                            if (kill) h.destroyForcibly();
                            else h.destroy();
                        }));
            }
            // Children first, so a shell cannot respawn them after it goes.
            process.descendants().forEach(h -> {
                if (kill) h.destroyForcibly();
                else h.destroy();
            });
            if (kill) process.destroyForcibly();
            else process.destroy();
        }

        @Override
        protected String outOfMemory(int iteration) {
            return null; // no memory limit without a sandbox
        }

        @Override
        protected FileCollector.Collected collect(int iteration) {
            Path dir = iterationDir(iteration);
            return new FileCollector(limits).collect(job.config().filePaths(), name -> {
                if (name.startsWith("/")) return Optional.of(new FileCollector.Location(dir, Path.of(name)));
                return Optional.of(new FileCollector.Location(dir, dir.resolve(name)));
            });
        }

        /** What the iteration left running in the background would keep the benchmark CPUs busy: killed. */
        @Override
        protected void afterIteration(int iteration) {
            int left = pgid > 0 ? ProcessGroups.signal(pgid, true) : 0;
            if (cgroup != null) {
                List<Long> procs = Cgroups.procs(cgroup);
                procs.forEach(pid -> ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly));
                left += procs.size();
            }
            if (left > 0)
                log.info("job {}: killed {} process(es) iteration {} left running", job.uuid(), left, iteration);
        }

        @Override
        protected void cleanup() {
            if (cgroup != null) Cgroups.killAndRemove(cgroup);
            try {
                Trees.deleteTree(jobDir);
            } catch (RuntimeException e) {
                log.warn("cannot remove {}", jobDir, e);
            }
        }
    }
}

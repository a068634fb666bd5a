package dev.baton.runner.executor;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the job's entrypoint and cmd as a child process of the agent, in a fresh work directory
 * per iteration. No isolation at all: the workload has the agent's user, file system and
 * network. Only for trusted runners, so it refuses to exist without {@code --allow-no-sandbox}.
 * The environment is the job's env on top of a minimal PATH/HOME — never the agent's own, which
 * may hold the runner key. With benchmark CPUs configured, the workload is pinned to them with
 * {@code taskset}.
 */
public final class ProcessExecutor implements Executor {
    private static final Logger log = LoggerFactory.getLogger(ProcessExecutor.class);

    private final Path workDir;
    private final OutputLimits limits;
    private final Optional<String> benchmarkCpus;
    private final Clock clock;

    /** @throws IllegalStateException unless the operator explicitly allowed running without a sandbox */
    public ProcessExecutor(Path workDir, OutputLimits limits, Optional<String> benchmarkCpus, Clock clock, boolean allowNoSandbox) {
        if (!allowNoSandbox) {
            throw new IllegalStateException("the process executor runs jobs without any sandbox; start the runner with --allow-no-sandbox to allow it (trusted jobs only)");
        }
        this.workDir = workDir;
        this.limits = limits;
        this.benchmarkCpus = benchmarkCpus;
        this.clock = clock;
    }

    @Override
    public String name() {
        return "process";
    }

    @Override
    public Execution prepare(ClaimedJob job, ExecutionEvents events) {
        var e = new ProcessExecution(job, events);
        e.begin();
        return e;
    }

    @Override
    public void sweep() {
        Trees.deleteTree(workDir.resolve("process"));
    }

    private final class ProcessExecution extends IterativeExecution {
        private final Path jobDir;
        private List<String> argv;

        ProcessExecution(ClaimedJob job, ExecutionEvents events) {
            super(job, events, ProcessExecutor.this.limits, ProcessExecutor.this.clock);
            this.jobDir = workDir.resolve("process").resolve(job.uuid().toString());
        }

        @Override
        protected void prepare() throws DeclinedException, IOException {
            List<String> command = new ArrayList<>();
            if (job.config().entrypoint() != null) command.addAll(job.config().entrypoint());
            if (job.config().cmd() != null) command.addAll(job.config().cmd());
            if (command.isEmpty()) throw new DeclinedException(DeclineCode.NO_COMMAND, "the process executor needs an entrypoint or cmd");
            if (job.config().digest() != null && job.config().entrypoint() == null && job.config().cmd() == null) {
                throw new DeclinedException(DeclineCode.IMAGE_REFUSED, "the process executor cannot run images");
            }
            List<String> full = new ArrayList<>();
            benchmarkCpus.ifPresent(cpus -> full.addAll(List.of("taskset", "-c", cpus)));
            full.addAll(command);
            argv = full;
            Files.createDirectories(jobDir);
        }

        private Path iterationDir(int i) {
            return jobDir.resolve("iteration-" + i);
        }

        @Override
        protected Process launch(int iteration) throws IOException {
            Path dir = Files.createDirectories(iterationDir(iteration));
            ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
            Map<String, String> env = pb.environment();
            env.clear();
            env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
            env.put("HOME", dir.toString());
            env.put("BATON_ITERATION", Integer.toString(iteration));
            if (job.config().env() != null) env.putAll(job.config().env());
            return pb.start();
        }

        @Override
        protected void signal(Process process, int iteration, boolean kill) {
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

        @Override
        protected void afterIteration(int iteration) {}

        @Override
        protected void cleanup() {
            try {
                Trees.deleteTree(jobDir);
            } catch (RuntimeException e) {
                log.warn("cannot remove {}", jobDir, e);
            }
        }
    }
}

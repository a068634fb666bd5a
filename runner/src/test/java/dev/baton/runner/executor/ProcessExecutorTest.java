package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.machine.Jobs;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The process executor with real child processes: bounds, file collection, environment. */
class ProcessExecutorTest {
    @TempDir
    Path work;

    private ExecutionResult run(OutputLimits limits, ClaimedJob job) throws Exception {
        return run(limits, Optional.empty(), job);
    }

    private ExecutionResult run(OutputLimits limits, Optional<String> cpus, ClaimedJob job) throws Exception {
        var executor = new ProcessExecutor(work, limits, cpus, Clock.systemUTC(), true);
        CompletableFuture<ExecutionResult> done = new CompletableFuture<>();
        Execution[] e = new Execution[1];
        CompletableFuture<Void> prepared = new CompletableFuture<>();
        e[0] = executor.prepare(job, new ExecutionEvents() {
            @Override
            public void progress(String message) {}

            @Override
            public void prepared() {
                prepared.complete(null);
            }

            @Override
            public void declined(String reason) {
                done.completeExceptionally(new AssertionError(reason));
            }

            @Override
            public void started(Instant at) {}

            @Override
            public void finished(ExecutionResult result) {
                done.complete(result);
            }
        });
        prepared.get(10, TimeUnit.SECONDS);
        e[0].start();
        return done.get(30, TimeUnit.SECONDS);
    }

    private static ClaimedJob job(String script, int iterations, List<String> files) {
        return Jobs.claimed(
                Jobs.spec(Architecture.ofHost().orElseThrow(), 1, 1 << 30, false),
                Jobs.command(List.of("sh", "-c", script), 60, iterations, files));
    }

    @Test
    void streamsAndFilesAreBoundedWithAMarker() throws Exception {
        var limits = new OutputLimits(10, 2, 4, 6);
        ExecutionResult r = run(
                limits,
                job(
                        "printf 0123456789abcdef; printf 0123456789ABCDEF >&2; "
                                + "printf 123456 > a; printf xy > b; printf z > c",
                        1,
                        List.of("a", "b", "c")));
        IterationResult it = r.results().getFirst();
        assertThat(it.stdout()).isEqualTo("0123456789" + BoundedCapture.MARKER.formatted(6));
        assertThat(it.stderr()).isEqualTo("0123456789" + BoundedCapture.MARKER.formatted(6));
        assertThat(it.output())
                .containsEntry("a", "1234" + BoundedCapture.MARKER.formatted(2))
                .containsEntry("b", "xy");
        assertThat(r.kind()).isEqualTo(ExecutionResult.Kind.ERROR);
        assertThat(r.detail()).contains("c: more than 2 files");
    }

    @Test
    void runsNoBaselineImageSoAPairedJobWithOneIsRefusedBeforePrepareAndACommandBaselineIsNot() {
        // Issue 45: the process executor runs no images, and the baseline's image is the point of the comparison.
        var digest = dev.baton.protocol.value.ImageDigest.of("sha256:" + "c".repeat(64));
        var executor = new ProcessExecutor(work, OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        assertThat(executor.runsBaselineImage()).isFalse();
        assertThat(BaselineImageRefusal.check(executor, paired(digest))).hasValueSatisfying(d -> {
            assertThat(d.code()).isEqualTo(dev.baton.protocol.message.DeclineCode.IMAGE_REFUSED);
            assertThat(d.getMessage())
                    .contains("the process executor runs no second image")
                    .contains(digest.value())
                    .contains("only runc and microvm runners");
        });
        assertThat(BaselineImageRefusal.check(executor, paired(null))).isEmpty();
    }

    private static ClaimedJob paired(dev.baton.protocol.value.ImageDigest baselineImage) {
        var config = new dev.baton.protocol.model.JobConfig(
                null,
                dev.baton.protocol.id.ProjectUuid.random(),
                dev.baton.protocol.value.ImageDigest.of("sha256:" + "e".repeat(64)),
                null,
                List.of("sh", "-c", "echo new"),
                java.util.Map.of(),
                dev.baton.protocol.value.JobTimeout.of(60),
                List.of(),
                null,
                new dev.baton.protocol.model.PairedConfig(
                        List.of("echo", "old"), 2, 1, null, null, null, "json", null, baselineImage));
        return Jobs.claimed(Jobs.spec(Architecture.ofHost().orElseThrow(), 1, 1 << 30, false), config);
    }

    @Test
    void theWorkloadIsPinnedToTheBenchmarkCpus() throws Exception {
        int cpus = Runtime.getRuntime().availableProcessors();
        org.junit.jupiter.api.Assumptions.assumeTrue(cpus > 1, "needs more than one CPU");
        String last = Integer.toString(cpus - 1);
        ExecutionResult r = run(
                OutputLimits.DEFAULT, Optional.of(last), job("grep Cpus_allowed_list /proc/self/status", 1, List.of()));
        assertThat(r.results().getFirst().stdout().strip()).matches("Cpus_allowed_list:\\s+" + last);
    }

    @Test
    void iterationsStopAtTheFirstFailure() throws Exception {
        ExecutionResult r =
                run(OutputLimits.DEFAULT, job("echo $BATON_ITERATION; [ $BATON_ITERATION -lt 2 ]", 5, List.of()));
        assertThat(r.results()).extracting(IterationResult::exitCode).containsExactly(0, 1);
        assertThat(r.results()).extracting(IterationResult::stdout).containsExactly("1\n", "2\n");
    }

    @Test
    void theAgentsEnvironmentDoesNotLeakIntoTheJob() throws Exception {
        ExecutionResult r = run(OutputLimits.DEFAULT, job("env | sort", 1, List.of()));
        String env = r.results().getFirst().stdout();
        assertThat(env).contains("PATH=").contains("BATON_ITERATION=1");
        assertThat(env)
                .doesNotContain("JAVA_HOME")
                .doesNotContain("BATON_RUNNER_KEY")
                .doesNotContain("MAVEN");
    }

    @Test
    void filesOutsideTheWorkDirAreRefused() throws Exception {
        Path secret = Files.writeString(work.resolve("secret"), "s");
        ExecutionResult r = run(
                OutputLimits.DEFAULT,
                job(
                        "ln -s " + secret + " link; mkfifo fifo; echo ok > ok",
                        1,
                        List.of("link", "/etc/hostname", "../secret", "fifo", "ok")));
        assertThat(r.kind()).isEqualTo(ExecutionResult.Kind.ERROR);
        assertThat(r.detail())
                .contains("link: escapes")
                .contains("/etc/hostname: escapes")
                .contains("../secret: escapes")
                .contains("fifo: not a regular file");
        assertThat(r.results().getFirst().output()).containsOnlyKeys("ok");
    }

    /**
     * Found by the chaos suite (docs/reliability.md): a job requeued from a frozen agent to another
     * agent on the same host ran in the same cgroup, named only by the job, so the frozen agent's
     * end-of-iteration cleanup, once it woke, killed the new attempt's process (exit 137). Two
     * agents on one host (two work directories, docs/runner.md) each run their attempt of one
     * job in a cgroup of its own. Without the right to create cgroups there is nothing shared to
     * test: skipped, saying so.
     */
    @Test
    void anotherAgentsAttemptOfTheSameJobSurvivesThisOnesCleanup() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                Cgroups.jobParent().isPresent(),
                "this process may not create cgroups: process groups alone never collide");
        ClaimedJob longer = job("sleep 3; echo survived", 1, List.of());
        ClaimedJob stale = new ClaimedJob(
                longer.uuid(),
                dev.baton.protocol.id.LeaseId.random(),
                2,
                longer.spec(),
                job("true", 1, List.of()).config(),
                longer.ociToken(),
                longer.timeout(),
                longer.created());
        CompletableFuture<Instant> started = new CompletableFuture<>();
        CompletableFuture<Void> prepared = new CompletableFuture<>();
        CompletableFuture<ExecutionResult> current = new CompletableFuture<>();
        var other = new ProcessExecutor(
                Files.createDirectories(work.resolve("other-agent")),
                OutputLimits.DEFAULT,
                Optional.empty(),
                Clock.systemUTC(),
                true);
        Execution running = other.prepare(longer, new ExecutionEvents() {
            @Override
            public void progress(String message) {}

            @Override
            public void prepared() {
                prepared.complete(null);
            }

            @Override
            public void declined(String reason) {
                current.completeExceptionally(new AssertionError(reason));
            }

            @Override
            public void started(Instant at) {
                started.complete(at);
            }

            @Override
            public void finished(ExecutionResult result) {
                current.complete(result);
            }
        });
        prepared.get(10, TimeUnit.SECONDS);
        running.start();
        started.get(10, TimeUnit.SECONDS);
        awaitProcessInCgroupOf(longer); // otherwise the cleanup below could not reach it, and the test could not fail

        ExecutionResult mine = run(OutputLimits.DEFAULT, stale); // ends, and kills what its iteration left

        assertThat(mine.kind()).isEqualTo(ExecutionResult.Kind.EXITED);
        ExecutionResult theirs = current.get(30, TimeUnit.SECONDS);
        assertThat(theirs.results().getFirst().exitCode())
                .as("the other agent's attempt was not killed")
                .isZero();
        assertThat(theirs.results().getFirst().stdout()).contains("survived");
    }

    /** Waits (up to 30 s on a busy machine) until a process of {@code job} is in one of its cgroups. */
    private static void awaitProcessInCgroupOf(ClaimedJob job) throws Exception {
        Path parent = Cgroups.jobParent().orElseThrow();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            try (var dirs = Files.list(parent)) {
                boolean populated = dirs.filter(
                                d -> d.getFileName().toString().startsWith("baton-job-" + job.uuid() + "-"))
                        .anyMatch(d -> {
                            try {
                                return !Files.readString(d.resolve("cgroup.procs"))
                                        .isBlank();
                            } catch (java.io.IOException e) {
                                return false;
                            }
                        });
                if (populated) return;
            }
            Thread.sleep(20);
        }
        throw new AssertionError("no process of job " + job.uuid() + " appeared in its cgroup within 30 s");
    }
}

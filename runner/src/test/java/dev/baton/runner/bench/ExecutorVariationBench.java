package dev.baton.runner.bench;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.channelclient.machine.ExecutionResult;
import dev.baton.core.microvm.MicroVmKernels;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.JobConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.JobTimeout;
import dev.baton.runner.executor.Execution;
import dev.baton.runner.executor.ExecutionEvents;
import dev.baton.runner.executor.Executor;
import dev.baton.runner.executor.MicroVmExecutor;
import dev.baton.runner.executor.MicroVmSetup;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.executor.QemuMicrovm;
import dev.baton.runner.executor.RuncExecutor;
import dev.baton.runner.machine.Jobs;
import dev.baton.runner.oci.LayoutBlobSource;
import dev.baton.runner.testing.TestImages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Not a test: the measurement behind docs/benchmarks.md's "run-to-run variation per executor"
 * (issue 16). Runs the same CPU-bound job (a busybox shell loop) {@code baton.bench.runs} times
 * as one-iteration jobs in the process, runc and microVM executors and prints, per executor,
 * the loop's own time as the workload measured it ({@code /proc/uptime}, 10 ms resolution: the
 * guest's own clock in the VM) with its coefficient of variation, and the wall time from the
 * executor's start to its result (boot, run, teardown), whose excess over the loop is the
 * executor's overhead per iteration. Skipped unless {@code -Dbaton.bench=true}:
 * {@code ./mvnw -o -q -pl runner -am test -Dtest=ExecutorVariationBench -Dbaton.bench=true
 * -Dsurefire.failIfNoSpecifiedTests=false}; the table goes to stdout and
 * {@code runner/target/executor-variation.txt}.
 */
@Tag("container")
@Tag("microvm")
class ExecutorVariationBench {
    private static final String LOOP =
            "read s _ < /proc/uptime; i=0; while [ $i -lt " + Integer.getInteger("baton.bench.turns", 100_000)
                    + " ]; do i=$((i+1)); done; read e _ < /proc/uptime; echo $s $e";

    @Test
    void measure() throws Exception {
        assumeTrue(Boolean.getBoolean("baton.bench"), "a measurement, not a test: run with -Dbaton.bench=true");
        int runs = Integer.getInteger("baton.bench.runs", 10);
        Path work = Files.createTempDirectory(
                Path.of("/tmp"),
                "bvb",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        TestImages.Image image = TestImages.busybox(work.resolve("layout"), List.of("true"), List.of());
        StringBuilder table = new StringBuilder(String.format(
                "%-8s %5s %10s %10s %8s %14s %14s%n",
                "executor", "runs", "loop mean", "loop sd", "loop CV", "wall median", "overhead med."));
        List<Executor> executors = new ArrayList<>();
        executors.add(new ProcessExecutor(
                work.resolve("p"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true));
        if (RuncExecutor.unavailableReason("runc").isEmpty()) {
            executors.add(new RuncExecutor(
                    new RuncExecutor.Options(
                            "runc",
                            work.resolve("r"),
                            Architecture.X86_64,
                            true,
                            100_000,
                            256,
                            Optional.empty(),
                            OutputLimits.DEFAULT,
                            job -> new LayoutBlobSource(image.layout())),
                    Clock.systemUTC()));
        }
        Optional<Path> kernel = MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"));
        if (kernel.isPresent()) {
            Path modules = MicroVmKernels.modulesFor(kernel.get(), Path.of("/lib/modules"));
            executors.add(new MicroVmExecutor(
                    new MicroVmExecutor.Options(
                            QemuMicrovm.onThisHost(MicroVmSetup.QEMU, "tcg"),
                            work.resolve("v"),
                            Architecture.X86_64,
                            kernel.get(),
                            modules,
                            TestImages.BUSYBOX,
                            OutputLimits.DEFAULT,
                            job -> new LayoutBlobSource(image.layout()),
                            Long.MAX_VALUE),
                    Clock.systemUTC()));
        }
        try {
            for (Executor executor : executors) {
                List<Double> loop = new ArrayList<>();
                List<Double> wall = new ArrayList<>();
                for (int i = 0; i < runs; i++) {
                    boolean command = executor instanceof ProcessExecutor;
                    ClaimedJob job = Jobs.claimed(
                            Jobs.spec(Architecture.X86_64, 1, 128L << 20, false),
                            new JobConfig(
                                    null,
                                    ProjectUuid.random(),
                                    command ? null : image.digest(),
                                    null,
                                    List.of("sh", "-c", LOOP),
                                    Map.of(),
                                    JobTimeout.of(600),
                                    List.of(),
                                    1));
                    double[] one = once(executor, job);
                    loop.add(one[0]);
                    wall.add(one[1]);
                }
                double mean = loop.stream().mapToDouble(d -> d).average().orElseThrow();
                double sd = Math.sqrt(
                        loop.stream().mapToDouble(d -> (d - mean) * (d - mean)).sum() / (loop.size() - 1));
                List<Double> overhead = new ArrayList<>();
                for (int i = 0; i < runs; i++) overhead.add(wall.get(i) - loop.get(i));
                table.append(String.format(
                        "%-8s %5d %9.3fs %9.3fs %7.1f%% %13.3fs %13.3fs%n",
                        executor.name(), runs, mean, sd, 100 * sd / mean, median(wall), median(overhead)));
                System.out.println(executor.name() + " loop seconds: " + loop + " wall seconds: " + wall);
            }
        } finally {
            new ProcessBuilder("rm", "-rf", work.toString()).start().waitFor();
        }
        String load = Files.readString(Path.of("/proc/loadavg")).strip();
        String out = "measured " + Instant.now() + ", load average " + load + "\n" + table;
        System.out.println(out);
        Files.writeString(Path.of("target/executor-variation.txt"), out);
    }

    private static double median(List<Double> values) {
        List<Double> s = values.stream().sorted().toList();
        return s.size() % 2 == 1 ? s.get(s.size() / 2) : (s.get(s.size() / 2 - 1) + s.get(s.size() / 2)) / 2;
    }

    /** {loop seconds as the workload measured them, wall seconds from start to result}. */
    private static double[] once(Executor executor, ClaimedJob job) throws Exception {
        CompletableFuture<ExecutionResult> finished = new CompletableFuture<>();
        long[] startedAt = new long[1];
        Execution[] execution = new Execution[1];
        ExecutionEvents events = new ExecutionEvents() {
            @Override
            public void progress(String message) {}

            @Override
            public void prepared() {
                while (execution[0] == null) Thread.onSpinWait();
                startedAt[0] = System.nanoTime();
                execution[0].start();
            }

            @Override
            public void declined(String reason) {
                finished.completeExceptionally(new IllegalStateException(reason));
            }

            @Override
            public void declined(DeclineCode code, String reason) {
                declined(code.wireName() + ": " + reason);
            }

            @Override
            public void started(Instant at) {}

            @Override
            public void finished(ExecutionResult result) {
                finished.complete(result);
            }
        };
        execution[0] = executor.prepare(job, events);
        ExecutionResult result = finished.get(600, TimeUnit.SECONDS);
        double wall = (System.nanoTime() - startedAt[0]) / 1e9;
        String[] times = result.results().getFirst().stdout().strip().split(" ");
        if (result.kind() != ExecutionResult.Kind.EXITED || times.length != 2)
            throw new IllegalStateException(executor.name() + ": " + result);
        return new double[] {Double.parseDouble(times[1]) - Double.parseDouble(times[0]), wall};
    }
}

package dev.baton.runner.executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.machine.Jobs;
import dev.baton.runner.oci.ImagePuller;
import dev.baton.runner.oci.LayerUnpacker;
import dev.baton.runner.oci.LayoutBlobSource;
import dev.baton.runner.testing.TestImages;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;

/**
 * Container start overhead over a bare process (brief §5: ≤ 50 ms): runs {@code true} N times as
 * a bare child process and N times as a runc container with exactly the runtime config the
 * executor generates (user namespace, read-only root, limits), including {@code runc delete},
 * and prints median and p90 of each and the median difference. Not a unit test; run as root:
 *
 * <pre>
 * ./mvnw -q -pl runner -am test-compile
 * java -cp "runner/target/test-classes:runner/target/classes:$(cat cp.txt)" dev.baton.runner.executor.ContainerStartBenchmark 50
 * </pre>
 * (cp.txt from {@code ./mvnw -q -pl runner dependency:build-classpath -Dmdep.outputFile=cp.txt}).
 */
public final class ContainerStartBenchmark {
    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 50;
        Path work = Files.createTempDirectory(
                Path.of("/tmp"),
                "baton-bench",
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        try {
            var image = TestImages.busybox(work.resolve("layout"), List.of("true"), List.of());
            var pulled = new ImagePuller(work.resolve("blobs"), Architecture.X86_64)
                    .pull(new LayoutBlobSource(image.layout()), image.digest(), m -> {});
            Path bundle = Files.createDirectories(work.resolve("bundle"));
            Path rootfs = Files.createDirectories(bundle.resolve("rootfs"));
            var unpacker = new LayerUnpacker(rootfs, new LayerUnpacker.IdShift(100_000, true, true));
            for (var layer : pulled.layers()) unpacker.apply(layer.blob(), layer.mediaType());
            Files.setAttribute(rootfs, "unix:uid", 100_000);
            Files.setAttribute(rootfs, "unix:gid", 100_000);
            Path workDir = Files.createDirectories(bundle.resolve("work"));
            Files.setAttribute(workDir, "unix:uid", 100_000);
            var config = RuncSpec.build(
                    Jobs.spec(Architecture.X86_64, 1, 256L << 20, false),
                    new RuncSpec.Process(List.of("/bin/true"), List.of("PATH=/bin"), "/work", 0, 0),
                    workDir,
                    Optional.empty(),
                    256,
                    Optional.of(new RuncSpec.UserNamespace(100_000, 65536)));
            Files.writeString(bundle.resolve("config.json"), new ObjectMapper().writeValueAsString(config));

            List<Double> bare = new ArrayList<>();
            List<Double> runc = new ArrayList<>();
            for (int i = 0; i < n + 5; i++) {
                long t0 = System.nanoTime();
                run(List.of("/bin/true"));
                long t1 = System.nanoTime();
                String id = "baton-bench-" + i;
                run(List.of("runc", "run", "--keep", "--bundle", bundle.toString(), id));
                run(List.of("runc", "delete", "--force", id));
                long t2 = System.nanoTime();
                if (i >= 5) { // warm-up
                    bare.add((t1 - t0) / 1e6);
                    runc.add((t2 - t1) / 1e6);
                }
            }
            double bareMedian = percentile(bare, 50);
            double runcMedian = percentile(runc, 50);
            System.out.printf("bare process: median %.1f ms, p90 %.1f ms%n", bareMedian, percentile(bare, 90));
            System.out.printf(
                    "runc container (run --keep + delete): median %.1f ms, p90 %.1f ms%n",
                    runcMedian, percentile(runc, 90));
            System.out.printf("container start overhead: median %.1f ms (n=%d)%n", runcMedian - bareMedian, n);
        } finally {
            Trees.deleteTree(work);
        }
    }

    private static void run(List<String> command) throws Exception {
        Process p = new ProcessBuilder(command)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        if (p.waitFor() != 0) throw new IllegalStateException(command + " exited " + p.exitValue());
    }

    private static double percentile(List<Double> xs, int p) {
        List<Double> sorted = new ArrayList<>(xs);
        Collections.sort(sorted);
        return sorted.get(Math.min(sorted.size() - 1, sorted.size() * p / 100));
    }
}

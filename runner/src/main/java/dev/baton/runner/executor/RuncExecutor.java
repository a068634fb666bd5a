package dev.baton.runner.executor;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.protocol.value.Architecture;
import dev.baton.runner.oci.BlobSource;
import dev.baton.runner.oci.ImageConfig;
import dev.baton.runner.oci.ImagePuller;
import dev.baton.runner.oci.LayerUnpacker;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each job in runc containers: pulls the image by digest (every digest verified), unpacks
 * it into a per-job rootfs, and runs one container per iteration with the limits of
 * {@link RuncSpec}. Containers are named {@code baton-<job>-<iteration>} and always removed
 * ({@code runc kill}, {@code runc delete}); {@link #sweep()} removes what a crashed agent left.
 * An out-of-memory kill is read from the container's memory cgroup (cgroup v1
 * {@code memory.oom_control}, v2 {@code memory.events}) before the container is deleted.
 * A paired job whose baseline has an image of its own (issue 45) gets a second rootfs in the
 * same bundle, {@link #BASELINE_ROOTFS}; its baseline iterations' {@code config.json} names it.
 */
public final class RuncExecutor implements Executor {
    /** Images whose layers this executor's blob cache holds (image affinity, docs/scheduling.md). */
    private final dev.baton.runner.oci.RecentImages held =
            new dev.baton.runner.oci.RecentImages(dev.baton.protocol.message.HeldImages.MAX);

    @Override
    public java.util.Optional<dev.baton.runner.oci.RecentImages> heldImages() {
        return java.util.Optional.of(held);
    }

    private static final Logger log = LoggerFactory.getLogger(RuncExecutor.class);
    static final String PREFIX = "baton-";
    /** The bundle's second rootfs, a paired job's baseline image (issue 45), beside {@code rootfs}. */
    static final String BASELINE_ROOTFS = "baseline-rootfs";

    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * @param runc the runc binary
     * @param workDir bundles and the blob cache live here
     * @param userNamespace map container root to {@code idOffset}.. on the host (when the kernel allows it)
     * @param benchmarkCpus cpuset for the workload (the agent keeps the others)
     * @param sources how to reach a job's image (its registry with its pull token, or a local layout)
     * @param maxUnpackBytes runner-wide cap on a job's unpacked image, beside the spec's disk size
     */
    public record Options(
            String runc,
            Path workDir,
            Architecture arch,
            boolean userNamespace,
            long idOffset,
            int pidsLimit,
            Optional<String> benchmarkCpus,
            OutputLimits limits,
            Function<ClaimedJob, BlobSource> sources,
            long maxUnpackBytes) {
        /** No runner-wide cap on unpacked images: only the spec's disk size and free space limit them. */
        public static final long NO_UNPACK_CAP = Long.MAX_VALUE;

        public Options {
            if (maxUnpackBytes <= 0) throw new IllegalArgumentException("maxUnpackBytes must be positive");
        }

        public Options(
                String runc,
                Path workDir,
                Architecture arch,
                boolean userNamespace,
                long idOffset,
                int pidsLimit,
                Optional<String> benchmarkCpus,
                OutputLimits limits,
                Function<ClaimedJob, BlobSource> sources) {
            this(
                    runc,
                    workDir,
                    arch,
                    userNamespace,
                    idOffset,
                    pidsLimit,
                    benchmarkCpus,
                    limits,
                    sources,
                    NO_UNPACK_CAP);
        }
    }

    private final Options options;
    private final Clock clock;
    private final boolean userns;

    public RuncExecutor(Options options, Clock clock) {
        this.options = options;
        this.clock = clock;
        this.userns = options.userNamespace() && userNamespacesUsable(options.workDir());
    }

    /**
     * runc's state directory for this executor's containers, in its work directory rather than
     * runc's machine-wide default ({@code /run/runc}): the start-up sweep then sees only the
     * containers of this work directory — whose agent holds its lock — never another agent's.
     */
    public Path stateDirectory() {
        return options.workDir().resolve("runc");
    }

    /** A runc command line on this executor's state directory. */
    private List<String> runc(String... args) {
        try {
            // Made here, not by runc: runc would create missing parents 0700, and a user-namespaced
            // root could then no longer reach the bundles beside it.
            Files.createDirectories(options.workDir());
            Files.createDirectories(stateDirectory());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot create runc's state directory " + stateDirectory(), e);
        }
        List<String> command = new ArrayList<>(
                List.of(options.runc(), "--root", stateDirectory().toString()));
        command.addAll(List.of(args));
        return command;
    }

    /** True when runc can run here: the binary answers and we are root (rootless runc is not supported yet). */
    public static Optional<String> unavailableReason(String runc) {
        try {
            Process p = new ProcessBuilder(runc, "--version")
                    .redirectErrorStream(true)
                    .start();
            p.getInputStream().readAllBytes();
            if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) return Optional.of(runc + " --version failed");
        } catch (IOException e) {
            return Optional.of("runc not found (" + e.getMessage() + ")");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.of("interrupted");
        }
        if (!"root".equals(System.getProperty("user.name"))) return Optional.of("the runc executor needs root");
        return Optional.empty();
    }

    @Override
    public String name() {
        return "runc";
    }

    /** A second rootfs in the same bundle, {@link #BASELINE_ROOTFS}, named by the baseline iterations' config.json. */
    @Override
    public boolean runsBaselineImage() {
        return true;
    }

    /** {@code runc --version}'s first line, asked once (the binary does not change under a running agent). */
    @Override
    public String version() {
        String v = runcVersion;
        if (v == null)
            runcVersion = v = java.util.Objects.requireNonNullElse(
                    ToolVersion.of(List.of(options.runc(), "--version")), "unknown");
        return v;
    }

    private volatile String runcVersion;

    @Override
    public Optional<String> workloadCpus() {
        return options.benchmarkCpus();
    }

    public boolean usesUserNamespace() {
        return userns;
    }

    @Override
    public Execution prepare(ClaimedJob job, ExecutionEvents events) {
        var e = new ContainerExecution(job, events);
        e.begin();
        return e;
    }

    /**
     * Containers are recorded by runc itself, in this executor's {@link #stateDirectory()}, named
     * {@code baton-<job>-<iteration>}: every such container is killed and deleted, and reported
     * against its job.
     */
    @Override
    public List<Leftover> sweep() {
        List<Leftover> found = new ArrayList<>();
        try {
            String list = run(runc("list", "-q"));
            for (String id : list.split("\n")) {
                if (!id.startsWith(PREFIX)) continue;
                log.warn("removing leftover container {}", id);
                try {
                    run(runc("delete", "--force", id));
                } catch (IOException e) {
                    log.error("cannot remove leftover container {}: {}", id, e.getMessage());
                }
                Leftover.jobOf(id, PREFIX).ifPresent(job -> found.add(new Leftover(job, "container " + id)));
            }
        } catch (IOException e) {
            log.warn("cannot list leftover containers: {}", e.getMessage());
        }
        Trees.deleteTree(options.workDir().resolve("bundles"));
        return found;
    }

    private String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + " timed out");
            }
            if (p.exitValue() != 0) throw new IOException(String.join(" ", command) + " failed: " + out.strip());
            return out;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** runc init, as the mapped root, must be able to reach the bundle: every ancestor needs o+x. */
    private static boolean userNamespacesUsable(Path workDir) {
        try {
            if (Long.parseLong(Files.readString(Path.of("/proc/sys/user/max_user_namespaces"))
                            .strip())
                    <= 0) return false;
            for (Path p = workDir.toAbsolutePath(); p != null; p = p.getParent()) {
                if (Files.exists(p) && !Files.getPosixFilePermissions(p).contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    log.warn(
                            "user namespaces disabled: {} is not searchable by others (chmod o+x) so a mapped root cannot reach the bundle",
                            p);
                    return false;
                }
            }
            return true;
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private final class ContainerExecution extends IterativeExecution {
        private final Path bundle;
        private final Path rootfs;
        /** A paired job's baseline image's rootfs (issue 45), beside the job's; unused otherwise. */
        private final Path baselineRootfs;

        private RuncSpec.Process process;
        /** A paired job's baseline side (issue 45), in its own image or the job's; null when not paired. */
        private RuncSpec.Process baseline;

        private final boolean[] deleted;

        ContainerExecution(ClaimedJob job, ExecutionEvents events) {
            super(job, events, RuncExecutor.this.options.limits(), RuncExecutor.this.clock);
            this.bundle =
                    options.workDir().resolve("bundles").resolve(job.uuid().toString());
            this.rootfs = bundle.resolve("rootfs");
            this.baselineRootfs = bundle.resolve(BASELINE_ROOTFS);
            this.deleted = new boolean[job.config().iterationsOrDefault() + 1];
        }

        private String id(int iteration) {
            return PREFIX + job.uuid() + "-" + iteration;
        }

        @Override
        protected void prepare() throws DeclinedException, IOException {
            if (job.config().digest() == null) {
                throw new DeclinedException(
                        DeclineCode.IMAGE_REQUIRED, "the runc executor runs images; this job has no image digest");
            }
            if (job.spec() == null) throw new DeclinedException("the job has no spec, so no limits to run it with");
            ImagePuller puller = new ImagePuller(options.workDir().resolve("blobs"), options.arch());
            BlobSource source = options.sources().apply(job);
            Trees.deleteTree(bundle);
            privateDirectory(bundle.getParent());
            privateDirectory(bundle);
            LayerUnpacker.IdShift ids = userns
                    ? new LayerUnpacker.IdShift(options.idOffset(), true, true)
                    : new LayerUnpacker.IdShift(0, true, false);
            ImageRootfs.Unpacked image = ImageRootfs.make(
                    puller,
                    source,
                    job.config().digest(),
                    rootfs,
                    ids,
                    unpackLimit(),
                    events::progress,
                    this::checkStopped);
            if (userns) chown(rootfs, options.idOffset(), options.idOffset());
            process = resolveProcess(image.config(), ContainerCommand.of(job.config(), image.config()), rootfs);
            held.used(job.config().digest()); // every layer is verified in the blob cache now
            PairedConfig paired = job.config().paired();
            if (paired != null && paired.baselineImage() != null) {
                // Issue 45: the baseline's own image, through the same cache, in the same disk allowance.
                ImageRootfs.Unpacked other = ImageRootfs.make(
                        puller,
                        source,
                        paired.baselineImage(),
                        baselineRootfs,
                        ids,
                        Math.max(1, unpackLimit() - image.bytes()),
                        message -> events.progress("baseline image: " + message),
                        this::checkStopped);
                if (userns) chown(baselineRootfs, options.idOffset(), options.idOffset());
                baseline = resolveProcess(
                        other.config(), ContainerCommand.baseline(job.config(), other.config()), baselineRootfs);
                held.used(paired.baselineImage());
            } else if (paired != null) {
                baseline =
                        resolveProcess(image.config(), ContainerCommand.baseline(job.config(), image.config()), rootfs);
            }
        }

        /**
         * The spec's disk size or the runner's cap, whichever is smaller. Free space is not part
         * of it: running out of it is "disk full" (another runner may have room), while an image
         * larger than its spec allows is a property of the job.
         */
        private long unpackLimit() {
            long disk = job.spec().disk();
            return disk > 0 ? Math.min(disk, options.maxUnpackBytes()) : options.maxUnpackBytes();
        }

        /**
         * Bundle directories are reachable only by the runner's user (0700). With a user
         * namespace the container's root is a host uid of its own that must still pass through
         * them to reach the rootfs, so there they belong to that uid (the agent is root anyway).
         */
        private void privateDirectory(Path dir) throws IOException {
            Files.createDirectories(dir);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            if (userns) chown(dir, options.idOffset(), options.idOffset());
        }

        /** Docker semantics: the job's entrypoint replaces the image's (and drops its cmd); the job's cmd replaces the image's. */
        private RuncSpec.Process resolveProcess(ImageConfig image, ContainerCommand command, Path root)
                throws DeclinedException {
            List<String> args = command.argv();
            Map<String, String> env = command.env();
            List<String> envList = new ArrayList<>();
            env.forEach((k, v) -> envList.add(k + "=" + v));
            String cwd =
                    image.workingDir() == null || image.workingDir().equals("/") ? RuncSpec.WORK : image.workingDir();
            ImageUser user = ImageUser.resolve(image.user(), root);
            return new RuncSpec.Process(args, envList, cwd, user.uid(), user.gid());
        }

        private Path workDir(int iteration) {
            return bundle.resolve("work-" + iteration);
        }

        @Override
        protected Process launch(int iteration) throws IOException {
            Path work = Files.createDirectories(workDir(iteration));
            long shift = userns ? options.idOffset() : 0;
            RuncSpec.Process chosen = withIteration(process, iteration);
            chown(work, shift + chosen.uid(), shift + chosen.gid());
            var config = RuncSpec.build(
                    job.spec(),
                    chosen,
                    work,
                    options.benchmarkCpus(),
                    options.pidsLimit(),
                    userns ? Optional.of(new RuncSpec.UserNamespace(options.idOffset(), 65536)) : Optional.empty());
            if (inBaselineImage(iteration)) ((ObjectNode) config.get("root")).put("path", BASELINE_ROOTFS);
            Files.writeString(bundle.resolve("config.json"), JSON.writeValueAsString(config));
            Process p = new ProcessBuilder(runc("run", "--keep", "--bundle", bundle.toString(), id(iteration)))
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
            return p;
        }

        /** Whether iteration {@code iteration} (from 1) is a baseline side that runs in the baseline's own image. */
        private boolean inBaselineImage(int iteration) {
            PairedConfig paired = job.config().paired();
            return paired != null
                    && paired.baselineImage() != null
                    && paired.side(iteration - 1) == PairedConfig.Side.BASELINE;
        }

        /** The iteration's side of a paired job picks the command; each side knows which it is. */
        private RuncSpec.Process withIteration(RuncSpec.Process p, int iteration) {
            PairedConfig paired = job.config().paired();
            PairedConfig.Side side = paired == null ? null : paired.side(iteration - 1);
            RuncSpec.Process chosen = side == PairedConfig.Side.BASELINE ? baseline : p;
            List<String> env = new ArrayList<>(chosen.env());
            env.add("BATON_ITERATION=" + iteration);
            if (side != null) {
                env.add("BATON_PAIR=" + (iteration - 1) / 2);
                env.add("BATON_SIDE=" + side.wireName());
            }
            return new RuncSpec.Process(chosen.args(), env, chosen.cwd(), chosen.uid(), chosen.gid());
        }

        @Override
        protected void signal(Process process, int iteration, boolean kill) {
            try {
                run(runc("kill", "--all", id(iteration), kill ? "KILL" : "TERM"));
            } catch (IOException e) {
                log.debug("runc kill {}: {}", id(iteration), e.getMessage());
                if (kill) process.destroyForcibly();
            }
        }

        @Override
        protected String outOfMemory(int iteration) {
            return Cgroups.memoryDir(id(iteration))
                    .filter(dir -> Cgroups.oomKills(dir) > 0)
                    .map(dir -> "memory limit " + job.spec().memory() + " bytes")
                    .orElse(null);
        }

        @Override
        protected FileCollector.Collected collect(int iteration) {
            Path work = workDir(iteration);
            boolean other = inBaselineImage(iteration);
            Path root = other ? baselineRootfs : rootfs;
            String cwd = other ? baseline.cwd() : process.cwd();
            return new FileCollector(limits).collect(job.config().filePaths(), name -> {
                String path = name.startsWith("/") ? name : (cwd.endsWith("/") ? cwd + name : cwd + "/" + name);
                if (path.equals(RuncSpec.WORK) || path.startsWith(RuncSpec.WORK + "/")) {
                    return Optional.of(new FileCollector.Location(
                            work,
                            work.resolve(path.substring(RuncSpec.WORK.length()).replaceFirst("^/", ""))));
                }
                if (path.equals("/tmp") || path.startsWith("/tmp/"))
                    return Optional.empty(); // a tmpfs, gone with the container
                return Optional.of(new FileCollector.Location(root, root.resolve(path.substring(1))));
            });
        }

        @Override
        protected void afterIteration(int iteration) {
            if (deleted[iteration]) return;
            deleted[iteration] = true;
            try {
                run(runc("delete", "--force", id(iteration)));
            } catch (IOException e) {
                if (!e.getMessage().contains("does not exist"))
                    log.warn("runc delete {}: {}", id(iteration), e.getMessage());
            }
        }

        @Override
        protected void cleanup() {
            for (int i = 1; i < deleted.length; i++) afterIteration(i);
            try {
                Trees.deleteTree(bundle);
            } catch (RuntimeException e) {
                log.warn("cannot remove bundle {}", bundle, e);
            }
        }
    }

    private static void chown(Path p, long uid, long gid) throws IOException {
        Files.setAttribute(p, "unix:uid", (int) uid, LinkOption.NOFOLLOW_LINKS);
        Files.setAttribute(p, "unix:gid", (int) gid, LinkOption.NOFOLLOW_LINKS);
    }
}

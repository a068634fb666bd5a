package dev.baton.runner.executor;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.model.PairedConfig;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.runner.oci.ImageConfig;
import dev.baton.runner.oci.ImagePuller;
import dev.baton.runner.oci.LayerUnpacker;
import dev.baton.runner.oci.RecentImages;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The disks a microVM job boots ({@link MicroVmExecutor}): an image pulled and unpacked as runc
 * does, with a static busybox and the job's script ({@link GuestJob}) under {@code /.baton},
 * made into an ext4 image of the spec's disk size ({@code mkfs.ext4 -d}). One disk per job, and
 * a second one from a paired job's baseline image (issue 45), each with its image's own user,
 * environment and working directory.
 */
final class GuestDisks {
    private static final String WORK = "/work";

    /** The user switch, built once per executor on first use. */
    interface UserSwitch {
        GuestUserSwitch get() throws IOException;
    }

    private final MicroVmExecutor.Options options;
    private final RecentImages held;
    private final UserSwitch userSwitch;
    private final ClaimedJob job;
    private final ExecutionEvents events;
    private final Path rootfs;
    private final Runnable checkStopped;

    /** @param rootfs where each image is unpacked before its disk is made (emptied after) */
    GuestDisks(
            MicroVmExecutor.Options options,
            RecentImages held,
            UserSwitch userSwitch,
            ClaimedJob job,
            ExecutionEvents events,
            Path rootfs,
            Runnable checkStopped) {
        this.options = options;
        this.held = held;
        this.userSwitch = userSwitch;
        this.job = job;
        this.events = events;
        this.rootfs = rootfs;
        this.checkStopped = checkStopped;
    }

    /**
     * Pulls and unpacks {@code digest} into the rootfs as runc does (its decline codes; the
     * image's own uids, set-id bits dropped), adds Baton's guest files and the job's script,
     * and makes {@code target} of it.
     */
    void build(ImageDigest digest, Path target, long diskBytes, String what, Sides sides)
            throws DeclinedException, IOException {
        ImageRootfs.Unpacked image = ImageRootfs.make(
                new ImagePuller(options.workDir().resolve("blobs"), options.arch()),
                options.sources().apply(job),
                digest,
                rootfs,
                new LayerUnpacker.IdShift(0, true, false),
                Math.min(diskBytes, options.maxUnpackBytes()),
                message -> events.progress(what + message),
                checkStopped);
        held.used(digest); // every layer is verified in the blob cache now
        ImageUser user = ImageUser.resolve(image.config().user(), rootfs);
        GuestJob guestJob = resolve(image.config(), user, sides);
        Path baton = rootfs.resolve(".baton");
        Trees.deleteTree(baton);
        Files.createDirectories(baton);
        Files.copy(options.busybox(), baton.resolve("busybox"), StandardCopyOption.REPLACE_EXISTING);
        baton.resolve("busybox").toFile().setExecutable(true, false);
        if (!user.isRoot()) userSwitch.get().install(baton);
        Files.writeString(
                baton.resolve("job.sh"), guestJob.script(options.limits().fileBytes()), StandardCharsets.UTF_8);
        events.progress(what + "building the VM disk");
        makeDisk(target, diskBytes);
        Trees.deleteTree(rootfs); // everything is in the disk image now
    }

    /** Which sides of a paired job a disk's script runs (issue 45); {@code BOTH} for a job that is not paired. */
    enum Sides {
        BOTH,
        CANDIDATE,
        BASELINE
    }

    private GuestJob resolve(ImageConfig image, ImageUser user, Sides sides) throws DeclinedException, IOException {
        var config = job.config();
        ContainerCommand command =
                sides == Sides.BASELINE ? ContainerCommand.baseline(config, image) : ContainerCommand.of(config, image);
        List<String> args = command.argv();
        Map<String, String> env = new LinkedHashMap<>(command.env());
        env.putIfAbsent("HOME", "/root");
        boolean ownDir = image.workingDir() == null
                || image.workingDir().isEmpty()
                || image.workingDir().equals("/");
        String cwd = ownDir ? WORK : image.workingDir();
        List<String> files = config.filePaths() == null ? List.of() : config.filePaths();
        // The script picks the side by the iteration; a disk of one side runs that side's command
        // whichever branch it takes, with that side's BATON_SIDE.
        List<String> baselineArgv = null;
        List<Integer> baselineIterations = new ArrayList<>();
        if (config.paired() != null) {
            baselineArgv = sides == Sides.BOTH
                    ? ContainerCommand.baseline(config, image).argv()
                    : args;
            for (int i = 0; sides != Sides.CANDIDATE && i < config.iterationsOrDefault(); i++)
                if (config.paired().side(i) == PairedConfig.Side.BASELINE) baselineIterations.add(i + 1);
        }
        return new GuestJob(
                args,
                env,
                cwd,
                files,
                user.isRoot() ? List.of() : userSwitch.get().command(user),
                user.isRoot() || !ownDir ? null : user.uid() + ":" + user.gid(),
                baselineArgv,
                baselineIterations);
    }

    private void makeDisk(Path disk, long bytes) throws IOException, DeclinedException {
        try (RandomAccessFile f = new RandomAccessFile(disk.toFile(), "rw")) {
            f.setLength(bytes);
        }
        Process p = new ProcessBuilder(
                        "mkfs.ext4", "-q", "-F", "-E", "root_owner=0:0", "-d", rootfs.toString(), disk.toString())
                .redirectErrorStream(true)
                .start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                if (out.contains("No space") || out.contains("Could not allocate")) {
                    throw new DeclinedException(
                            DeclineCode.UNPACK_FAILED, "the image does not fit the spec's disk of " + bytes + " bytes");
                }
                throw new IOException("mkfs.ext4 failed: " + out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}

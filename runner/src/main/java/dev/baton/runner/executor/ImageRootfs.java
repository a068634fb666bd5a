package dev.baton.runner.executor;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.runner.oci.BlobSource;
import dev.baton.runner.oci.DiskFullException;
import dev.baton.runner.oci.ImageConfig;
import dev.baton.runner.oci.ImagePuller;
import dev.baton.runner.oci.LayerException;
import dev.baton.runner.oci.LayerUnpacker;
import dev.baton.runner.oci.PullDeniedException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * One image made into a rootfs for the runc and microVM executors: pulled by digest through the
 * runner's blob cache (every blob verified; what is cached is not fetched again), then unpacked
 * layer by layer under a byte limit. A paired job with a baseline image (issue 45, runc) makes
 * two, the job's and the baseline's, through this same path. Every failure is a decline with its
 * code: {@code pull_failed} (denied, unreachable, disk full while pulling), {@code image_refused}
 * (a manifest or blob that is not a valid image for this runner), {@code unpack_failed} (a layer
 * that cannot be unpacked, larger than the limit, disk full while unpacking).
 */
final class ImageRootfs {
    /** The image's config and the bytes its layers took on disk. */
    record Unpacked(ImageConfig config, long bytes) {}

    private ImageRootfs() {}

    /**
     * @param progress where pull and unpack progress goes (the job's events)
     * @param checkStopped called between layers, throws when the job was stopped meanwhile
     */
    static Unpacked make(
            ImagePuller puller,
            BlobSource source,
            ImageDigest digest,
            Path rootfs,
            LayerUnpacker.IdShift ids,
            long maxBytes,
            Consumer<String> progress,
            Runnable checkStopped)
            throws DeclinedException, IOException {
        ImagePuller.PulledImage image;
        try {
            image = puller.pull(source, digest, progress);
        } catch (PullDeniedException e) {
            throw new DeclinedException(DeclineCode.PULL_FAILED, e.getMessage());
        } catch (LayerException e) {
            throw new DeclinedException(DeclineCode.IMAGE_REFUSED, "image refused: " + e.getMessage());
        } catch (IOException e) {
            if (DiskFullException.isDiskFull(e))
                throw new DeclinedException(DeclineCode.PULL_FAILED, "disk full: " + e.getMessage());
            throw new DeclinedException(DeclineCode.PULL_FAILED, "image pull failed: " + e.getMessage(), e);
        }
        checkStopped.run();
        try {
            Files.createDirectories(rootfs);
            LayerUnpacker unpacker = new LayerUnpacker(rootfs, ids, maxBytes);
            int i = 0;
            for (ImagePuller.Layer layer : image.layers()) {
                progress.accept(
                        "unpacking layer " + (++i) + "/" + image.layers().size());
                unpacker.apply(layer.blob(), layer.mediaType());
                checkStopped.run();
            }
            return new Unpacked(image.config(), unpacker.unpackedBytes());
        } catch (LayerException e) {
            throw new DeclinedException(DeclineCode.UNPACK_FAILED, "image refused: " + e.getMessage());
        } catch (IOException e) {
            if (DiskFullException.isDiskFull(e))
                throw new DeclinedException(DeclineCode.UNPACK_FAILED, "disk full: " + e.getMessage());
            throw e;
        }
    }
}

package dev.baton.runner.oci;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.runner.testing.TarWriter;
import java.io.ByteArrayInputStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LayerUnpackerTest {
    @TempDir
    Path tmp;

    private Path rootfs() throws Exception {
        return Files.createDirectories(tmp.resolve("rootfs"));
    }

    private void apply(LayerUnpacker u, TarWriter layer) throws Exception {
        u.apply(new ByteArrayInputStream(layer.tar()));
    }

    @Test
    void layersApplyInOrderWithWhiteouts() throws Exception {
        Path root = rootfs();
        LayerUnpacker u = new LayerUnpacker(root, LayerUnpacker.IdShift.NONE);
        apply(
                u,
                new TarWriter()
                        .dir("etc", 0755)
                        .file("etc/a", "a1")
                        .file("etc/b", "b1")
                        .dir("opt", 0755)
                        .file("opt/old", "old")
                        .dir("opt/sub", 0755)
                        .file("opt/sub/x", "x"));
        apply(
                u,
                new TarWriter()
                        .file("etc/.wh.a", "")
                        .file("etc/b", "b2")
                        .dir("opt", 0755)
                        .file("opt/.wh..wh..opq", "")
                        .file("opt/new", "new"));
        assertThat(root.resolve("etc/a")).doesNotExist();
        assertThat(root.resolve("etc/b")).hasContent("b2");
        assertThat(root.resolve("opt/old")).doesNotExist();
        assertThat(root.resolve("opt/sub")).doesNotExist();
        // the opaque marker clears the lower layers only, not what this layer adds
        assertThat(root.resolve("opt/new")).hasContent("new");
        assertThat(root.resolve("opt/.wh..wh..opq")).doesNotExist();
    }

    @Test
    void modesAndLinksAreKept() throws Exception {
        Path root = rootfs();
        LayerUnpacker u = new LayerUnpacker(root, LayerUnpacker.IdShift.NONE);
        apply(
                u,
                new TarWriter()
                        .dir("bin", 0755)
                        .file("bin/tool", 0750, "#!".getBytes())
                        .symlink("bin/abs", "/etc/passwd")
                        .hardlink("bin/same", "bin/tool"));
        assertThat(Files.getAttribute(root.resolve("bin/tool"), "unix:mode")).isEqualTo(0100750);
        // absolute symlinks are stored verbatim: they resolve inside the container, never on the host
        assertThat(Files.readSymbolicLink(root.resolve("bin/abs"))).isEqualTo(Path.of("/etc/passwd"));
        assertThat(Files.isSameFile(root.resolve("bin/same"), root.resolve("bin/tool")))
                .isTrue();
    }

    @Test
    void parentTraversalIsRefused() throws Exception {
        LayerUnpacker u = new LayerUnpacker(rootfs(), LayerUnpacker.IdShift.NONE);
        assertThatThrownBy(() -> apply(u, new TarWriter().file("../evil", "x")))
                .isInstanceOf(LayerException.class)
                .hasMessageContaining("escapes");
        assertThatThrownBy(() -> apply(u, new TarWriter().file("a/../../evil", "x")))
                .isInstanceOf(LayerException.class);
        assertThat(tmp.resolve("evil")).doesNotExist();
    }

    @Test
    void writingThroughASymlinkIsRefused() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        LayerUnpacker u = new LayerUnpacker(rootfs(), LayerUnpacker.IdShift.NONE);
        apply(u, new TarWriter().symlink("link", outside.toString()).symlink("rel", "../outside"));
        assertThatThrownBy(() -> apply(u, new TarWriter().file("link/pwned", "x")))
                .isInstanceOf(LayerException.class)
                .hasMessageContaining("symbolic link");
        assertThatThrownBy(() -> apply(u, new TarWriter().file("rel/pwned", "x")))
                .isInstanceOf(LayerException.class);
        assertThat(outside).isEmptyDirectory();
    }

    @Test
    void aFileReplacesASymlinkInsteadOfWritingThroughIt() throws Exception {
        Path target = Files.writeString(tmp.resolve("host-file"), "host");
        Path root = rootfs();
        LayerUnpacker u = new LayerUnpacker(root, LayerUnpacker.IdShift.NONE);
        apply(u, new TarWriter().symlink("f", target.toString()));
        apply(u, new TarWriter().file("f", "image"));
        assertThat(target).hasContent("host");
        assertThat(Files.isSymbolicLink(root.resolve("f"))).isFalse();
        assertThat(root.resolve("f")).hasContent("image");
    }

    @Test
    void hardLinksOutsideTheRootfsAreRefused() throws Exception {
        LayerUnpacker u = new LayerUnpacker(rootfs(), LayerUnpacker.IdShift.NONE);
        assertThatThrownBy(() -> apply(u, new TarWriter().hardlink("passwd", "../../../../etc/passwd")))
                .isInstanceOf(LayerException.class);
        assertThatThrownBy(() -> apply(u, new TarWriter().hardlink("passwd", "/etc/passwd")))
                .isInstanceOf(LayerException.class)
                .hasMessageContaining("missing");
    }

    @Test
    void whiteoutThroughASymlinkIsRefused() throws Exception {
        Path outside = Files.createDirectories(tmp.resolve("outside"));
        Files.writeString(outside.resolve("keep"), "x");
        LayerUnpacker u = new LayerUnpacker(rootfs(), LayerUnpacker.IdShift.NONE);
        apply(u, new TarWriter().symlink("link", outside.toString()));
        assertThatThrownBy(() -> apply(u, new TarWriter().file("link/.wh.keep", "")))
                .isInstanceOf(LayerException.class);
        assertThat(outside.resolve("keep")).exists();
        // a whiteout of the symlink itself removes the link, not its target
        apply(u, new TarWriter().file(".wh.link", ""));
        assertThat(tmp.resolve("rootfs/link")).doesNotExist();
        assertThat(Files.exists(outside.resolve("keep"), LinkOption.NOFOLLOW_LINKS))
                .isTrue();
    }

    @Test
    void setuidAndSetgidBitsAreDroppedWithoutAUserNamespace() throws Exception {
        Path root = rootfs();
        LayerUnpacker u = new LayerUnpacker(root, new LayerUnpacker.IdShift(0, false, false));
        apply(
                u,
                new TarWriter()
                        .file("su", 04755, "x".getBytes())
                        .file("wall", 02755, "x".getBytes())
                        .dir("shared", 03777)
                        .file("plain", 0640, "x".getBytes()));
        assertThat(mode(root.resolve("su"))).isEqualTo(0755);
        assertThat(mode(root.resolve("wall"))).isEqualTo(0755);
        assertThat(mode(root.resolve("shared"))).as("sticky stays, setgid goes").isEqualTo(01777);
        assertThat(mode(root.resolve("plain"))).isEqualTo(0640);
    }

    @Test
    void setuidBitsAreKeptInAUserNamespace() throws Exception {
        Path root = rootfs();
        LayerUnpacker u = new LayerUnpacker(root, new LayerUnpacker.IdShift(0, false, true));
        apply(u, new TarWriter().file("su", 04755, "x".getBytes()).file("wall", 02755, "x".getBytes()));
        assertThat(mode(root.resolve("su"))).isEqualTo(04755);
        assertThat(mode(root.resolve("wall"))).isEqualTo(02755);
    }

    @Test
    void unpackingStopsAtTheLimitAcrossLayers() throws Exception {
        Path root = rootfs();
        // 64 KiB of zeros compress to a few hundred bytes: the limit is on what unpacks, not on the blob
        byte[] bomb = new TarWriter().zeros("big", 64 * 1024).tarGz();
        assertThat(bomb.length).isLessThan(1024);
        Path blob = Files.write(tmp.resolve("bomb.tar.gz"), bomb);
        LayerUnpacker roomy = new LayerUnpacker(root, LayerUnpacker.IdShift.NONE, 150 * 1024);
        roomy.apply(blob, "application/vnd.oci.image.layer.v1.tar+gzip");
        assertThat(Files.size(root.resolve("big"))).isEqualTo(64 * 1024);
        roomy.apply(blob, "application/vnd.oci.image.layer.v1.tar+gzip");
        assertThatThrownBy(() -> roomy.apply(blob, "application/vnd.oci.image.layer.v1.tar+gzip"))
                .isInstanceOf(LayerException.class)
                .hasMessageContaining("unpacks to more than 153600 bytes")
                .hasMessageContaining("disk size");
        LayerUnpacker tight =
                new LayerUnpacker(Files.createDirectories(tmp.resolve("other")), LayerUnpacker.IdShift.NONE, 32 * 1024);
        assertThatThrownBy(() -> tight.apply(blob, "application/vnd.oci.image.layer.v1.tar+gzip"))
                .isInstanceOf(LayerException.class)
                .hasMessageContaining("unpacks to more than");
        assertThat(tight.unpackedBytes()).isLessThanOrEqualTo(32 * 1024 + 64 * 1024);
    }

    @Test
    void zstdLayersMadeByTheZstdToolAreUnpacked() throws Exception {
        Path tar = Files.write(
                tmp.resolve("layer.tar"),
                new TarWriter()
                        .dir("etc", 0755)
                        .file("etc/hello", "zstd layer")
                        .symlink("etc/link", "hello")
                        .tar());
        Path zst = tmp.resolve("layer.tar.zst");
        Process zstd;
        try {
            zstd = new ProcessBuilder("zstd", "-q", "-19", tar.toString(), "-o", zst.toString())
                    .redirectErrorStream(true)
                    .start();
        } catch (java.io.IOException e) {
            org.junit.jupiter.api.Assumptions.abort(
                    "the zstd tool is not installed (apt-get install zstd): " + e.getMessage());
            return;
        }
        String out = new String(zstd.getInputStream().readAllBytes());
        assertThat(zstd.waitFor()).as(out).isZero();
        Path root = rootfs();
        new LayerUnpacker(root, LayerUnpacker.IdShift.NONE).apply(zst, "application/vnd.oci.image.layer.v1.tar+zstd");
        assertThat(Files.readString(root.resolve("etc/hello"))).isEqualTo("zstd layer");
        assertThat(Files.readSymbolicLink(root.resolve("etc/link")).toString()).isEqualTo("hello");
    }

    @Test
    void uncompressedAndGzipLayersAndUnknownMediaTypes() throws Exception {
        Path root = rootfs();
        LayerUnpacker u = new LayerUnpacker(root, LayerUnpacker.IdShift.NONE);
        u.apply(
                Files.write(
                        tmp.resolve("a.tar"), new TarWriter().file("a", "plain").tar()),
                "application/vnd.oci.image.layer.v1.tar");
        u.apply(
                Files.write(
                        tmp.resolve("b.tgz"), new TarWriter().file("b", "gz").tarGz()),
                "application/vnd.docker.image.rootfs.diff.tar.gzip");
        assertThat(Files.readString(root.resolve("a"))).isEqualTo("plain");
        assertThat(Files.readString(root.resolve("b"))).isEqualTo("gz");
        assertThatThrownBy(() -> u.apply(tmp.resolve("a.tar"), "application/vnd.oci.image.layer.v1.tar+lz4"))
                .isInstanceOf(LayerException.class)
                .hasMessageContaining("unsupported layer media type");
    }

    @Test
    void longNamesAndACorruptHeaderAreHandled() throws Exception {
        Path root = rootfs();
        String longName = "d/" + "n".repeat(150) + "/" + "f".repeat(120);
        LayerUnpacker u = new LayerUnpacker(root, LayerUnpacker.IdShift.NONE);
        apply(u, new TarWriter().file(longName, "deep"));
        assertThat(Files.readString(root.resolve(longName))).isEqualTo("deep");
        byte[] corrupt = new TarWriter().file("x", "y").tar();
        corrupt[148] ^= 1; // checksum field
        assertThatThrownBy(() -> u.apply(new ByteArrayInputStream(corrupt))).isInstanceOf(java.io.IOException.class);
    }

    private static int mode(Path p) throws Exception {
        return (Integer) Files.getAttribute(p, "unix:mode", LinkOption.NOFOLLOW_LINKS) & 07777;
    }
}

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
    @TempDir Path tmp;

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
        apply(u, new TarWriter().dir("etc", 0755).file("etc/a", "a1").file("etc/b", "b1")
                .dir("opt", 0755).file("opt/old", "old").dir("opt/sub", 0755).file("opt/sub/x", "x"));
        apply(u, new TarWriter().file("etc/.wh.a", "").file("etc/b", "b2")
                .dir("opt", 0755).file("opt/.wh..wh..opq", "").file("opt/new", "new"));
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
        apply(u, new TarWriter().dir("bin", 0755).file("bin/tool", 0750, "#!".getBytes())
                .symlink("bin/abs", "/etc/passwd").hardlink("bin/same", "bin/tool"));
        assertThat(Files.getAttribute(root.resolve("bin/tool"), "unix:mode")).isEqualTo(0100750);
        // absolute symlinks are stored verbatim: they resolve inside the container, never on the host
        assertThat(Files.readSymbolicLink(root.resolve("bin/abs"))).isEqualTo(Path.of("/etc/passwd"));
        assertThat(Files.isSameFile(root.resolve("bin/same"), root.resolve("bin/tool"))).isTrue();
    }

    @Test
    void parentTraversalIsRefused() throws Exception {
        LayerUnpacker u = new LayerUnpacker(rootfs(), LayerUnpacker.IdShift.NONE);
        assertThatThrownBy(() -> apply(u, new TarWriter().file("../evil", "x")))
                .isInstanceOf(LayerException.class).hasMessageContaining("escapes");
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
                .isInstanceOf(LayerException.class).hasMessageContaining("symbolic link");
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
                .isInstanceOf(LayerException.class).hasMessageContaining("missing");
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
        assertThat(Files.exists(outside.resolve("keep"), LinkOption.NOFOLLOW_LINKS)).isTrue();
    }
}

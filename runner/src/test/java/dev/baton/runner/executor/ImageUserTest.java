package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ImageUserTest {
    @TempDir
    Path rootfs;

    @Test
    void numericIdsNamesAndGroupsResolveAgainstTheImagesOwnFiles() throws Exception {
        Files.createDirectories(rootfs.resolve("etc"));
        Files.writeString(
                rootfs.resolve("etc/passwd"), "root:x:0:0::/root:/bin/sh\nbench:x:1000:1001::/home:/bin/sh\n");
        Files.writeString(rootfs.resolve("etc/group"), "root:x:0:\nstaff:x:50:\n");
        assertThat(ImageUser.resolve(null, rootfs)).isEqualTo(ImageUser.ROOT);
        assertThat(ImageUser.resolve("", rootfs).isRoot()).isTrue();
        assertThat(ImageUser.resolve("4242", rootfs)).isEqualTo(new ImageUser(4242, 0));
        assertThat(ImageUser.resolve("4242:4343", rootfs)).isEqualTo(new ImageUser(4242, 4343));
        assertThat(ImageUser.resolve("bench", rootfs)).isEqualTo(new ImageUser(1000, 1001));
        assertThat(ImageUser.resolve("bench:staff", rootfs)).isEqualTo(new ImageUser(1000, 50));
        assertThatThrownBy(() -> ImageUser.resolve("nobody", rootfs))
                .isInstanceOf(DeclinedException.class)
                .hasMessageContaining("not found");
        assertThatThrownBy(() -> ImageUser.resolve("bench:wheel", rootfs)).isInstanceOf(DeclinedException.class);
    }

    @Test
    void aSymlinkedPasswdIsNotFollowedOutOfTheImage() throws Exception {
        Files.createDirectories(rootfs.resolve("etc"));
        Files.createSymbolicLink(rootfs.resolve("etc/passwd"), Path.of("/etc/passwd"));
        assertThatThrownBy(() -> ImageUser.resolve("root", rootfs)).isInstanceOf(DeclinedException.class);
    }
}

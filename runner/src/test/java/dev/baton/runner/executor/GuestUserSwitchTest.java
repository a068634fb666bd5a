package dev.baton.runner.executor;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The host's coreutils chroot and what ldd says it needs (the microVM test runs it in a guest). */
class GuestUserSwitchTest {
    @TempDir
    Path baton;

    @Test
    void copiesChrootWithItsLoaderAndLibrariesAndRunsItThroughThatLoader() throws Exception {
        assumeTrue(Files.isExecutable(GuestUserSwitch.CHROOT), "no /usr/sbin/chroot (coreutils)");
        GuestUserSwitch s = GuestUserSwitch.of(GuestUserSwitch.CHROOT);
        s.install(baton);
        assertThat(baton.resolve("chroot")).isExecutable();
        if (s.loader().isPresent()) {
            assertThat(baton.resolve("lib/ld.so")).isExecutable();
            assertThat(s.libraries())
                    .isNotEmpty()
                    .allSatisfy(l -> assertThat(
                                    baton.resolve("lib").resolve(l.getFileName().toString()))
                            .exists());
            assertThat(s.command(new ImageUser(1000, 1001)))
                    .containsExactly(
                            "/.baton/lib/ld.so",
                            "--library-path",
                            "/.baton/lib",
                            "/.baton/chroot",
                            "--userspec=1000:1001",
                            "--groups=1001",
                            "--skip-chdir",
                            "/");
            // The copied pieces work from their new place: the loader runs the copied chroot with the copied libc.
            Process p = new ProcessBuilder(
                            baton.resolve("lib/ld.so").toString(),
                            "--library-path",
                            baton.resolve("lib").toString(),
                            baton.resolve("chroot").toString(),
                            "--version")
                    .redirectErrorStream(true)
                    .start();
            assertThat(new String(p.getInputStream().readAllBytes())).contains("chroot (GNU coreutils)");
            assertThat(p.waitFor()).isZero();
        }
    }
}

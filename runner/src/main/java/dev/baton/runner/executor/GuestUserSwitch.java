package dev.baton.runner.executor;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * How the guest runs the workload as the image's {@code User}. Debian's busybox has no applet
 * that switches to a numeric uid without a passwd entry ({@code setpriv} lacks
 * {@code --reuid}, {@code chpst} is not built, {@code su} and {@code start-stop-daemon} need the
 * user in {@code /etc/passwd}), so coreutils' {@code chroot --userspec=UID:GID} does it, chrooting
 * to {@code /} (a no-op) and keeping the working directory. It is dynamically linked: it is
 * copied to {@code /.baton/chroot} with its loader and libraries (found with {@code ldd}) under
 * {@code /.baton/lib}, and started through that loader, so the image's own libraries are never
 * touched or used.
 *
 * @param chroot coreutils' chroot on the host
 * @param loader its dynamic loader (empty when it is static)
 * @param libraries the shared libraries it needs
 */
record GuestUserSwitch(Path chroot, Optional<Path> loader, List<Path> libraries) {
    static final Path CHROOT = Path.of("/usr/sbin/chroot");
    private static final String DIR = "/.baton";

    /** Finds the libraries of {@code chroot} with {@code ldd}. */
    static GuestUserSwitch of(Path chroot) throws IOException {
        if (!Files.isExecutable(chroot))
            throw new IOException("no " + chroot + " (coreutils) to switch to the image's user");
        Process p = new ProcessBuilder("ldd", chroot.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("ldd " + chroot + " did not finish");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        if (out.contains("not a dynamic executable") || out.contains("statically linked")) {
            return new GuestUserSwitch(chroot, Optional.empty(), List.of());
        }
        if (p.exitValue() != 0) throw new IOException("ldd " + chroot + " failed: " + out.strip());
        Path loader = null;
        List<Path> libraries = new ArrayList<>();
        for (String line : out.split("\n")) {
            String l = line.strip();
            int arrow = l.indexOf("=>");
            if (arrow >= 0) {
                String target = l.substring(arrow + 2).strip();
                int paren = target.indexOf(" (");
                if (paren >= 0) target = target.substring(0, paren);
                if (target.startsWith("/")) libraries.add(Path.of(target));
                else if (!l.startsWith("linux-vdso")) throw new IOException("ldd " + chroot + ": unresolved " + l);
            } else if (l.startsWith("/")) {
                loader = Path.of(l.substring(0, l.contains(" (") ? l.indexOf(" (") : l.length()));
            }
        }
        if (loader == null) throw new IOException("ldd " + chroot + " names no loader: " + out.strip());
        return new GuestUserSwitch(chroot, Optional.of(loader), List.copyOf(libraries));
    }

    /** Copies the pieces into {@code baton} (the job disk's {@code /.baton}). */
    void install(Path baton) throws IOException {
        Files.copy(chroot, baton.resolve("chroot"), StandardCopyOption.REPLACE_EXISTING);
        baton.resolve("chroot").toFile().setExecutable(true, false);
        if (loader.isEmpty()) return;
        Path lib = Files.createDirectories(baton.resolve("lib"));
        Files.copy(loader.get(), lib.resolve("ld.so"), StandardCopyOption.REPLACE_EXISTING);
        lib.resolve("ld.so").toFile().setExecutable(true, false);
        for (Path l : libraries)
            Files.copy(l, lib.resolve(l.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
    }

    /** The words put before the workload's argv to run it as {@code user}, with only its group. */
    List<String> command(ImageUser user) {
        List<String> c = new ArrayList<>();
        if (loader.isPresent()) c.addAll(List.of(DIR + "/lib/ld.so", "--library-path", DIR + "/lib"));
        c.addAll(List.of(
                DIR + "/chroot",
                "--userspec=" + user.uid() + ":" + user.gid(),
                "--groups=" + user.gid(),
                "--skip-chdir",
                "/"));
        return c;
    }
}

package dev.baton.dispatch.pools;

import dev.baton.core.microvm.HostTsc;
import dev.baton.core.microvm.Initramfs;
import dev.baton.core.microvm.MicroVmKernels;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The {@code microvm} provider (issue 43): each machine is a QEMU {@code microvm} guest on the
 * server's host running {@code baton runner up --ephemeral} ({@link MicroVmGuest} says how: the
 * host's root read-only over 9p, the machine's directory {@code WORK_DIR/MACHINE} writable, the
 * key in a file there that the guest deletes once read). When the runner leaves after its job
 * the guest powers off and QEMU exits; {@code stop} kills QEMU. The id is {@code PID@START@HOST} of
 * the QEMU process, as for the {@code process} provider, so a reused PID is never killed.
 *
 * <p>Settings: {@code root} (required: the directory the guest sees as its root, read-only; it
 * must hold {@code command}, {@code java_home} and, as mount points, the work directory's path,
 * {@code /tmp}, {@code /run}, {@code /dev}, {@code /proc}, {@code /sys}), {@code work_dir} (default {@code java.io.tmpdir}/baton-microvm), {@code kernel}
 * (default the newest {@code /boot/vmlinuz-*} whose modules are installed), {@code accel}
 * ({@code tcg}, the default, or {@code kvm}), {@code cpus} (1), {@code memory_mib} (1024: the
 * runner is a JVM), {@code command} ({@code baton}, a path on the host), {@code args} (more
 * arguments, e.g. {@code --executor process --allow-no-sandbox}: the VM is the sandbox),
 * {@code java_home} (the JDK the guest's {@code baton} runs with; default the server's own),
 * {@code guest_server} (the server's URL as the guest reaches it; default the server's URL with a
 * loopback host replaced by {@code 10.0.2.2}, QEMU's user-mode address of the host).
 */
public final class MicroVmProvider implements PoolProvider {
    static final String QEMU = "qemu-system-x86_64";
    /** How long a start watches QEMU for an immediate exit (a kernel it cannot load, a bad option). */
    static final long START_CHECK_MS = 2000;

    private static final long STOP_WAIT_SECONDS = 20;
    private final Object imageLock = new Object();

    @Override
    public String name() {
        return "microvm";
    }

    @Override
    public String start(StartRequest request) throws ProviderException {
        Map<String, String> config = request.config();
        String accel = config.getOrDefault("accel", "tcg");
        if (!accel.equals("tcg") && !accel.equals("kvm"))
            throw new ProviderException("provider_config accel must be tcg or kvm, got '" + accel + "'");
        int cpus = number(config, "cpus", 1, 1, 64);
        int memory = number(config, "memory_mib", 1024, 256, 1 << 20);
        Path workDir = Path.of(config.getOrDefault("work_dir", System.getProperty("java.io.tmpdir") + "/baton-microvm"))
                .toAbsolutePath()
                .normalize();
        Path root = root(config);
        for (String key : List.of("command", "java_home")) {
            String value = config.get(key);
            if (value != null && Path.of(value).isAbsolute() && hiddenInTheGuest(Path.of(value)))
                throw new ProviderException("provider_config " + key + " " + value
                        + " is not visible in the guest: it gets fresh /tmp, /run, /dev, /proc and /sys");
        }
        Path kernel = kernel(config);
        Path modules = MicroVmKernels.modulesFor(kernel, Path.of("/lib/modules"));
        Path dir = workDir.resolve(request.machine());
        try {
            Path initrd = image(workDir, kernel, modules);
            Files.createDirectories(dir.resolve("work"));
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
            writeSecret(dir.resolve("key.env"), keyEnv(request, config));
            Files.writeString(dir.resolve("boot.sh"), bootScript(request, config, dir));
            List<String> command = command(config, accel, cpus, memory, kernel, initrd, root, dir);
            Process p = new ProcessBuilder(command)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("qemu.log").toFile())
                    .start();
            if (p.waitFor(START_CHECK_MS, TimeUnit.MILLISECONDS)) {
                Files.deleteIfExists(dir.resolve("key.env"));
                throw new ProviderException("QEMU exited at once with " + p.exitValue() + ": "
                        + tail(Files.readString(dir.resolve("qemu.log"))));
            }
            return ProcessProvider.idOf(p);
        } catch (IOException e) {
            throw new ProviderException("cannot start the microVM: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException("interrupted while starting the microVM");
        }
    }

    @Override
    public void stop(String providerId, Map<String, String> config) throws ProviderException {
        Optional<ProcessHandle> qemu = ProcessProvider.find(providerId);
        if (qemu.isEmpty()) return; // powered off after its job, or stopped already
        ProcessHandle p = qemu.get();
        p.destroy(); // QEMU ends the guest at once on SIGTERM; no grace is owed to a single-job guest being stopped
        try {
            p.onExit().get(STOP_WAIT_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            p.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException("interrupted while stopping microVM " + providerId);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new ProviderException("cannot stop microVM " + providerId + ": " + e.getCause());
        }
    }

    static List<String> command(
            Map<String, String> config,
            String accel,
            int cpus,
            int memory,
            Path kernel,
            Path initrd,
            Path root,
            Path dir) {
        List<String> c = new ArrayList<>(List.of(
                config.getOrDefault("qemu", QEMU),
                "-name",
                "baton-pool-" + dir.getFileName(),
                "-accel",
                accel,
                "-M",
                "microvm",
                "-smp",
                Integer.toString(cpus),
                "-m",
                memory + "M",
                "-nodefaults",
                "-no-user-config",
                "-display",
                "none",
                "-no-reboot",
                "-kernel",
                kernel.toString(),
                "-initrd",
                initrd.toString(),
                "-append",
                MicroVmGuest.CMDLINE + " baton.dir=" + dir
                        + (accel.equals("tcg") ? HostTsc.kernelArgs(HostTsc.khz()) : ""),
                "-serial",
                "file:" + dir.resolve("console.log"),
                "-fsdev",
                "local,id=host,path=" + root + ",security_model=none,readonly=on,multidevs=remap",
                "-device",
                "virtio-9p-device,fsdev=host,mount_tag=host",
                "-fsdev",
                "local,id=machine,path=" + dir + ",security_model=none,multidevs=remap",
                "-device",
                "virtio-9p-device,fsdev=machine,mount_tag=machine",
                "-netdev",
                "user,id=net",
                "-device",
                "virtio-net-device,netdev=net"));
        if (accel.equals("kvm")) c.addAll(List.of("-cpu", "host"));
        return c;
    }

    /** The one initramfs of a kernel, built at its first machine and kept in the work directory. */
    private Path image(Path workDir, Path kernel, Path modules) throws IOException, ProviderException {
        Path target = workDir.resolve("initramfs-" + kernel.getFileName() + ".cpio");
        synchronized (imageLock) {
            if (Files.isRegularFile(target)) return target;
            Path busybox = Path.of("/bin/busybox");
            if (!Files.isExecutable(busybox))
                throw new ProviderException("no static busybox at /bin/busybox (apt-get install busybox-static)");
            Files.createDirectories(workDir);
            Initramfs.build(target, busybox, modules, Path.of("cpio"), MicroVmGuest.INIT, MicroVmGuest.MODULES);
            return target;
        }
    }

    /**
     * The tree the guest sees as its root, read-only. No default: {@code /} shows the guest (and
     * so every job) all that QEMU's user may read on this host, the server's secrets included.
     */
    private static Path root(Map<String, String> config) throws ProviderException {
        String configured = config.get("root");
        if (configured == null || configured.isBlank())
            throw new ProviderException("provider_config has no 'root': the directory the guests see as their"
                    + " read-only root (a tree with a JDK and baton; '/' shares all of this host)");
        Path root = Path.of(configured);
        if (!root.isAbsolute() || !Files.isDirectory(root))
            throw new ProviderException("provider_config root must be an absolute directory, got '" + configured + "'");
        return root;
    }

    private static Path kernel(Map<String, String> config) throws ProviderException {
        String configured = config.get("kernel");
        if (configured != null) {
            Path k = Path.of(configured);
            if (!Files.isReadable(k)) throw new ProviderException("no guest kernel at " + k);
            return k;
        }
        try {
            return MicroVmKernels.newest(Path.of("/boot"), Path.of("/lib/modules"))
                    .orElseThrow(() -> new ProviderException(
                            "no guest kernel: apt-get install linux-image-amd64, or set provider_config kernel"));
        } catch (IOException e) {
            throw new ProviderException("cannot look for a guest kernel: " + e.getMessage());
        }
    }

    /**
     * Whether the guest cannot see this host path: it mounts fresh {@code /tmp}, {@code /run},
     * {@code /dev}, {@code /proc} and {@code /sys} over the host's root, so a runner or JDK installed
     * under one of them is missing there (only the machine's own directory is mounted back).
     */
    public static boolean hiddenInTheGuest(Path hostPath) {
        Path p = hostPath.toAbsolutePath().normalize();
        for (String fresh : List.of("/tmp", "/run", "/dev", "/proc", "/sys")) {
            if (p.startsWith(fresh)) return true;
        }
        return false;
    }

    /** The runner's command, run chrooted in the host's root; it reads and deletes the key file first. */
    static String bootScript(StartRequest request, Map<String, String> config, Path dir) {
        String javaHome = config.getOrDefault("java_home", System.getProperty("java.home"));
        List<String> runner = new ArrayList<>(List.of(
                config.getOrDefault("command", "baton"),
                "runner",
                "up",
                "--ephemeral",
                "--runner",
                request.runner(),
                "--work-dir",
                dir.resolve("work").toString()));
        String extra = config.getOrDefault("args", "").strip();
        if (!extra.isEmpty()) runner.addAll(List.of(extra.split("\\s+")));
        for (var label : request.labels().entrySet())
            runner.addAll(List.of("--label", label.getKey() + "=" + label.getValue()));
        StringBuilder s = new StringBuilder();
        s.append("set -a\n. ").append(quote(dir.resolve("key.env").toString())).append('\n');
        s.append("rm -f ").append(quote(dir.resolve("key.env").toString())).append('\n');
        s.append("set +a\n");
        s.append("export JAVA_HOME=").append(quote(javaHome)).append('\n');
        // Over 9p the loader does not find the JDK's libjli.so through the launcher's $ORIGIN rpath.
        s.append("export LD_LIBRARY_PATH=\"$JAVA_HOME/lib\"\n");
        s.append("export PATH=\"$JAVA_HOME/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin\"\n");
        s.append("export HOME=").append(quote(dir.toString())).append('\n');
        s.append("echo \"baton-guest: starting the runner\"\n");
        s.append("exec");
        for (String arg : runner) s.append(' ').append(quote(arg));
        return s.append('\n').toString();
    }

    private static String keyEnv(StartRequest request, Map<String, String> config) {
        return "BATON_SERVER=" + quote(guestServer(request.server(), config)) + "\nBATON_RUNNER_KEY="
                + quote(request.key()) + "\n";
    }

    /** The server as the guest reaches it: user-mode networking shows the host's loopback at 10.0.2.2. */
    static String guestServer(String server, Map<String, String> config) {
        String configured = config.get("guest_server");
        if (configured != null) return configured;
        URI uri = URI.create(server);
        String host = uri.getHost();
        if (host == null || !(host.equals("127.0.0.1") || host.equals("localhost") || host.equals("[::1]")))
            return server;
        return uri.getScheme() + "://10.0.2.2" + (uri.getPort() < 0 ? "" : ":" + uri.getPort())
                + (uri.getRawPath() == null ? "" : uri.getRawPath());
    }

    private static void writeSecret(Path file, String text) throws IOException {
        Files.deleteIfExists(file);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.writeString(file, text, StandardCharsets.UTF_8);
    }

    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private static int number(Map<String, String> config, String key, int fallback, int min, int max)
            throws ProviderException {
        String raw = config.get(key);
        if (raw == null) return fallback;
        try {
            int n = Integer.parseInt(raw.strip());
            if (n >= min && n <= max) return n;
        } catch (NumberFormatException ignored) {
            // said below
        }
        throw new ProviderException("provider_config " + key + " must be " + min + "-" + max + ", got '" + raw + "'");
    }

    private static String tail(String s) {
        String t = s.strip();
        return t.length() <= 500 ? t : "…" + t.substring(t.length() - 500);
    }
}

package dev.baton.dispatch.pools;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The {@code process} provider (issue 43): each machine is a local
 * {@code baton runner up --ephemeral --runner NAME --work-dir DIR/MACHINE …} process of the
 * server's host, its server and key in the environment ({@code BATON_SERVER},
 * {@code BATON_RUNNER_KEY}), its output in {@code DIR/MACHINE/agent.log}. For tests and
 * single-machine setups: every server node that uses it must run on that one host, where any of
 * them can stop a machine another started (a node that died leaves its processes running; the
 * next scaler stops them by their id).
 *
 * <p>Settings: {@code command} (default {@code baton}), {@code work_dir} (default
 * {@code java.io.tmpdir}/baton-pool), {@code args} (more arguments, split on spaces, e.g.
 * {@code --executor process --allow-no-sandbox}). The id is {@code PID@START@HOST}: the start
 * time in epoch milliseconds, so a PID the kernel gave to another process is never stopped, and
 * the host ({@link #HOST}), so a node elsewhere never signals a PID of its own host instead.
 */
public final class ProcessProvider implements PoolProvider {
    /** How long a stop waits after SIGTERM (the agent's grace period and reporting) before SIGKILL. */
    static final long STOP_GRACE_SECONDS = 40;

    /**
     * A process that exits within this of its start failed to start (a wrong {@code command} or
     * {@code args}, a launcher without Java): the start fails with its status and the end of its
     * log, and the pool backs off, instead of a machine waiting out its boot timeout.
     */
    static final Duration EARLY_EXIT = Duration.ofMillis(500);

    /**
     * This host as ids name it: the first 12 hex digits of the kernel's boot id and the inode of
     * this process's PID namespace (a PID means the same process only in the same boot and
     * namespace); empty where /proc does not say, and ids then have no host part.
     */
    static final String HOST = host();

    @Override
    public String name() {
        return "process";
    }

    @Override
    public String start(StartRequest request) throws ProviderException {
        Map<String, String> config = request.config();
        Path dir = machineDir(config, request.machine());
        List<String> command = new ArrayList<>(List.of(
                config.getOrDefault("command", "baton"),
                "runner",
                "up",
                "--ephemeral",
                "--runner",
                request.runner(),
                "--work-dir",
                dir.toString()));
        String extra = config.getOrDefault("args", "").strip();
        if (!extra.isEmpty()) command.addAll(List.of(extra.split("\\s+")));
        for (var label : request.labels().entrySet())
            command.addAll(List.of("--label", label.getKey() + "=" + label.getValue()));
        Process p;
        try {
            Files.createDirectories(dir);
            ProcessBuilder pb = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("agent.log").toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().put("BATON_SERVER", request.server());
            pb.environment().put("BATON_RUNNER_KEY", request.key());
            p = pb.start();
        } catch (IOException e) {
            throw new ProviderException("cannot start '" + command.getFirst() + "': " + e.getMessage());
        }
        try {
            if (p.waitFor(EARLY_EXIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new ProviderException("'" + command.getFirst() + "' exited with status " + p.exitValue()
                        + " within " + EARLY_EXIT.toMillis() + " ms of its start: " + tail(dir.resolve("agent.log")));
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new ProviderException("interrupted while starting '" + command.getFirst() + "'");
        }
        return idOf(p);
    }

    @Override
    public void stop(String providerId, Map<String, String> config) throws ProviderException {
        Optional<ProcessHandle> process = find(providerId);
        if (process.isEmpty()) return; // gone already
        stop(process.get(), providerId);
    }

    /**
     * The machine's runner is the process whose arguments hold its directory ({@code --work-dir
     * WORK_DIR/MACHINE}): found on this host whether or not its id was recorded.
     */
    @Override
    public boolean stopUnrecorded(String machine, Map<String, String> config) throws ProviderException {
        String dir = machineDir(config, machine).toString();
        List<ProcessHandle> found = ProcessHandle.allProcesses()
                .filter(h ->
                        h.info().arguments().map(a -> List.of(a).contains(dir)).orElse(false))
                .toList();
        for (ProcessHandle h : found) stop(h, "of machine " + machine);
        return true;
    }

    private static void stop(ProcessHandle p, String what) throws ProviderException {
        p.destroy();
        try {
            if (!awaitGone(p, Duration.ofSeconds(STOP_GRACE_SECONDS))) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException("interrupted while stopping process " + what);
        }
    }

    /**
     * Whether the process ended within {@code within}. Polled rather than {@code onExit}: a
     * process another node started is not this JVM's child, and once its parent died it may stay
     * a zombie until whoever adopted it reaps it, which {@code onExit} would wait for.
     */
    private static boolean awaitGone(ProcessHandle p, Duration within) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        while (p.isAlive() && !zombie(p.pid())) {
            if (System.nanoTime() - deadline > 0) return false;
            Thread.sleep(50);
        }
        return true;
    }

    /** Exited and not yet reaped: state {@code Z} in /proc/PID/stat (after the command's closing parenthesis). */
    private static boolean zombie(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            int close = stat.lastIndexOf(')');
            return close > 0 && close + 2 < stat.length() && stat.charAt(close + 2) == 'Z';
        } catch (IOException | RuntimeException e) {
            return false; // gone, or no /proc: isAlive decides
        }
    }

    /** {@code PID@START@HOST} of a process this node started (also the {@code microvm} provider's QEMU). */
    static String idOf(Process p) {
        Instant started = p.info().startInstant().orElse(Instant.EPOCH);
        return p.pid() + "@" + started.toEpochMilli() + (HOST.isEmpty() ? "" : "@" + HOST);
    }

    /**
     * The live process the id names: its PID, and the same start time (PIDs are reused). An id of
     * another host is refused (it cannot be found from here; the stop is left for a node there),
     * one without a host part ({@code PID@START}, older ids) is taken as this host's.
     */
    static Optional<ProcessHandle> find(String providerId) throws ProviderException {
        String[] parts = providerId.split("@", -1);
        long pid;
        long started;
        try {
            if (parts.length < 2 || parts.length > 3) throw new IllegalArgumentException();
            pid = Long.parseLong(parts[0]);
            started = Long.parseLong(parts[1]);
        } catch (RuntimeException e) {
            throw new ProviderException("not a process provider id: '" + providerId + "'");
        }
        if (parts.length == 3 && !parts[2].equals(HOST)) {
            throw new ProviderException("process " + pid + " runs on another host (" + parts[2] + "; this node is on "
                    + (HOST.isEmpty() ? "an unknown one" : HOST) + "): only a server node on that host can stop it");
        }
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(h -> !zombie(h.pid()))
                .filter(h -> h.info().startInstant().map(Instant::toEpochMilli).orElse(-1L) == started);
    }

    private static Path machineDir(Map<String, String> config, String machine) {
        return Path.of(config.getOrDefault("work_dir", System.getProperty("java.io.tmpdir") + "/baton-pool"))
                .resolve(machine);
    }

    /** The end of a machine's log, for the reason of a failed start (the runner never logs its key). */
    private static String tail(Path log) {
        try {
            String text = new String(Files.readAllBytes(log), StandardCharsets.UTF_8).strip();
            if (text.isEmpty()) return "no output";
            return text.length() > 300 ? "…" + text.substring(text.length() - 300) : text;
        } catch (IOException e) {
            return "no output";
        }
    }

    private static String host() {
        try {
            String boot = Files.readString(Path.of("/proc/sys/kernel/random/boot_id"))
                    .strip()
                    .replace("-", "");
            String namespace = Files.readSymbolicLink(Path.of("/proc/self/ns/pid"))
                    .toString()
                    .replaceAll("\\D", "");
            if (boot.length() < 12 || namespace.isEmpty()) return "";
            return boot.substring(0, 12) + "." + namespace;
        } catch (IOException | RuntimeException e) {
            return "";
        }
    }
}

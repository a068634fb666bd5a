package dev.baton.dispatch.pools;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * single-machine setups; single-node, since another node cannot stop its processes.
 *
 * <p>Settings: {@code command} (default {@code baton}), {@code work_dir} (default
 * {@code java.io.tmpdir}/baton-pool), {@code args} (more arguments, split on spaces, e.g.
 * {@code --executor process --allow-no-sandbox}). The id is {@code PID@START} (the process's start
 * time in epoch milliseconds), so a PID the kernel gave to another process is never stopped.
 */
public final class ProcessProvider implements PoolProvider {
    /** How long a stop waits after SIGTERM (the agent's grace period and reporting) before SIGKILL. */
    static final long STOP_GRACE_SECONDS = 40;

    @Override
    public String name() {
        return "process";
    }

    @Override
    public String start(StartRequest request) throws ProviderException {
        Map<String, String> config = request.config();
        Path dir = Path.of(config.getOrDefault("work_dir", System.getProperty("java.io.tmpdir") + "/baton-pool"))
                .resolve(request.machine());
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
        try {
            Files.createDirectories(dir);
            ProcessBuilder pb = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(dir.resolve("agent.log").toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
            pb.environment().put("BATON_SERVER", request.server());
            pb.environment().put("BATON_RUNNER_KEY", request.key());
            Process p = pb.start();
            Instant started = p.info().startInstant().orElse(Instant.EPOCH);
            return p.pid() + "@" + started.toEpochMilli();
        } catch (IOException e) {
            throw new ProviderException("cannot start '" + command.getFirst() + "': " + e.getMessage());
        }
    }

    @Override
    public void stop(String providerId, Map<String, String> config) throws ProviderException {
        Optional<ProcessHandle> process = find(providerId);
        if (process.isEmpty()) return; // gone already
        ProcessHandle p = process.get();
        p.destroy();
        try {
            p.onExit().get(STOP_GRACE_SECONDS, TimeUnit.SECONDS);
        } catch (java.util.concurrent.TimeoutException e) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ProviderException("interrupted while stopping process " + providerId);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new ProviderException("cannot stop process " + providerId + ": " + e.getCause());
        }
    }

    /** The live process the id names: its PID, and the same start time (PIDs are reused). */
    static Optional<ProcessHandle> find(String providerId) throws ProviderException {
        int at = providerId.indexOf('@');
        long pid;
        long started;
        try {
            pid = Long.parseLong(providerId.substring(0, at));
            started = Long.parseLong(providerId.substring(at + 1));
        } catch (RuntimeException e) {
            throw new ProviderException("not a process provider id: '" + providerId + "'");
        }
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .filter(h -> h.info().startInstant().map(Instant::toEpochMilli).orElse(-1L) == started);
    }
}

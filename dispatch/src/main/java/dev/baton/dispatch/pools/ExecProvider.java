package dev.baton.dispatch.pools;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The {@code exec} provider (issue 43): two commands of the operator's, run with {@code sh -c}.
 * {@code start} gets the runner's server, name and one-time key in its environment
 * ({@code BATON_SERVER}, {@code BATON_RUNNER}, {@code BATON_RUNNER_KEY}, plus {@code BATON_POOL},
 * {@code BATON_MACHINE}) and prints the machine's id as the last line of its output;
 * {@code stop} gets that id as {@code BATON_PROVIDER_ID}. A command that exits non-zero, prints
 * no id, or runs longer than {@code timeout_seconds} (default 120; it is killed) fails with
 * what it wrote to stderr (its last 500 characters).
 */
public final class ExecProvider implements PoolProvider {
    static final int DEFAULT_TIMEOUT_SECONDS = 120;
    private static final int TAIL = 500;

    @Override
    public String name() {
        return "exec";
    }

    @Override
    public String start(StartRequest request) throws ProviderException {
        String command = required(request.config(), "start");
        Map<String, String> env = Map.of(
                "BATON_SERVER", request.server(),
                "BATON_RUNNER", request.runner(),
                "BATON_RUNNER_KEY", request.key(),
                "BATON_POOL", request.pool(),
                "BATON_MACHINE", request.machine());
        String out = run("start", command, env, timeout(request.config()));
        List<String> lines =
                out.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        if (lines.isEmpty()) throw new ProviderException("the start command printed no machine id");
        String id = lines.getLast();
        if (id.length() > 256)
            throw new ProviderException("the start command's machine id is longer than 256 characters");
        return id;
    }

    @Override
    public void stop(String providerId, Map<String, String> config) throws ProviderException {
        run("stop", required(config, "stop"), Map.of("BATON_PROVIDER_ID", providerId), timeout(config));
    }

    private static String required(Map<String, String> config, String key) throws ProviderException {
        String command = config.get(key);
        if (command == null || command.isBlank())
            throw new ProviderException("provider_config has no '" + key + "' command");
        return command;
    }

    private static Duration timeout(Map<String, String> config) throws ProviderException {
        String raw = config.getOrDefault("timeout_seconds", String.valueOf(DEFAULT_TIMEOUT_SECONDS));
        try {
            int s = Integer.parseInt(raw);
            if (s >= 1 && s <= 3600) return Duration.ofSeconds(s);
        } catch (NumberFormatException ignored) {
            // said below
        }
        throw new ProviderException("provider_config timeout_seconds must be 1-3600, got '" + raw + "'");
    }

    private static String run(String what, String command, Map<String, String> env, Duration timeout)
            throws ProviderException {
        ProcessBuilder pb = new ProcessBuilder("sh", "-c", command);
        pb.environment().putAll(env);
        Process p;
        try {
            p = pb.start();
        } catch (IOException e) {
            throw new ProviderException("cannot run the " + what + " command: " + e.getMessage());
        }
        try {
            p.getOutputStream().close(); // nothing on stdin
        } catch (IOException ignored) {
            // the command may have exited already
        }
        CompletableFuture<String> out = CompletableFuture.supplyAsync(() -> read(p.getInputStream()));
        CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> read(p.getErrorStream()));
        try {
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
                throw new ProviderException(
                        "the " + what + " command did not finish within " + timeout.toSeconds() + " s; killed");
            }
            if (p.exitValue() != 0)
                throw new ProviderException("the " + what + " command exited with " + p.exitValue() + ": "
                        + tail(err.get(5, TimeUnit.SECONDS)));
            return out.get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            p.destroyForcibly();
            throw new ProviderException("interrupted while the " + what + " command ran");
        } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
            throw new ProviderException("cannot read the " + what + " command's output: " + e);
        }
    }

    private static String read(InputStream in) {
        try (in) {
            byte[] bytes = in.readNBytes(64 << 10);
            return new String(bytes, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }

    private static String tail(String s) {
        String t = s.strip();
        return t.length() <= TAIL ? t : "…" + t.substring(t.length() - TAIL);
    }
}

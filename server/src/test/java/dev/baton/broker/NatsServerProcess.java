package dev.baton.broker;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * A real {@code nats-server} with JetStream on a free port, from the same binary operations run
 * (Debian's, /usr/sbin/nats-server), for tests that need a broker of their own: to restart it or
 * purge its stream without disturbing anyone else's. Its store directory survives a restart.
 */
final class NatsServerProcess implements AutoCloseable {
    static final Path BINARY = Path.of(System.getenv().getOrDefault("BATON_TEST_NATS_SERVER", "/usr/sbin/nats-server"));

    /** How JetStream is switched on when a config file is used. */
    enum JetStreamIn {
        /** {@code -js -sd <dir>} on the command line beside {@code -c}: what operations.md said before; a reload shuts JetStream down. */
        COMMAND_LINE,
        /** {@code jetstream { store_dir: … }} in the config file: survives a reload. */
        CONFIG_FILE
    }

    private final Path storeDir;
    private final int port;
    private final Path config;
    private final JetStreamIn jetStreamIn;
    private Process process;

    NatsServerProcess(Path storeDir) throws IOException {
        this(storeDir, null, null);
    }

    /**
     * With a config file: {@code listen}, JetStream as {@code jetStreamIn} says, then {@code rest}
     * (an {@code authorization} block, say), which {@link #rewrite} replaces before a {@link #reload}.
     */
    NatsServerProcess(Path storeDir, JetStreamIn jetStreamIn, String rest) throws IOException {
        this.storeDir = storeDir;
        try (ServerSocket s = new ServerSocket(0)) {
            this.port = s.getLocalPort();
        }
        this.jetStreamIn = jetStreamIn;
        this.config = jetStreamIn == null ? null : storeDir.resolveSibling("nats-" + port + ".conf");
        if (config != null) rewrite(rest);
        start();
    }

    int port() {
        return port;
    }

    /** Writes the config file again with {@code rest} after the listen and JetStream lines (read at the next {@link #reload}). */
    void rewrite(String rest) throws IOException {
        String js = jetStreamIn == JetStreamIn.CONFIG_FILE ? "jetstream { store_dir: \"" + storeDir + "\" }\n" : "";
        Files.writeString(config, "listen: 127.0.0.1:" + port + "\n" + js + (rest == null ? "" : rest));
    }

    /** {@code SIGHUP}: nats-server reads its config file again, as after {@code nats-server --signal reload}. */
    void reload() throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-HUP", String.valueOf(process.pid()))
                .inheritIO()
                .start();
        if (kill.waitFor() != 0) throw new IllegalStateException("kill -HUP failed");
    }

    /** nats-server's own log, to tell in a failed test what it did (a reload, JetStream shut down). */
    String log() throws IOException {
        return Files.readString(storeDir.resolveSibling("nats-" + port + ".log"));
    }

    static boolean available() {
        return Files.isExecutable(BINARY);
    }

    String url() {
        return "nats://127.0.0.1:" + port;
    }

    void start() throws IOException {
        Files.createDirectories(storeDir);
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(BINARY.toString()));
        if (jetStreamIn == null)
            command.addAll(java.util.List.of(
                    "-a", "127.0.0.1", "-p", String.valueOf(port), "-js", "-sd", storeDir.toString()));
        else if (jetStreamIn == JetStreamIn.COMMAND_LINE)
            command.addAll(java.util.List.of("-js", "-sd", storeDir.toString(), "-c", config.toString()));
        else command.addAll(java.util.List.of("-c", config.toString()));
        process = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(
                        storeDir.resolveSibling("nats-" + port + ".log").toFile()))
                .start();
        Instant until = Instant.now().plus(Duration.ofSeconds(20));
        while (Instant.now().isBefore(until)) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(50);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
        throw new IllegalStateException("nats-server did not listen on " + port);
    }

    void stop() throws InterruptedException {
        if (process == null) return;
        process.destroy();
        process.waitFor();
        process = null;
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}

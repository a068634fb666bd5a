package dev.baton.runner.integration;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * (The server module has its twin for its own tests; test classes do not cross modules.)
 * A real {@code nats-server} with JetStream on a free port, from the same binary operations run
 * (Debian's, /usr/sbin/nats-server), for tests that need a broker of their own: to restart it or
 * purge its stream without disturbing anyone else's. Its store directory survives a restart.
 */
public final class NatsServerProcess implements AutoCloseable {
    public static final Path BINARY = Path.of(System.getenv().getOrDefault("BATON_TEST_NATS_SERVER", "/usr/sbin/nats-server"));

    private final Path storeDir;
    private final int port;
    private Process process;

    public NatsServerProcess(Path storeDir) throws IOException {
        this.storeDir = storeDir;
        try (ServerSocket s = new ServerSocket(0)) {
            this.port = s.getLocalPort();
        }
        start();
    }

    public static boolean available() {
        return Files.isExecutable(BINARY);
    }

    public String url() {
        return "nats://127.0.0.1:" + port;
    }

    public void start() throws IOException {
        Files.createDirectories(storeDir);
        process = new ProcessBuilder(BINARY.toString(), "-a", "127.0.0.1", "-p", String.valueOf(port), "-js", "-sd", storeDir.toString())
                .redirectErrorStream(true).redirectOutput(storeDir.resolveSibling("nats-" + port + ".log").toFile()).start();
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

    public void stop() throws InterruptedException {
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

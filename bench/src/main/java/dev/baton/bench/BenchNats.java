package dev.baton.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;

/**
 * Debian's {@code nats-server} with JetStream on a free port of 127.0.0.1 for {@link LeaseBench}
 * ({@code BATON_BENCH_NATS_SERVER} names another binary); its store and log in the bench's
 * temporary directory. Stopped on close.
 */
final class BenchNats implements AutoCloseable {
    static final Path BINARY =
            Path.of(System.getenv().getOrDefault("BATON_BENCH_NATS_SERVER", "/usr/sbin/nats-server"));

    private final Process process;
    private final int port;

    private BenchNats(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    static BenchNats start(Path dir) throws IOException, InterruptedException {
        if (!Files.isExecutable(BINARY))
            throw new IOException(
                    "no nats-server at " + BINARY + " (Debian's nats-server package; BATON_BENCH_NATS_SERVER)");
        Files.createDirectories(dir);
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Process p = new ProcessBuilder(
                        BINARY.toString(),
                        "-a",
                        "127.0.0.1",
                        "-p",
                        Integer.toString(port),
                        "-js",
                        "-sd",
                        dir.resolve("store").toString())
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("nats.log").toFile())
                .start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (true) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return new BenchNats(p, port);
            } catch (IOException notYet) {
                if (!p.isAlive() || Instant.now().isAfter(deadline)) {
                    p.destroyForcibly();
                    throw new IOException("nats-server did not listen on " + port + "; see " + dir.resolve("nats.log"));
                }
                Thread.sleep(50);
            }
        }
    }

    String url() {
        return "nats://127.0.0.1:" + port;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor();
    }
}

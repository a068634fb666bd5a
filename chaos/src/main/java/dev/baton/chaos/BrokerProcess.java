package dev.baton.chaos;

import java.io.IOException;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The run's NATS broker: Debian's {@code nats-server} with JetStream on a free
 * port of 127.0.0.1, its store in the run's directory, so that a broker killed with SIGKILL and
 * started again keeps the stream it had written (as a broker on a disk of its own would).
 */
final class BrokerProcess {
    static final Path BINARY =
            Path.of(System.getenv().getOrDefault("BATON_CHAOS_NATS_SERVER", "/usr/sbin/nats-server"));

    private final int port;
    private final Path store;
    private final Path log;
    private Process process;

    BrokerProcess(Path dir) throws IOException {
        this.port = ServerNode.freePort();
        this.store = Files.createDirectories(dir.resolve("store"));
        this.log = dir.resolve("nats.log");
    }

    String url() {
        return "nats://127.0.0.1:" + port;
    }

    Path log() {
        return log;
    }

    synchronized void start() throws IOException, InterruptedException {
        if (!Files.isExecutable(BINARY))
            throw new IOException(
                    "no nats-server at " + BINARY + " (Debian's nats-server package; BATON_CHAOS_NATS_SERVER)");
        Files.writeString(log, "---- chaos: start nats-server\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        process = new ProcessBuilder(List.of(
                        BINARY.toString(),
                        "-a",
                        "127.0.0.1",
                        "-p",
                        Integer.toString(port),
                        "-js",
                        "-sd",
                        store.toString()))
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(30));
        while (true) {
            try (Socket ignored = new Socket("127.0.0.1", port)) {
                return;
            } catch (IOException notYet) {
                if (!process.isAlive()) throw new IOException("nats-server exited; see " + log);
                if (Instant.now().isAfter(deadline))
                    throw new IOException("nats-server not listening on " + port + "; see " + log);
                Thread.sleep(50);
            }
        }
    }

    synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    /** SIGKILL: what it had not written to its store is gone. */
    synchronized void kill() throws InterruptedException {
        if (process == null) return;
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    synchronized void terminate() throws InterruptedException {
        if (process == null || !process.isAlive()) return;
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) kill();
    }
}

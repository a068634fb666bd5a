package dev.baton.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.stream.Stream;

/**
 * The training run of the runner agent's class-data-sharing archive (decision 0074): the launcher
 * runs this once per agent jar and JVM with {@code -XX:ArchiveClassesAtExit}, on the agent's own
 * class path and JVM options, so the archive holds what an agent at rest loads (picocli's
 * {@code runner up}, Logback, the JDK HTTP client's WebSocket, the protocol's JSON, the process
 * executor, the machine and its outbox). It runs the real {@code runner up} in this process against
 * a {@link TrainingChannel} on a loopback port until the agent has heartbeated twice (about two
 * seconds), then exits: 0 when it got there, 1 when not within 20 s (the launcher then keeps no
 * archive). It prints nothing (the agent's log goes wherever the launcher sends standard error).
 */
public final class AgentTraining {
    /** A runner key of the right shape; the training channel does not check it. */
    private static final String KEY = "baton_runner_" + "0".repeat(64);

    private AgentTraining() {}

    public static void main(String[] args) throws Exception {
        boolean trained = train(Duration.ofSeconds(20));
        // The agent's threads are not daemons; the archive is written as the JVM exits.
        System.exit(trained ? 0 : 1);
    }

    /** Runs an agent against a training channel until it heartbeated twice; whether it did within {@code timeout}. */
    static boolean train(Duration timeout) throws IOException, InterruptedException {
        Path work = Files.createTempDirectory("baton-agent-training-");
        try (TrainingChannel channel = TrainingChannel.start(2)) {
            String[] args = {
                "runner",
                "up",
                "--server",
                channel.url().toString(),
                "--runner",
                "training",
                "--key",
                KEY,
                "--executor",
                "process",
                "--allow-no-sandbox",
                "--no-cpu-pinning",
                "--work-dir",
                work.toString()
            };
            Thread.ofPlatform().daemon().name("agent-training").start(() -> {
                var cli = Baton.commandLine(args);
                PrintWriter nowhere = new PrintWriter(Writer.nullWriter());
                cli.setOut(nowhere);
                cli.setErr(nowhere);
                cli.execute(args);
            });
            return channel.awaitHeartbeats(timeout);
        } finally {
            delete(work);
        }
    }

    private static void delete(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // A temporary directory left behind; the system's cleaning takes it.
        }
    }
}

package dev.baton.router.testing;

import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.update.Updater;
import java.net.URI;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * An unmodified runner agent (process executor) in a JVM of its own, so a test can kill it with
 * SIGKILL. Arguments: server (here: the router) URL, runner name, work directory; the key comes
 * in {@code BATON_TEST_RUNNER_KEY}.
 */
public final class RunnerMain {
    public static void main(String[] args) throws Exception {
        System.exit(agent(
                        URI.create(args[0]),
                        args[1],
                        RunnerKey.parse(System.getenv("BATON_TEST_RUNNER_KEY")),
                        Path.of(args[2]))
                .run());
    }

    /** The agent as {@code baton runner up --executor process} builds it, with a 1 s poll timeout. */
    public static RunnerAgent agent(URI server, String name, RunnerKey key, Path work) {
        var executor = new ProcessExecutor(
                work.resolve("work"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        return new RunnerAgent(
                MachineConfig.defaults("test").withPollTimeout(5),
                new RunnerAgent.Target(server, name, key),
                executor,
                new Outbox(work.resolve("outbox")),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200),
                work);
    }
}

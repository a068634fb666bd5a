package dev.baton.runner.testing;

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
 * A runner agent with the process executor in a JVM of its own, so a test can kill it with
 * SIGKILL. Arguments: server URL, work directory; the key comes in {@code BATON_TEST_RUNNER_KEY}.
 */
public final class AgentMain {
    public static void main(String[] args) throws Exception {
        Path work = Path.of(args[1]);
        RunnerKey key = RunnerKey.parse(System.getenv("BATON_TEST_RUNNER_KEY"));
        var executor = new ProcessExecutor(work, OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        var agent = new RunnerAgent(
                MachineConfig.defaults("test").withPollTimeout(1),
                new RunnerAgent.Target(URI.create(args[0]), "runner-1", key),
                executor,
                new Outbox(work.resolve("outbox")),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200),
                work);
        System.exit(agent.run());
    }
}

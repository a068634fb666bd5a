package dev.baton.runner.integration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.baton.channelclient.machine.Input;
import dev.baton.channelclient.outbox.Outbox;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.RunnerAgent;
import dev.baton.runner.executor.OutputLimits;
import dev.baton.runner.executor.ProcessExecutor;
import dev.baton.runner.machine.MachineConfig;
import dev.baton.runner.machine.RunnerMachine;
import dev.baton.runner.update.Updater;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What an operator reads in the runner's own log (issue 10): a line when it connects, saying to
 * which server, as which runner, for which specs and with which executor; and, when the server
 * refuses the key, which runner and how to give it a new key. Real agent, real server.
 */
class ConnectionLogTest {
    @TempDir
    Path dir;

    private BatonUnderTest baton;
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final ListAppender<ILoggingEvent> log = new ListAppender<>();
    private final Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);

    @BeforeEach
    void start() {
        log.start();
        root.addAppender(log);
        baton = new BatonUnderTest(dir.resolve("server"));
        String host = Architecture.ofHost().orElseThrow().wireName();
        baton.spec("small", host);
    }

    @AfterEach
    void stop() throws Exception {
        threads.shutdownNow();
        threads.awaitTermination(30, TimeUnit.SECONDS);
        baton.close();
        root.detachAppender(log);
    }

    private RunnerAgent agent(String runner, RunnerKey key) {
        var executor = new ProcessExecutor(
                dir.resolve("work"), OutputLimits.DEFAULT, Optional.empty(), Clock.systemUTC(), true);
        return new RunnerAgent(
                MachineConfig.defaults("test"),
                new RunnerAgent.Target(baton.url(), runner, key),
                executor,
                new Outbox(dir.resolve("outbox")),
                Updater.unsupported("test"),
                Clock.systemUTC(),
                Duration.ofMillis(200));
    }

    private List<String> lines() {
        return log.list.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    @Test
    void onConnectTheRunnerSaysWhereAsWhomForWhichSpecsAndWithWhichExecutor() throws Exception {
        RunnerAgent agent = agent("bench-1", baton.runner("bench-1", "small").key());
        Future<Integer> exit = threads.submit(agent::run);

        String expected = "connected to " + baton.url() + " as bench-1, serving small, executor process";
        await().atMost(Duration.ofSeconds(30)).until(() -> lines().contains(expected));

        agent.signal(Input.Signal.TERMINATE);
        assertThat(exit.get(30, TimeUnit.SECONDS)).isZero();
    }

    @Test
    void aRefusedKeyIsLoggedWithTheRunnerAndHowToRotateItsKey() throws Exception {
        baton.post("/v0/runners", Map.of("name", "bench-2"));
        Future<Integer> exit = threads.submit(agent("bench-2", RunnerKey.generate())::run);

        assertThat(exit.get(30, TimeUnit.SECONDS)).isEqualTo(RunnerMachine.EXIT_REFUSED);
        assertThat(lines())
                .anySatisfy(line -> assertThat(line)
                        .contains("HTTP 401")
                        .contains("runner 'bench-2'")
                        .contains("baton runners rotate-key bench-2"));
    }
}

package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Paired runs from the command line (issue 45, docs/paired-runs.md) on the local runner of
 * {@code baton up} (process executor): {@code run --baseline … --wait} prints the pairs and the
 * verdict; with {@code --fail-on-regression} a slower candidate exits 8 and an unchanged one 0.
 * The slower candidate sleeps 200 ms where the baseline sleeps 10 ms, both timing themselves.
 */
class RunPairedTest {
    @TempDir
    Path dir;

    BatonServer server;
    LocalInstallation local;
    CliEnvironment environment;

    @BeforeEach
    void start() throws Exception {
        server = ServerAssembly.builder(
                        ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0), Clock.systemUTC())
                .start();
        String url = server.publicUrl();
        String token = Files.readString(dir.resolve("data/admin-token")).strip();
        local = LocalInstallation.start(url, token, dir.resolve("data"));
        environment = CliRun.environment(dir, Map.of("BATON_SERVER", url, "BATON_TOKEN", token));
    }

    @AfterEach
    void stop() {
        if (local != null) local.close();
        if (server != null) server.close();
    }

    private static String timedSleep(String seconds) {
        return "s=$(date +%s%N); sleep " + seconds + "; e=$(date +%s%N);"
                + " echo \"{\\\"work\\\":{\\\"latency\\\":{\\\"value\\\":$((e - s))}}}\"";
    }

    private CliRun.Result paired(String baselineSleep, String candidateSleep, String... extra) {
        List<String> args = new java.util.ArrayList<>(List.of(
                "run",
                "--project",
                "local",
                "--spec",
                "local",
                "--poll-interval",
                "50ms",
                "--wait",
                "--baseline",
                "sh -c '" + timedSleep(baselineSleep) + "'"));
        args.addAll(List.of(extra));
        args.addAll(List.of("--", "sh", "-c", timedSleep(candidateSleep)));
        return CliRun.run(environment, args.toArray(String[]::new));
    }

    @Test
    void aSlowerCandidateFailsWithExitEightAndThePairsArePrinted() {
        CliRun.Result r = paired("0.01", "0.2", "--pairs", "3", "--fail-on-regression");

        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.ALERT);
        assertThat(r.out()).containsPattern("PAIR +ORDER +BENCHMARK +MEASURE +BASELINE +CANDIDATE");
        assertThat(r.out()).containsPattern("(?m)^0 +(AB|BA) +work +latency +\\d+ +\\d+$");
        assertThat(r.out()).containsPattern("(?m)^2 +(AB|BA) +work +latency ");
        assertThat(r.out())
                .containsPattern(
                        "BENCHMARK +MEASURE +PAIRS +BASELINE +CANDIDATE +DIFFERENCE +CHANGE +95% INTERVAL +VERDICT");
        assertThat(r.out()).containsPattern("(?m)^work +latency +3 +.*\\] +slower$");
        assertThat(r.out()).contains("3 pairs; mean differences, paired t 95 % intervals.");
        assertThat(r.err()).contains("slower than the baseline on work latency").contains("--fail-on-regression");
    }

    @Test
    void anUnchangedCandidateUntilSignificantExitsZero() {
        String same = "echo {\\\"work\\\":{\\\"latency\\\":{\\\"value\\\":1000}}}";
        CliRun.Result r = CliRun.run(
                environment,
                "run",
                "--project",
                "local",
                "--spec",
                "local",
                "--poll-interval",
                "50ms",
                "--wait",
                "--baseline",
                "sh -c '" + same + "'",
                "--until-significant",
                "--budget",
                "5m",
                "--min-effect",
                "2%",
                "--fail-on-regression",
                "--",
                "sh",
                "-c",
                same);

        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        assertThat(r.out())
                .containsPattern(
                        "(?m)^work +latency +8 +1000 +1000 +0 +\\+0\\.00 % +\\[0, 0\\] +no change at this noise$");
        assertThat(r.out())
                .contains("Until significant: 8 of at most 200 pairs, stopped because every metric decided;"
                        + " median differences, always-valid 95 % intervals (minimum effect 2.000 %).");
    }

    /** docs/paired-runs.md's worked example: each side prints its pair's value from a list. */
    @Test
    void theWorkedExampleOfTheDocsIsSlowerByFivePercent() {
        String a = "set -- 100 102 98 101 99; shift $BATON_PAIR;"
                + " echo {\\\"sort\\\":{\\\"latency\\\":{\\\"value\\\":$1}}}";
        String b = "set -- 105 106 104 107 103; shift $BATON_PAIR;"
                + " echo \"{\\\"sort\\\":{\\\"latency\\\":{\\\"value\\\":$1}}}\"";
        CliRun.Result r = CliRun.run(
                environment,
                "run",
                "--project",
                "local",
                "--spec",
                "local",
                "--poll-interval",
                "50ms",
                "--wait",
                "--fail-on-regression",
                "--baseline",
                "sh -c '" + a + "'",
                "--pairs",
                "5",
                "--",
                "sh",
                "-c",
                b);

        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.ALERT);
        assertThat(r.out()).containsPattern("(?m)^0 +(AB|BA) +sort +latency +100 +105$");
        assertThat(r.out()).containsPattern("(?m)^4 +(AB|BA) +sort +latency +99 +103$");
        assertThat(r.out())
                .containsPattern(
                        "(?m)^sort +latency +5 +100 +105 +5 +\\+5\\.00 % +\\[3\\.75833\\d*, 6\\.24166\\d*\\] +slower$");
        assertThat(r.out()).contains("5 pairs; mean differences, paired t 95 % intervals.");
        assertThat(r.err()).contains("the candidate is slower than the baseline on sort latency");
    }

    @Test
    void baselineImageGoesInTheBaselineObjectBesideItsCommand() {
        RunOptions both = new RunOptions();
        new picocli.CommandLine(both)
                .parseArgs("--project", "p", "--image", "v2", "--baseline-image", "v1", "--baseline", "./bench --old");
        assertThat(both.body()).containsEntry("baseline", Map.of("image", "v1", "cmd", List.of("./bench", "--old")));
        RunOptions imageOnly = new RunOptions();
        new picocli.CommandLine(imageOnly).parseArgs("--project", "p", "--image", "v2", "--baseline-image", "v1");
        assertThat(imageOnly.body()).containsEntry("baseline", Map.of("image", "v1"));
        RunOptions commandOnly = new RunOptions();
        new picocli.CommandLine(commandOnly).parseArgs("--project", "p", "--baseline", "old");
        assertThat(commandOnly.body()).containsEntry("baseline", Map.of("cmd", List.of("old")));
        RunOptions none = new RunOptions();
        new picocli.CommandLine(none).parseArgs("--project", "p");
        assertThat(none.body()).doesNotContainKey("baseline");
    }

    @Test
    void aBaselineImageForARunWithoutAnImageIsRefusedByTheServer() {
        // The local runner runs commands (process executor): a baseline image there could never run.
        CliRun.Result r = CliRun.run(
                environment,
                "run",
                "--project",
                "local",
                "--spec",
                "local",
                "--baseline-image",
                "v1",
                "--",
                "sh",
                "-c",
                "true");

        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(r.err()).contains("baseline.image needs the run's own image");
    }

    @Test
    void wordsSplitAsAShellSplitsThem() {
        assertThat(Words.split("sh -c 'echo \"a b\"' x\\ y \"q\\\"r\""))
                .containsExactly("sh", "-c", "echo \"a b\"", "x y", "q\"r");
    }
}

package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

/** How the CLI behaves toward a person: help, typos, taken ports, completion, config, one-line errors. */
class CliMannersTest {
    @TempDir
    Path dir;

    CliRun.Result baton(String... args) {
        return CliRun.run(CliRun.environment(dir, Map.of()), args);
    }

    /** Every command path of the model: [], [up], [runners], [runners, create], … */
    static List<List<String>> commandPaths(CommandLine cli, List<String> prefix) {
        List<List<String>> all = new ArrayList<>();
        all.add(prefix);
        cli.getSubcommands().forEach((name, sub) -> {
            List<String> next = new ArrayList<>(prefix);
            next.add(name);
            all.addAll(commandPaths(sub, next));
        });
        return all;
    }

    @Test
    void helpExitsZeroOnEveryCommandEvenWithRequiredOptions() {
        List<List<String>> paths = commandPaths(Baton.commandLine(CliRun.environment(dir, Map.of())), List.of());
        assertThat(paths)
                .hasSizeGreaterThan(30)
                .contains(List.of("runners", "create"), List.of("run"), List.of("jobs", "logs"));
        for (List<String> path : paths) {
            List<String> args = new ArrayList<>(path);
            args.add("--help");
            CliRun.Result r = baton(args.toArray(String[]::new));
            assertThat(r.exit()).as(String.join(" ", args) + ": " + r.err()).isZero();
            assertThat(r.out())
                    .as(String.join(" ", args))
                    .contains("Usage: baton" + (path.isEmpty() ? "" : " " + String.join(" ", path)));
        }
    }

    @Test
    void aMistypedOptionOrCommandIsNamedWithItsNearestMatch() {
        CliRun.Result option = baton("jobs", "list", "--projetc", "web");
        assertThat(option.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(option.err())
                .startsWith("baton: unknown option '--projetc' for 'baton jobs list' (did you mean '--project'?)");

        CliRun.Result command = baton("jbos", "list");
        assertThat(command.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(command.err()).contains("unknown command 'jbos'").contains("did you mean 'jobs'?");

        // the typo is what to report, not the required option it left missing
        CliRun.Result required = baton("runners", "create", "--nmae", "x");
        assertThat(required.err())
                .contains("unknown option '--nmae'")
                .contains("did you mean '--name'?")
                .doesNotContain("Missing");

        CliRun.Result sub = baton("runners", "crate", "--name", "x");
        assertThat(sub.err()).contains("did you mean 'create'?");

        CliRun.Result valued = baton("run", "--project", "p", "--wiat=yes");
        assertThat(valued.err()).contains("unknown option '--wiat'").contains("did you mean '--wait'?");

        assertThat(baton("jobs", "list", "--zzzzzzzz").err())
                .contains("unknown option '--zzzzzzzz'")
                .doesNotContain("did you mean");
    }

    @Test
    void nearestMatchCountsASwapAsOneEdit() {
        assertThat(NearestMatch.distance("projetc", "project")).isEqualTo(1);
        assertThat(NearestMatch.of("--spce", List.of("--spec", "--server", "--json")))
                .contains("--spec");
        assertThat(NearestMatch.of("xyz", List.of("jobs", "runners"))).isEmpty();
    }

    @Test
    void aTakenPortSaysToUsePort() {
        try (BatonServer taken = BatonServer.builder(
                        ServerConfig.defaults(dir.resolve("a")).withListen("127.0.0.1", 0))
                .start()) {
            String port = String.valueOf(taken.port());
            CliRun.Result server = baton(
                    "server", "--port", port, "--data-dir", dir.resolve("b").toString());
            assertThat(server.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
            assertThat(server.err())
                    .contains("cannot start the server")
                    .contains("port " + port)
                    .contains("--port");

            CliRun.Result up =
                    baton("up", "--port", port, "--data-dir", dir.resolve("c").toString());
            assertThat(up.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
            assertThat(up.err()).contains("--port");
        }
    }

    @Test
    void unexpectedErrorsAreOneLineUnlessVerbose() throws Exception {
        // a config file line the CLI does not know is a client error: one line, no trace
        Path config = Files.writeString(dir.resolve("config"), "servr = http://x\n");
        Map<String, String> env = Map.of("BATON_CLI_CONFIG", config.toString());
        CliRun.Result r = CliRun.run(CliRun.environment(dir, env), "runners", "list");
        assertThat(r.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(r.err().strip())
                .startsWith("baton: ")
                .contains("line 1")
                .contains("servr")
                .doesNotContain("\n")
                .doesNotContain("at dev.baton");

        // a bad server URL is a fault picocli does not know; with --verbose the trace follows
        CliRun.Result quiet = CliRun.run(
                CliRun.environment(dir, Map.of("BATON_TOKEN", "t")), "runners", "list", "--server", "http://[bad");
        assertThat(quiet.err().strip()).startsWith("baton: ").doesNotContain("\tat ");
        CliRun.Result verbose = CliRun.run(
                CliRun.environment(dir, Map.of("BATON_TOKEN", "t")),
                "runners",
                "list",
                "--server",
                "http://[bad",
                "--verbose");
        assertThat(verbose.err()).contains("\tat ");
    }

    @Test
    void completionScriptsForBashZshAndFish() {
        CliRun.Result bash = baton("completion", "bash");
        assertThat(bash.exit()).isZero();
        assertThat(bash.out()).contains("complete -F").contains("jobs").contains("--wait");
        assertThat(baton("completion", "zsh").out())
                .startsWith("autoload -U +X compinit")
                .contains("bashcompinit")
                .contains("complete -F");
        String fish = baton("completion", "fish").out();
        assertThat(fish)
                .contains("complete -c baton -n '__fish_use_subcommand' -a jobs")
                .contains(
                        "complete -c baton -n '__fish_seen_subcommand_from jobs; and not __fish_seen_subcommand_from list get logs cancel rerun' -a logs")
                .contains(
                        "complete -c baton -n '__fish_seen_subcommand_from jobs; and __fish_seen_subcommand_from logs' -s f -l follow")
                .contains("-a 'bash zsh fish'");
        assertThat(baton("completion", "tcsh").exit()).isEqualTo(ExitCodes.USAGE);
    }

    @Test
    void theServerLogGoesToItsFileAndComesBack() throws Exception {
        Path file = dir.resolve("data/server.log");
        org.slf4j.Logger log = LoggerFactory.getLogger("dev.baton.cli.test");
        ch.qos.logback.classic.Logger root =
                (ch.qos.logback.classic.Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
        List<String> before = appenders(root);
        try (ServerLog.Redirect redirect = ServerLog.toFile(file, false)) {
            assertThat(appenders(root)).containsExactly("baton-server-log");
            log.warn("written while redirected");
        }
        log.warn("written after");
        assertThat(Files.readString(file)).contains("written while redirected").doesNotContain("written after");
        assertThat(appenders(root)).isEqualTo(before);
    }

    private static List<String> appenders(ch.qos.logback.classic.Logger root) {
        List<String> names = new ArrayList<>();
        root.iteratorForAppenders().forEachRemaining(a -> names.add(a.getName()));
        return names;
    }
}

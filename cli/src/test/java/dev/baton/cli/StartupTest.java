package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * What start-up leaves out (issue 11): a call builds the picocli model only of the subcommand it
 * names, yet usage, help and mistyped commands still see every command; and the training run of
 * the launcher's class-data-sharing archive runs its commands without failing.
 */
class StartupTest {
    @Test
    void aCallBuildsOnlyTheSubcommandItNames() {
        assertThat(Baton.commandLine(new String[] {"jobs", "list", "--project", "p"})
                        .getSubcommands())
                .containsOnlyKeys("jobs");
        assertThat(Baton.commandLine(new String[] {"runners", "--help"}).getSubcommands())
                .containsOnlyKeys("runners");
        assertThat(Baton.commandLine(new String[] {"--version"}).getSubcommands())
                .isEmpty();
    }

    @Test
    void eachSubcommandsNameIsTheOneItsCommandAnnotationGives() {
        assertThat(Baton.SUBCOMMANDS)
                .allSatisfy(command -> assertThat(command.type()
                                .getAnnotation(CommandLine.Command.class)
                                .name())
                        .isEqualTo(command.name()));
    }

    /**
     * Finding the named subcommand reads no other command's annotation, which would load the classes
     * of all its subcommands (decision 0078): a fresh JVM, {@code -Xlog:class+load}, {@code runner --help}.
     */
    @Test
    void aCallLoadsTheClassesOfNoOtherCommand() throws Exception {
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process process = new ProcessBuilder(
                        java,
                        "-Xlog:class+load=info",
                        "-cp",
                        System.getProperty("java.class.path"),
                        Baton.class.getName(),
                        "runner",
                        "--help")
                .redirectErrorStream(true)
                .start();
        String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();

        assertThat(out).contains("dev.baton.cli.runner.RunnerCommand ");
        assertThat(out).doesNotContain("dev.baton.cli.JobsCommand$").doesNotContain("dev.baton.cli.RunnersCommand$");
    }

    @Test
    void helpNoCommandAndUnknownCommandsSeeEveryCommand() {
        int all = Baton.SUBCOMMANDS.size();
        assertThat(Baton.commandLine(new String[] {}).getSubcommands()).hasSize(all);
        assertThat(Baton.commandLine(new String[] {"help", "jobs"}).getSubcommands())
                .hasSize(all);
        assertThat(Baton.commandLine(new String[] {"jbos"}).getSubcommands()).hasSize(all);
        assertThat(Baton.commandLine(new String[] {"--verbose", "jobs"}).getSubcommands())
                .hasSize(all);
    }

    @Test
    void versionAndUsageStillWork() {
        StringWriter out = new StringWriter();
        var version = Baton.commandLine(new String[] {"--version"});
        version.setOut(new PrintWriter(out));
        assertThat(version.execute("--version")).isZero();
        assertThat(out.toString()).startsWith("baton ");

        StringWriter usage = new StringWriter();
        var none = Baton.commandLine(new String[] {});
        none.setOut(new PrintWriter(usage));
        assertThat(none.execute()).isZero();
        assertThat(usage.toString()).contains("jobs").contains("runners").contains("server");
    }

    @Test
    void theTrainingRunCompletes() throws Exception {
        StartupTraining.main(new String[0]);
    }
}

package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

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

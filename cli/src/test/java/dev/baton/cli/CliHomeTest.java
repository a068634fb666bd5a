package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Where the CLI's config lives: under $HOME, as for every other command-line tool. */
class CliHomeTest {
    @Test
    void homeIsDollarHomeFirst() {
        assertThat(CliEnvironment.home(Map.of("HOME", "/tmp/elsewhere"), "/root"))
                .isEqualTo(Path.of("/tmp/elsewhere"));
        assertThat(CliEnvironment.home(Map.of("HOME", " "), "/root")).isEqualTo(Path.of("/root"));
        assertThat(CliEnvironment.home(Map.of(), "/root")).isEqualTo(Path.of("/root"));
    }

    @Test
    void theConfigFileFollowsDollarHome() {
        Map<String, String> env = Map.of("HOME", "/tmp/elsewhere");
        CliEnvironment e = new CliEnvironment(env, CliEnvironment.home(env, "/root"), null, null, false);
        assertThat(e.configFile()).isEqualTo(Path.of("/tmp/elsewhere/.config/baton/config"));
    }
}

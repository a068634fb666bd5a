package dev.baton.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.util.Map;

/**
 * What the CLI takes from the process it runs in, gathered in one place so that tests pass their
 * own: environment variables, the home directory (for the config file), the clock, standard input
 * and whether a person is at a terminal (which decides live status lines and the Ctrl-C question).
 */
record CliEnvironment(Map<String, String> env, Path home, Clock clock, BufferedReader stdin, boolean terminal) {

    static CliEnvironment system() {
        return new CliEnvironment(
                System.getenv(),
                home(System.getenv(), System.getProperty("user.home", ".")),
                Clock.systemUTC(),
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
                System.console() != null);
    }

    /**
     * {@code $HOME} when it is set, else the JVM's {@code user.home}: every other command-line tool
     * honours {@code $HOME} (the JVM reads the password database instead, so {@code HOME=/tmp/x baton
     * login} would write to the real home).
     */
    static Path home(Map<String, String> env, String userHome) {
        String home = env.get("HOME");
        return Path.of(home == null || home.isBlank() ? userHome : home.strip());
    }

    String env(String name) {
        String v = env.get(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    /** $BATON_CLI_CONFIG, else $XDG_CONFIG_HOME/baton/config, else ~/.config/baton/config. */
    Path configFile() {
        if (env("BATON_CLI_CONFIG") != null) return Path.of(env("BATON_CLI_CONFIG"));
        Path base = env("XDG_CONFIG_HOME") != null ? Path.of(env("XDG_CONFIG_HOME")) : home.resolve(".config");
        return base.resolve("baton").resolve("config");
    }
}

package dev.baton.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner agent's class-data-sharing archive (decision 0074): the launcher makes it by a
 * training run before the first {@code runner up} of a jar and JVM, and adds it to the agent's
 * options only while neither the jar, its {@code lib/} nor the JVM is newer. A fake {@code java}
 * logs each call and, for a training ({@code -XX:ArchiveClassesAtExit=FILE}), writes FILE unless
 * told to fail; the last test runs the real training and a real JVM on this build's jars.
 */
class AgentArchiveTest {
    private static final Path TARGET = Path.of(System.getProperty("baton.root"), "cli", "target");
    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    @TempDir
    Path dir;

    Path install, home, cache, calls;

    @BeforeEach
    void installation() throws Exception {
        install = Files.createDirectories(dir.resolve("baton"));
        Files.writeString(install.resolve("baton.jar"), "");
        Files.writeString(install.resolve("baton-agent.jar"), "");
        Files.createDirectories(install.resolve("lib"));
        Files.writeString(install.resolve("lib/baton-runner-1.jar"), "");
        home = Files.createDirectories(dir.resolve("jdk/bin")).getParent();
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"25\"\n");
        calls = dir.resolve("calls");
        Path fake = Files.writeString(home.resolve("bin/java"), """
                #!/bin/bash
                echo "$*" >> "$CALLS"
                for a in "$@"; do
                    case "$a" in
                        -XX:ArchiveClassesAtExit=*) [ -n "$FAIL_TRAINING" ] && exit 1; echo archive > "${a#*=}"; exit 0 ;;
                    esac
                done
                echo "$*"
                """);
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        cache = dir.resolve("cache");
        for (Path p : List.of(
                install.resolve("baton.jar"),
                install.resolve("baton-agent.jar"),
                install.resolve("lib/baton-runner-1.jar"),
                home.resolve("release"))) age(p, 0);
    }

    private static void age(Path p, long seconds) throws Exception {
        Files.setLastModifiedTime(p, FileTime.from(T0.plusSeconds(seconds)));
    }

    private Path archive() throws Exception {
        try (Stream<Path> files = Files.list(cache)) {
            return files.filter(p -> p.getFileName().toString().matches("cds-agent-.*\\.jsa"))
                    .findFirst()
                    .orElse(null);
        }
    }

    /** What the launcher runs for {@code args} (the fake java's last line), with {@code env} added. */
    private String launched(List<String> env, String... args) throws Exception {
        Map<String, String> all = new java.util.HashMap<>();
        all.put("BATON_CACHE_DIR", cache.toString());
        all.put("CALLS", calls.toString());
        for (String e : env) all.put(e.substring(0, e.indexOf('=')), e.substring(e.indexOf('=') + 1));
        return LauncherCall.run(install, home, all, List.of(args));
    }

    private long trainings() throws Exception {
        if (!Files.exists(calls)) return 0;
        return Files.readAllLines(calls).stream()
                .filter(l -> l.contains("dev.baton.cli.AgentTraining"))
                .count();
    }

    @Test
    void theFirstRunnerUpTrainsTheArchiveWithTheAgentsOptionsAndUsesIt() throws Exception {
        String run = launched(List.of(), "runner", "up", "--runner", "r1");

        assertThat(trainings()).isOne();
        String training = Files.readAllLines(calls).getFirst();
        assertThat(training)
                .contains("-XX:+UseSerialGC")
                .contains("-Djdk.internal.httpclient.selectorTimeout=30000")
                .contains("-XX:ArchiveClassesAtExit=" + cache.resolve("cds-agent-"))
                .endsWith("-cp " + install.resolve("baton-agent.jar") + " dev.baton.cli.AgentTraining");
        Path archive = archive();
        assertThat(archive).isNotNull().content().isEqualTo("archive\n");
        assertThat(run)
                .contains("-XX:SharedArchiveFile=" + archive + " -Xlog:cds=off -Xlog:cds+dynamic=off")
                .endsWith("-jar " + install.resolve("baton-agent.jar") + " runner up --runner r1");
        try (Stream<Path> files = Files.list(cache)) {
            assertThat(files).noneMatch(p -> p.toString().endsWith(".tmp"));
        }

        // The next start uses it as it is.
        assertThat(launched(List.of(), "runner", "up")).contains("-XX:SharedArchiveFile=" + archive);
        assertThat(trainings()).isOne();
    }

    @Test
    void aNewerJarLibraryOrJvmMakesItAgain() throws Exception {
        launched(List.of(), "runner", "up");
        Path archive = archive();
        long at = 10;
        for (Path newer : List.of(
                install.resolve("baton-agent.jar"),
                install.resolve("lib/baton-runner-1.jar"),
                home.resolve("release"))) {
            age(archive, at);
            age(newer, at + 5);
            long before = trainings();
            assertThat(launched(List.of(), "runner", "up")).as(newer.toString()).contains("-XX:SharedArchiveFile=");
            assertThat(trainings()).as(newer.toString()).isEqualTo(before + 1);
            at += 10;
        }
    }

    @Test
    void aFailedTrainingLeavesNoArchiveAndTheAgentStartsWithout() throws Exception {
        String run = launched(List.of("FAIL_TRAINING=1"), "runner", "up");

        assertThat(trainings()).isOne();
        assertThat(archive()).isNull();
        assertThat(run).doesNotContain("SharedArchiveFile").endsWith("baton-agent.jar runner up");
        try (Stream<Path> files = Files.list(cache)) {
            assertThat(files).noneMatch(p -> p.toString().endsWith(".tmp"));
        }
    }

    @Test
    void offWithBatonCdsAndNeverForOtherCommands() throws Exception {
        assertThat(launched(List.of("BATON_CDS=off"), "runner", "up")).doesNotContain("SharedArchiveFile");
        assertThat(launched(List.of(), "server")).doesNotContain("SharedArchiveFile");
        assertThat(trainings()).isZero();
    }

    /**
     * The real training on this build's agent jar: it succeeds and its archive is one the JVM maps
     * for the agent; an archive that is not one (or not this jar's) does not stop the agent's start.
     */
    @Test
    void theRealTrainingMakesAnArchiveAndABadOneIsSkipped() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path jar = TARGET.resolve("baton-agent.jar");
        Path archive = dir.resolve("agent.jsa");
        Process training = new ProcessBuilder(
                        java.toString(),
                        "-XX:+UseSerialGC",
                        "-XX:ArchiveClassesAtExit=" + archive,
                        "-cp",
                        jar.toString(),
                        "dev.baton.cli.AgentTraining")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("training.log").toFile())
                .start();
        assertThat(training.waitFor())
                .as(Files.readString(dir.resolve("training.log")))
                .isZero();
        assertThat(Files.size(archive)).isGreaterThan(1 << 20);

        assertThat(started(java, jar, archive, "-Xlog:class+load=info"))
                .contains("dev.baton.cli.runner.UpCommand source: shared objects file (top)");
        // What an agent at rest loads after it connected is in it too: the training ran the real agent.
        assertThat(archived(java, jar, archive))
                .contains(" dev.baton.protocol.message.Wire ")
                .contains(" dev.baton.channelclient.connection.ChannelClient ")
                .contains(" jdk.internal.net.http.websocket.WebSocketImpl ");
        Files.writeString(dir.resolve("bad.jsa"), "not an archive");
        assertThat(started(java, jar, dir.resolve("bad.jsa"), "-Xlog:cds=off", "-Xlog:cds+dynamic=off"))
                .isEqualTo("Usage: baton runner up");
        assertThat(started(java, TARGET.resolve("baton.jar"), archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off"))
                .isEqualTo("Usage: baton runner up");
    }

    /** The classes in {@code archive}, as the JVM lists them. */
    private static String archived(Path java, Path jar, Path archive) throws Exception {
        Process p = new ProcessBuilder(
                        java.toString(),
                        "-XX:+UseSerialGC",
                        "-XX:SharedArchiveFile=" + archive,
                        "-XX:+PrintSharedArchiveAndExit",
                        "-cp",
                        jar.toString())
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        p.waitFor();
        return out;
    }

    /** {@code runner up --help}'s output up to its usage line's command, with an archive and logging. */
    private static String started(Path java, Path jar, Path archive, String... logging) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-XX:+UseSerialGC", "-XX:SharedArchiveFile=" + archive);
        pb.command().addAll(List.of(logging));
        pb.command().addAll(List.of("-jar", jar.toString(), "runner", "up", "--help"));
        Process p = pb.redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        return out.contains("Usage: baton runner up") && !out.contains("[class,load]")
                ? out.substring(0, out.indexOf("Usage: baton runner up") + "Usage: baton runner up".length())
                : out;
    }
}

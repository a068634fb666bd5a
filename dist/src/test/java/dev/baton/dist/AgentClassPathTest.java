package dev.baton.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The runner agent's own class path (decision 0073): {@code baton-agent.jar} holds the command
 * line's classes with a manifest that names only the runner's jars, so {@code runner up} does not
 * open the server's. The jars of this build stand in for an installation (the archive has the same
 * layout: both jars beside {@code lib/}); a fake {@code java} that prints its arguments shows what
 * the launcher starts.
 */
class AgentClassPathTest {
    private static final Path TARGET = Path.of(System.getProperty("baton.root"), "cli", "target");

    @TempDir
    Path dir;

    /** Every jar the agent's class path reaches, following each jar's manifest {@code Class-Path}, by file name. */
    private static Set<String> closure(Path jar) throws IOException {
        Set<String> seen = new LinkedHashSet<>();
        Deque<Path> todo = new ArrayDeque<>(Set.of(jar));
        while (!todo.isEmpty()) {
            Path next = todo.pop();
            assertThat(next).as("a jar named by a manifest's Class-Path").isRegularFile();
            if (!seen.add(next.getFileName().toString())) continue;
            try (JarFile file = new JarFile(next.toFile())) {
                Manifest manifest = file.getManifest();
                String classPath =
                        manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
                if (classPath == null) continue;
                for (String entry : classPath.trim().split("\\s+"))
                    todo.push(next.getParent().resolve(entry).normalize());
            }
        }
        return seen;
    }

    @Test
    void theAgentJarReachesTheRunnersJarsAndNoneOfTheServers() throws IOException {
        Set<String> jars = closure(TARGET.resolve("baton-agent.jar"));

        assertThat(jars)
                .anyMatch(j -> j.startsWith("baton-runner-"))
                .anyMatch(j -> j.startsWith("baton-protocol-"))
                .anyMatch(j -> j.startsWith("baton-channel-client-"))
                .anyMatch(j -> j.startsWith("picocli-"))
                .anyMatch(j -> j.startsWith("logback-classic-"))
                .anyMatch(j -> j.startsWith("jackson-databind-"))
                .anyMatch(j -> j.startsWith("jnats-"));
        assertThat(jars)
                .noneMatch(j -> j.startsWith("baton-server-"))
                .noneMatch(j -> j.startsWith("baton-store-"))
                .noneMatch(j -> j.startsWith("baton-console-"))
                .noneMatch(j -> j.startsWith("jetty-"))
                .noneMatch(j -> j.startsWith("postgresql-"))
                .noneMatch(j -> j.startsWith("sqlite-jdbc-"))
                .noneMatch(j -> j.startsWith("s3-"));
        // The whole command line's class path, for scale: the agent's is a small part of it.
        assertThat(jars.size()).isLessThan(closure(TARGET.resolve("baton.jar")).size() / 3);
    }

    @Test
    void theAgentJarStartsTheRunnerCommand() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(
                        java.toString(),
                        "-jar",
                        TARGET.resolve("baton-agent.jar").toString(),
                        "runner",
                        "up",
                        "--help")
                .redirectErrorStream(true)
                .start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(out).isZero();
        assertThat(out).contains("Usage: baton runner up").contains("--executor");
    }

    /** What the launcher's {@code baton_exec} runs for {@code args}, with a fake java that prints its arguments. */
    private String launched(Path install, String... args) throws Exception {
        Path home = dir.resolve("jdk");
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("release"), "JAVA_VERSION=\"25\"\n");
        Path fake = Files.writeString(home.resolve("bin/java"), "#!/bin/sh\necho \"$@\"\n");
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwxr-xr-x"));
        return LauncherCall.run(install, home, Map.of("BATON_CDS", "off"), List.of(args));
    }

    @Test
    void theLauncherStartsRunnerUpFromTheAgentJarWhenItIsThere() throws Exception {
        Path install = Files.createDirectories(dir.resolve("baton"));
        Files.writeString(install.resolve("baton.jar"), "");

        assertThat(launched(install, "runner", "up", "--runner", "r1"))
                .endsWith("-jar " + install.resolve("baton.jar") + " runner up --runner r1");

        Files.writeString(install.resolve("baton-agent.jar"), "");
        assertThat(launched(install, "runner", "up", "--runner", "r1"))
                .contains("-Djdk.internal.httpclient.selectorTimeout=30000")
                .endsWith("-jar " + install.resolve("baton-agent.jar") + " runner up --runner r1");
        // Every other command, the server included, keeps the whole class path.
        assertThat(launched(install, "server")).endsWith("-jar " + install.resolve("baton.jar") + " server");
        assertThat(launched(install, "jobs", "list")).endsWith("-jar " + install.resolve("baton.jar") + " jobs list");
    }
}

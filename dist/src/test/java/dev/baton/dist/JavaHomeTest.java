package dev.baton.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Java search shared by ./baton, scripts/test and the distribution's bin/baton (and so the
 * systemd unit): JAVA_HOME when it is 21 or newer, else the newest 21+ under the JVM directory,
 * never a JDK 17, and a message naming what was checked when there is none. Fake Java
 * installations (a {@code release} file and an executable {@code bin/java}) stand in for real ones.
 */
class JavaHomeTest {
    @TempDir
    Path dir;

    private Path java(String name, String version) throws IOException {
        Path home = dir.resolve("jvm").resolve(name);
        Files.createDirectories(home.resolve("bin"));
        Files.writeString(home.resolve("release"), "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"" + version + "\"\n");
        Path java = Files.writeString(home.resolve("bin/java"), "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(java, PosixFilePermissions.fromString("rwxr-xr-x"));
        return home;
    }

    record Found(int exit, String javaHome, String err) {}

    private Found find(String javaHome) throws Exception {
        Path script = Path.of(System.getProperty("baton.root"), "scripts", "java-home.sh");
        ProcessBuilder pb = new ProcessBuilder(
                "bash", "-c", ". \"$1\"; baton_find_java && echo \"$JAVA_HOME\"", "find", script.toString());
        Map<String, String> env = pb.environment();
        env.remove("JAVA_HOME");
        if (javaHome != null) env.put("JAVA_HOME", javaHome);
        env.put("BATON_JVM_ROOT", dir.resolve("jvm").toString());
        Path err = dir.resolve("err.txt");
        Process p = pb.redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        return new Found(p.waitFor(), out, Files.readString(err));
    }

    @Test
    void theNewestJava21OrLaterUnderTheJvmDirectoryWhenJavaHomeIsTooOld() throws Exception {
        Path jdk17 = java("java-17-openjdk-amd64", "17.0.15");
        java("temurin-21-jdk-amd64", "21.0.5");
        Path jdk25 = java("temurin-25-jdk-amd64", "25.0.3");
        assertThat(find(jdk17.toString()).javaHome()).isEqualTo(jdk25.toString());
        assertThat(find(null).javaHome()).isEqualTo(jdk25.toString());
    }

    @Test
    void javaHomeWinsWhenItIs21OrLater() throws Exception {
        Path jdk21 = java("temurin-21-jdk-amd64", "21.0.5");
        java("temurin-25-jdk-amd64", "25.0.3");
        assertThat(find(jdk21.toString()).javaHome()).isEqualTo(jdk21.toString());
    }

    @Test
    void noJava21SaysWhatWasCheckedAndFails() throws Exception {
        Path jdk17 = java("java-17-openjdk-amd64", "17.0.15");
        java("java-8", "1.8.0_412");
        Found found = find(jdk17.toString());
        assertThat(found.exit()).isEqualTo(1);
        assertThat(found.javaHome()).isEmpty();
        assertThat(found.err())
                .contains("no Java 21 or newer found")
                .contains(jdk17.toString())
                .contains(dir.resolve("jvm").toString())
                .contains("JAVA_HOME");
    }

    /** The runner agent's default JVM options (decisions 0051, 0068) start the JVM that runs this test. */
    @Test
    void theRunnerAgentsDefaultJvmOptionsStartAJvm() throws Exception {
        Path script = Path.of(System.getProperty("baton.root"), "scripts", "java-home.sh");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(
                "bash",
                "-c",
                ". \"$1\"; exec \"$2\" $BATON_RUNNER_DEFAULT_JAVA_OPTS -XX:+PrintFlagsFinal -version",
                "run",
                script.toString(),
                java.toString());
        Path err = dir.resolve("err.txt");
        Process p = pb.redirectError(err.toFile()).start();
        String flags = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor()).as(Files.readString(err)).isEqualTo(0);
        assertThat(flags).containsPattern("InitialHeapSize +:?= 8388608 ").containsPattern("UseSerialGC +:?= true ");
        if (Runtime.version().feature() >= 23) assertThat(flags).containsPattern("TrimNativeHeapInterval +:?= 10000 ");
    }
}

package dev.baton.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * Runs the launcher's {@code baton_exec} (scripts/java-home.sh) for an installation's {@code baton.jar}
 * with a given JAVA_HOME, whose fake {@code java} prints what it was started with: what the tests of
 * the launcher's choices read. The caller's BATON_JAVA_OPTS and BATON_RUNNER_JAVA_OPTS are removed.
 */
final class LauncherCall {
    private LauncherCall() {}

    /** The launcher's output for {@code args} (the fake java's lines), with {@code env} set; fails on a non-zero exit. */
    static String run(Path install, Path javaHome, Map<String, String> env, List<String> args) throws Exception {
        Path script = Path.of(System.getProperty("baton.root"), "scripts", "java-home.sh");
        ProcessBuilder pb = new ProcessBuilder(
                        "bash", "-c", ". \"$1\"; jar=\"$2\"; shift 2; baton_exec \"$jar\" \"$@\"")
                .redirectErrorStream(true);
        pb.command()
                .addAll(List.of(
                        "exec", script.toString(), install.resolve("baton.jar").toString()));
        pb.command().addAll(args);
        pb.environment().put("JAVA_HOME", javaHome.toString());
        pb.environment().remove("BATON_CDS");
        pb.environment().remove("BATON_JAVA_OPTS");
        pb.environment().remove("BATON_RUNNER_JAVA_OPTS");
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }
}

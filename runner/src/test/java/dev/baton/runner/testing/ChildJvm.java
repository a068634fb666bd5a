package dev.baton.runner.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Starts a main class of the test classpath in a JVM of its own, for what needs a separate
 * process: an OS file lock held by someone else, an agent killed with SIGKILL.
 */
public final class ChildJvm {
    private ChildJvm() {}

    /** Starts {@code main} with {@code args}; stdout is readable from the process, stderr goes to {@code log}. */
    public static Process start(Class<?> main, Path log, List<String> args, java.util.Map<String, String> env)
            throws IOException {
        String java = ProcessHandle.current().info().command().orElse("java");
        List<String> command =
                new ArrayList<>(List.of(java, "-cp", System.getProperty("java.class.path"), main.getName()));
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectError(log.toFile());
        pb.environment().putAll(env);
        return pb.start();
    }

    /** Reads the child's stdout until a line starting with {@code prefix}; fails if the child ends first. */
    public static String awaitLine(Process p, String prefix) throws IOException {
        BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        for (String line = r.readLine(); line != null; line = r.readLine()) {
            if (line.startsWith(prefix)) return line;
        }
        throw new AssertionError("child " + p.pid() + " ended without printing '" + prefix + "'");
    }
}

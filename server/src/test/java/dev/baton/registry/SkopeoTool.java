package dev.baton.registry;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs the real skopeo; tests skip with a message only when it is not installed (CI installs it). */
final class SkopeoTool {
    record Result(int exit, String output) {}

    static void require() {
        boolean present;
        try {
            present = new ProcessBuilder("skopeo", "--version").start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            present = false;
        }
        assumeTrue(
                present,
                "skopeo is not installed (apt-get install -y skopeo); the real-client registry test cannot run");
    }

    static Result run(Path workDir, String... args) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>(List.of("skopeo", "--insecure-policy"));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // Keep skopeo away from the user's auth files and caches.
        builder.environment().put("HOME", workDir.toString());
        builder.environment().put("TMPDIR", workDir.toString());
        builder.environment()
                .put("REGISTRY_AUTH_FILE", workDir.resolve("auth.json").toString());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(120, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException("skopeo did not finish: " + output);
        }
        return new Result(process.exitValue(), output);
    }
}

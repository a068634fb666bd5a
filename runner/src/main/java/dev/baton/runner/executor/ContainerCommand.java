package dev.baton.runner.executor;

import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.model.JobConfig;
import dev.baton.runner.oci.ImageConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a job runs inside its image, with Docker's semantics, for every executor that runs an
 * image (runc, microVM): the job's entrypoint replaces the image's and drops its cmd; the job's
 * cmd replaces the image's; the environment is a default PATH, then the image's, then the job's.
 * A paired job's baseline (issue 45) runs with the same rules, the baseline's command in place of
 * the job's cmd: in the job's image, or with a baseline image in that image (its entrypoint, env
 * and, without a baseline command, its cmd); the job's entrypoint and env apply to both sides.
 */
record ContainerCommand(List<String> argv, Map<String, String> env) {
    static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    static ContainerCommand of(JobConfig config, ImageConfig image) throws DeclinedException {
        List<String> cmd = config.cmd() != null ? config.cmd() : (config.entrypoint() != null ? null : image.cmd());
        return of(config, image, cmd);
    }

    /**
     * A paired job's baseline side in {@code image} (the baseline's own image when it has one, else
     * the job's), or null when the job is not paired.
     */
    static ContainerCommand baseline(JobConfig config, ImageConfig image) throws DeclinedException {
        if (config.paired() == null) return null;
        List<String> cmd = config.paired().baselineCmd();
        if (cmd == null) cmd = config.entrypoint() != null ? null : image.cmd(); // an image without a command
        return of(config, image, cmd);
    }

    private static ContainerCommand of(JobConfig config, ImageConfig image, List<String> cmd) throws DeclinedException {
        List<String> entrypoint = config.entrypoint() != null ? config.entrypoint() : image.entrypoint();
        List<String> argv = new ArrayList<>();
        if (entrypoint != null) argv.addAll(entrypoint);
        if (cmd != null) argv.addAll(cmd);
        if (argv.isEmpty())
            throw new DeclinedException(DeclineCode.NO_COMMAND, "neither the image nor the job names a command");
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", DEFAULT_PATH);
        if (image.env() != null) {
            for (String kv : image.env()) {
                int eq = kv.indexOf('=');
                if (eq > 0) env.put(kv.substring(0, eq), kv.substring(eq + 1));
            }
        }
        if (config.env() != null) env.putAll(config.env());
        return new ContainerCommand(List.copyOf(argv), env);
    }
}

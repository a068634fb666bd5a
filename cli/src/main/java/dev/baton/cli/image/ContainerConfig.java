package dev.baton.cli.image;

import java.util.ArrayList;
import java.util.List;

/**
 * What a container started from a directory image runs: the {@code config} part of an OCI image
 * config. Only {@code baton image push DIR} writes one; an OCI layout or archive brings its own.
 *
 * @param entrypoint words of the entrypoint, empty for none
 * @param cmd        words of the command (the entrypoint's arguments when there is one)
 * @param env        {@code KEY=VALUE} entries, in the order given
 * @param workdir    absolute working directory, null for the runtime's default (/)
 */
public record ContainerConfig(List<String> entrypoint, List<String> cmd, List<String> env, String workdir) {
    /** Docker's default search path: without one, a command given by name (sh, not /bin/sh) is not found. */
    static final String DEFAULT_PATH = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

    public ContainerConfig {
        entrypoint = entrypoint == null ? List.of() : List.copyOf(entrypoint);
        cmd = cmd == null ? List.of() : List.copyOf(cmd);
        env = env == null ? List.of() : List.copyOf(env);
        for (String e : env) {
            int eq = e.indexOf('=');
            if (eq <= 0) throw new IllegalArgumentException("--env takes KEY=VALUE, got '" + e + "'");
        }
        if (workdir != null && !workdir.startsWith("/")) {
            throw new IllegalArgumentException(
                    "--workdir must be an absolute path inside the image, got '" + workdir + "'");
        }
    }

    static ContainerConfig none() {
        return new ContainerConfig(null, null, null, null);
    }

    /** True when no option was given: then an OCI layout or archive may be pushed. */
    boolean isEmpty() {
        return entrypoint.isEmpty() && cmd.isEmpty() && env.isEmpty() && workdir == null;
    }

    /** The environment written to the image: the given entries, with Docker's default PATH unless one is given. */
    List<String> imageEnv() {
        List<String> all = new ArrayList<>();
        if (env.stream().noneMatch(e -> e.startsWith("PATH="))) all.add(DEFAULT_PATH);
        all.addAll(env);
        return all;
    }
}

package dev.baton.protocol.model;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a runner needs to pull and execute an image (seed 001's JsonJobConfig), stored as JSON on
 * the job at creation. Hardware limits live on the spec, not here. {@code command} is Baton's
 * addition for trusted runners (process executor) and is absent for image jobs run in a sandbox.
 * {@code paired} is Baton's too (issue 45, {@link PairedConfig}): absent on a job that is not paired.
 *
 * <p>Immutable: the server shares one parsed config between threads (store/JobConfigs), so the
 * lists and the map are unmodifiable copies. They are not {@code List.copyOf}/{@code Map.copyOf}:
 * those refuse null elements (which decoding would then report differently) and {@code Map.copyOf}
 * forgets the order of {@code env}, which the JSON keeps.
 */
public record JobConfig(
        String registry,
        ProjectUuid project,
        ImageDigest digest,
        List<String> entrypoint,
        List<String> cmd,
        Map<String, String> env,
        JobTimeout timeout,
        List<String> filePaths,
        Integer iterations,
        PairedConfig paired) {

    public JobConfig {
        entrypoint = copy(entrypoint);
        cmd = copy(cmd);
        env = env == null ? null : Collections.unmodifiableMap(new LinkedHashMap<>(env));
        filePaths = copy(filePaths);
    }

    /** A job that is not paired (every job before issue 45). */
    public JobConfig(
            String registry,
            ProjectUuid project,
            ImageDigest digest,
            List<String> entrypoint,
            List<String> cmd,
            Map<String, String> env,
            JobTimeout timeout,
            List<String> filePaths,
            Integer iterations) {
        this(registry, project, digest, entrypoint, cmd, env, timeout, filePaths, iterations, null);
    }

    private static List<String> copy(List<String> list) {
        return list == null ? null : Collections.unmodifiableList(new ArrayList<>(list));
    }

    public int iterationsOrDefault() {
        if (paired != null) return paired.iterations();
        return iterations == null ? 1 : iterations;
    }
}

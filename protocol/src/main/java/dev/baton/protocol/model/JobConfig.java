package dev.baton.protocol.model;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import java.util.List;
import java.util.Map;

/**
 * What a runner needs to pull and execute an image (seed 001's JsonJobConfig), stored as JSON on
 * the job at creation. Hardware limits live on the spec, not here. {@code command} is Baton's
 * addition for trusted runners (process executor) and is absent for image jobs run in a sandbox.
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
        Integer iterations) {

    public int iterationsOrDefault() {
        return iterations == null ? 1 : iterations;
    }
}

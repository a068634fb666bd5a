package dev.baton.protocol.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.value.ImageDigest;
import dev.baton.protocol.value.JobTimeout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The server shares one parsed JobConfig between threads (store/JobConfigs): it cannot be changed after construction. */
class JobConfigTest {
    private static final String DIGEST = "sha256:" + "ab".repeat(32);
    private static final String PROJECT = "6d1c2e0a-3f4b-4c5d-8e9f-0a1b2c3d4e5f";
    private static final String JSON =
            "{\"registry\":\"http://127.0.0.1:7700\",\"project\":\"" + PROJECT + "\",\"digest\":\"" + DIGEST + "\","
                    + "\"entrypoint\":[\"/bin/sh\",\"-c\"],\"cmd\":[\"run\"],\"env\":{\"ZED\":\"1\",\"ALPHA\":\"2\",\"MID\":\"3\"},"
                    + "\"timeout\":60,\"file_paths\":[\"out/a.json\"],\"iterations\":2}";

    @Test
    void decodedCollectionsCannotBeChanged() throws Exception {
        JobConfig config = Wire.mapper().readValue(JSON, JobConfig.class);
        assertThatThrownBy(() -> config.entrypoint().add("x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> config.cmd().set(0, "x")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> config.env().put("X", "y")).isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> config.env().entrySet().iterator().next().setValue("y"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> config.filePaths().clear()).isInstanceOf(UnsupportedOperationException.class);
    }

    @Test
    void theCallersCollectionsAreCopied() {
        List<String> cmd = new ArrayList<>(List.of("run"));
        Map<String, String> env = new LinkedHashMap<>(Map.of("A", "1"));
        JobConfig config = new JobConfig(
                "r", ProjectUuid.random(), ImageDigest.of(DIGEST), null, cmd, env, JobTimeout.of(60), null, null);
        cmd.add("more");
        env.put("B", "2");
        assertThat(config.cmd()).containsExactly("run");
        assertThat(config.env()).containsOnlyKeys("A");
        assertThat(config.entrypoint()).isNull();
        assertThat(config.filePaths()).isNull();
    }

    /** Null elements stay what they were (validation of them is the API's, unchanged). */
    @Test
    void nullElementsAndValuesAreKept() {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("A", null);
        JobConfig config =
                new JobConfig("r", ProjectUuid.random(), null, Arrays.asList("a", null), null, env, null, null, null);
        assertThat(config.entrypoint()).containsExactly("a", null);
        assertThat(config.env()).containsEntry("A", null);
    }

    @Test
    void theWireFormatIsUnchangedAndKeepsTheOrderOfEnv() throws Exception {
        JobConfig config = Wire.mapper().readValue(JSON, JobConfig.class);
        assertThat(config.env().keySet()).containsExactly("ZED", "ALPHA", "MID");
        assertThat(Wire.encode(config)).isEqualTo(JSON);
        assertThat(config)
                .isEqualTo(new JobConfig(
                        "http://127.0.0.1:7700",
                        new ProjectUuid(UUID.fromString(PROJECT)),
                        ImageDigest.of(DIGEST),
                        List.of("/bin/sh", "-c"),
                        List.of("run"),
                        Map.of("ZED", "1", "ALPHA", "2", "MID", "3"),
                        JobTimeout.of(60),
                        List.of("out/a.json"),
                        2));
        assertThat(Wire.encode(new JobConfig("r", null, null, null, null, null, null, null, null)))
                .isEqualTo("{\"registry\":\"r\"}");
    }
}

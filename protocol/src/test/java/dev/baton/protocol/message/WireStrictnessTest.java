package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every field of every runner message has exactly its documented JSON type; nothing is coerced. */
class WireStrictnessTest {
    private static final String JOB = "\"job\":\"6f1c2a6e-3b7d-4c55-9a53-1f0e2d3c4b5a\"";
    private static final String LEASE = "\"lease\":\"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"";

    @ParameterizedTest
    @ValueSource(
            strings = {
                "{\"event\":\"ready\",\"poll_timeout\":\"1\"}",
                "{\"event\":\"ready\",\"poll_timeout\":1.5}",
                "{\"event\":\"ready\",\"poll_timeout\":1.0}",
                "{\"event\":\"ready\",\"poll_timeout\":true}",
                "{\"event\":\"ready\",\"slots\":\"2\"}",
                "{\"event\":\"ready\",\"slots\":2.5}",
                "{\"event\":\"ready\",\"os\":42}",
                "{\"event\":\"ready\",\"arch\":1.5}",
                "{\"event\":\"ready\",\"version\":false}",
                "{\"event\":\"preparing\"," + JOB + "," + LEASE + ",\"message\":7}",
                "{\"event\":\"declined\"," + JOB + "," + LEASE + ",\"reason\":7}",
                "{\"event\":\"running\",\"job\":42," + LEASE + "}",
                "{\"event\":\"running\"," + JOB + ",\"lease\":42}",
                "{\"event\":\"heartbeat\",\"job\":true," + LEASE + "}",
                "{\"event\":\"failed\"," + JOB + "," + LEASE + ",\"error\":42}",
                "{\"event\":\"failed\"," + JOB + "," + LEASE + ",\"error\":true}",
                "{\"event\":\"completed\"," + JOB + "," + LEASE + ",\"results\":[{\"exit_code\":\"0\"}]}",
                "{\"event\":\"completed\"," + JOB + "," + LEASE + ",\"results\":[{\"exit_code\":0.5}]}",
                "{\"event\":\"completed\"," + JOB + "," + LEASE + ",\"results\":[{\"exit_code\":0,\"stdout\":1}]}",
                "{\"event\":\"completed\"," + JOB + "," + LEASE + ",\"results\":[{\"exit_code\":0,\"stderr\":2.5}]}",
                "{\"event\":\"completed\"," + JOB + "," + LEASE
                        + ",\"results\":[{\"exit_code\":0,\"output\":{\"a\":1}}]}",
                "{\"event\":\"canceled\"," + JOB + "," + LEASE + ",\"results\":[{\"exit_code\":false}]}",
            })
    void aScalarOfTheWrongTypeIsInvalid(String json) {
        assertThatThrownBy(() -> Wire.decodeRunnerMessage(json)).isInstanceOf(InvalidMessageException.class);
    }

    @Test
    void exactTypesDecode() {
        assertThat(Wire.decodeRunnerMessage("{\"event\":\"ready\",\"poll_timeout\":1,\"slots\":2,\"os\":\"linux\"}"))
                .isEqualTo(new RunnerMessage.Ready(1, "linux", null, null, 2));
        var failed = (RunnerMessage.Failed) Wire.decodeRunnerMessage("{\"event\":\"failed\"," + JOB + "," + LEASE
                + ",\"error\":\"42\",\"results\":[{\"exit_code\":1,\"output\":{\"a\":\"1\"}}]}");
        assertThat(failed.error()).isEqualTo("42");
        assertThat(failed.results().get(0).exitCode()).isEqualTo(1);
    }
}

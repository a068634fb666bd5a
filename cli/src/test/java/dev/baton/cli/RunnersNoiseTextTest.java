package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The NOISE cell of 'baton runners list' (decision 0052): the largest CV in %, and whether it is flagged. */
class RunnersNoiseTextTest {
    static JsonNode runner(String json) throws Exception {
        return new ObjectMapper().readTree(json);
    }

    @Test
    void aRunnerWithoutCalibrationShowsADash() throws Exception {
        assertThat(RunnersCommand.noise(runner("{}").path("noise"))).isEqualTo("-");
    }

    @Test
    void theLargestCvIsShownAsAPercentageAndTheFlagBesideIt() throws Exception {
        assertThat(RunnersCommand.noise(
                        runner("{\"noise\":{\"cv\":0.0123,\"noisy\":false}}").path("noise")))
                .isEqualTo("1.23%");
        assertThat(RunnersCommand.noise(
                        runner("{\"noise\":{\"cv\":0.41,\"noisy\":true}}").path("noise")))
                .isEqualTo("41.00% noisy");
    }
}

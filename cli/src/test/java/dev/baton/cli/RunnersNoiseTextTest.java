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

    @Test
    void theCellSaysWhenTheCalibrationWasMeasured() throws Exception {
        assertThat(RunnersCommand.noise(
                        runner("{\"noise\":{\"cv\":0.0123,\"noisy\":true,\"measured\":\"2026-11-29T15:02:11.402Z\"}}")
                                .path("noise")))
                .isEqualTo("1.23% noisy at 2026-11-29T15:02Z");
    }

    @Test
    void runnersNoisePrintsEachFigureAndTheFlag() throws Exception {
        JsonNode noise = runner("{\"noise\":{\"measured\":\"2026-11-29T18:00:00Z\",\"cpu_cv\":0.0123,"
                        + "\"memory_cv\":0.0411,\"cv\":0.0411,\"repetitions\":200,\"noisy\":true}}")
                .path("noise");
        java.io.StringWriter text = new java.io.StringWriter();
        RunnersNoise.figures("r1", noise, new java.io.PrintWriter(text));
        assertThat(text.toString())
                .contains("Runner r1 measured 2026-11-29T18:00:00Z (200 repetitions each):")
                .containsPattern("cpu +1.23%")
                .containsPattern("memory +4.11%")
                .doesNotContain("file")
                .containsPattern("largest +4.11%")
                .contains("noisy: its noise rose past its own history");
    }
}

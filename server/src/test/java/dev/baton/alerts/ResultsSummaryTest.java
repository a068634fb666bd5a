package dev.baton.alerts;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The pull-request comment's body limits and its hidden marker (docs/pull-requests.md). */
class ResultsSummaryTest {
    @Test
    void aBodyLongerThanAHostTakesIsCutAndSaysSo() {
        String shortBody = "x".repeat(ResultsSummary.MAX_CHARS);
        assertThat(ResultsSummary.cut(shortBody)).isSameAs(shortBody);
        String cut = ResultsSummary.cut("y".repeat(ResultsSummary.MAX_CHARS + 1));
        assertThat(cut.length()).isLessThanOrEqualTo(ResultsSummary.MAX_CHARS);
        assertThat(cut).endsWith("(cut: longer than a comment may be)\n");
    }

    @Test
    void theMarkerNamesProjectBranchAndTestbedWithoutTheirText() {
        String marker = ResultsSummary.marker("p-uuid", "feature-->x", "box");
        assertThat(marker).matches("<!-- baton-results:[0-9a-f]{24} -->");
        assertThat(marker).isNotEqualTo(ResultsSummary.marker("p-uuid", "feature-->x", "other"));
        assertThat(marker).isEqualTo(ResultsSummary.marker("p-uuid", "feature-->x", "box"));
    }
}

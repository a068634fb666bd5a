package dev.baton.protocol.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.protocol.value.Labels;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Decision 0076: which labels a runner reports for its executor, and which a job with a baseline image requires. */
class CapabilityLabelsTest {
    private static final RunnerCapabilities RUNC =
            RunnerCapabilities.executor("runc").withBaselineImage(true);
    private static final RunnerCapabilities PROCESS =
            RunnerCapabilities.executor("process").withBaselineImage(false);

    @Test
    void aRunnerThatRunsABaselineImageReportsTheLabelBesideItsOwn() {
        assertThat(CapabilityLabels.reported(Map.of("disk", "nvme"), RUNC))
                .isEqualTo(Map.of("disk", "nvme", CapabilityLabels.BASELINE_IMAGE, "true"));
    }

    @Test
    void theExecutorDecidesTheLabelNotTheOperator() {
        assertThat(CapabilityLabels.reported(Map.of(CapabilityLabels.BASELINE_IMAGE, "true", "disk", "nvme"), PROCESS))
                .isEqualTo(Map.of("disk", "nvme"));
        assertThat(CapabilityLabels.reported(Map.of(CapabilityLabels.BASELINE_IMAGE, "no"), RUNC))
                .isEqualTo(Map.of(CapabilityLabels.BASELINE_IMAGE, "true"));
        // A runner older than the field says nothing, and so is not taken for one.
        assertThat(CapabilityLabels.reported(Map.of(), RunnerCapabilities.executor("runc")))
                .isEmpty();
    }

    @Test
    void theLabelCountsTowardsTheLimit() {
        Map<String, String> own = new HashMap<>();
        for (int i = 0; i < Labels.MAX_LABELS; i++) own.put("k" + i, "v");
        assertThat(CapabilityLabels.reported(own, PROCESS)).hasSize(Labels.MAX_LABELS);
        assertThatThrownBy(() -> CapabilityLabels.reported(own, RUNC))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("at most 31 labels")
                .hasMessageContaining(CapabilityLabels.BASELINE_IMAGE);
    }

    @Test
    void aJobWithABaselineImageRequiresTheLabelBesideItsOwn() {
        assertThat(CapabilityLabels.required(Map.of("disk", "nvme"), true))
                .isEqualTo(Map.of("disk", "nvme", CapabilityLabels.BASELINE_IMAGE, "true"));
        assertThat(CapabilityLabels.required(Map.of("disk", "nvme"), false)).isEqualTo(Map.of("disk", "nvme"));
        assertThat(CapabilityLabels.required(null, true)).isEqualTo(Map.of(CapabilityLabels.BASELINE_IMAGE, "true"));
    }
}

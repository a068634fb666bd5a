package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.store.Threshold;
import dev.baton.store.ThresholdRule;
import java.time.Instant;

/**
 * A threshold (docs/alerts.md): which metrics it judges ({@code branch}, {@code spec} and
 * {@code benchmark} null: every one) and how (model, boundaries, window, minimum samples).
 */
public record ThresholdView(
        String uuid,
        ProjectUuid project,
        @JsonInclude(JsonInclude.Include.ALWAYS) String branch,
        String testbed,
        @JsonInclude(JsonInclude.Include.ALWAYS) String spec,
        String measure,
        @JsonInclude(JsonInclude.Include.ALWAYS) String benchmark,
        String model,
        @JsonInclude(JsonInclude.Include.ALWAYS) Double lowerBoundary,
        @JsonInclude(JsonInclude.Include.ALWAYS) Double upperBoundary,
        @JsonInclude(JsonInclude.Include.ALWAYS) Integer maxSamples,
        @JsonInclude(JsonInclude.Include.ALWAYS) Integer maxDays,
        int minSamples,
        Instant created,
        Instant modified) {

    static ThresholdView of(Threshold t, ProjectUuid project, String specSlug) {
        ThresholdRule r = t.rule();
        return new ThresholdView(
                t.uuid(),
                project,
                r.branch(),
                r.testbed(),
                specSlug,
                r.measure(),
                r.benchmark(),
                r.model(),
                r.lowerBoundary(),
                r.upperBoundary(),
                r.maxSamples(),
                r.maxDays(),
                r.minSamples(),
                t.created(),
                t.modified());
    }
}

package dev.baton.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.id.ReportUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.server.store.Report;
import java.time.Instant;

/** A report; {@code results} is the stored JSON (direct results or the adapter's), absent while pending. */
public record ReportView(
        ReportUuid uuid,
        ProjectUuid project,
        String branch,
        String testbed,
        String adapter,
        Instant startTime,
        Instant endTime,
        JsonNode results,
        String error,
        Instant created,
        Instant modified) {

    static ReportView of(Report r, ProjectUuid project) {
        return new ReportView(r.uuid(), project, r.branch(), r.testbed(), r.adapter(), r.startTime(), r.endTime(),
                parse(r.results()), r.error(), r.created(), r.modified());
    }

    private static JsonNode parse(String json) {
        if (json == null) return null;
        try {
            return Wire.mapper().readTree(json);
        } catch (JsonProcessingException e) {
            return Wire.mapper().getNodeFactory().textNode(json);
        }
    }
}

package dev.baton.router;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.router.testing.RawRunner;
import java.util.Map;

/** The cases against the server itself: what a router must answer in its place. */
class RunnerChannelCasesServerTest extends RunnerChannelCases {
    @Override
    RawRunner connect() {
        JsonNode created = fleet.server.post("/v0/runners", Map.of("name", "direct"));
        String slug = created.at("/runner/slug").asText();
        fleet.server.post("/v0/runners/" + slug + "/specs", Map.of("spec", "host"));
        return new RawRunner(fleet.server.url(), slug, created.get("key").asText());
    }
}

package dev.baton.api;

import static dev.baton.api.RunnerApiTest.slugs;
import static dev.baton.api.SpecApiTest.assertField;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.web.http.TestServer;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OrganizationApiTest {
    @TempDir
    Path dir;

    TestServer s;

    @BeforeEach
    void start() {
        s = new TestServer(dir);
    }

    @AfterEach
    void stop() {
        s.close();
    }

    @Test
    void organizationsAreCreatedListedFetchedAndChangePlan() {
        JsonNode org = Fixtures.created(s.post("/v0/organizations", Map.of("name", "Acme Inc")));
        assertThat(org.path("slug").asText()).isEqualTo("acme-inc");
        assertThat(org.path("plan").asText()).as("default plan").isEqualTo("free");
        Fixtures.organization(s, "big", "enterprise");
        assertThat(slugs(s.get("/v0/organizations").json())).containsExactlyInAnyOrder("acme-inc", "big");
        assertThat(s.get("/v0/organizations/" + org.path("uuid").asText())
                        .json()
                        .path("slug")
                        .asText())
                .isEqualTo("acme-inc");

        JsonNode team =
                s.patch("/v0/organizations/acme-inc", Map.of("plan", "team")).json();
        assertThat(team.path("plan").asText()).isEqualTo("team");
        assertThat(s.get("/v0/organizations/acme-inc").json().path("plan").asText())
                .isEqualTo("team");

        assertField(s.patch("/v0/organizations/acme-inc", Map.of("plan", "gold")), 400, "invalid_field", "plan");
        assertField(s.patch("/v0/organizations/acme-inc", Map.of()), 400, "missing_field", "plan");
        assertField(s.patch("/v0/organizations/acme-inc", Map.of("name", "x")), 400, "unknown_field", "name");
        assertField(s.post("/v0/organizations", Map.of("name", "x", "plan", "platinum")), 400, "invalid_field", "plan");
        assertThat(s.get("/v0/organizations/none").code()).isEqualTo("organization_not_found");
        assertThat(s.post("/v0/organizations", Map.of("name", "y", "slug", "big"))
                        .code())
                .isEqualTo("slug_taken");
        assertThat(s.get("/v0/organizations").json()).hasSize(2);
    }

    @Test
    void projectsBelongToAnOrganization() {
        JsonNode org = Fixtures.organization(s, "acme", "free");
        JsonNode project = Fixtures.created(s.post(
                "/v0/projects",
                Map.of("name", "Web App", "organization", org.path("uuid").asText())));
        assertThat(project.path("slug").asText()).isEqualTo("web-app");
        assertThat(project.path("organization").asText())
                .isEqualTo(org.path("uuid").asText());
        Fixtures.project(s, "api", "acme");
        assertThat(slugs(s.get("/v0/projects").json())).containsExactlyInAnyOrder("web-app", "api");
        assertThat(s.get("/v0/projects/web-app").json().path("uuid").asText())
                .isEqualTo(project.path("uuid").asText());
        assertThat(s.get("/v0/projects/nope").code()).isEqualTo("project_not_found");

        assertField(s.post("/v0/projects", Map.of("name", "x")), 400, "missing_field", "organization");
        assertField(
                s.post("/v0/projects", Map.of("name", "x", "organization", "ghost")),
                404,
                "organization_not_found",
                "organization");
        assertThat(s.post("/v0/projects", Map.of("name", "x", "slug", "api", "organization", "acme"))
                        .code())
                .isEqualTo("slug_taken");
        assertThat(s.get("/v0/projects").json()).hasSize(2);
    }
}

package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.core.config.ServerConfig;
import dev.baton.server.BatonServer;
import dev.baton.server.ServerAssembly;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code baton ojs workers} (issue 47) through the real CLI against a real server: a worker
 * registers over HTTP as seed 002 says, the CLI lists and directs it, and the worker reads the
 * direction in its next heartbeat's answer.
 */
class OjsWorkersCommandTest {
    @TempDir
    Path dir;

    BatonServer server;
    String url;
    Path home;
    final HttpClient http = HttpClient.newHttpClient();

    @BeforeEach
    void start() {
        server = ServerAssembly.start(ServerConfig.defaults(dir.resolve("data")).withListen("127.0.0.1", 0));
        url = "http://127.0.0.1:" + server.port();
        home = dir.resolve("home");
    }

    @AfterEach
    void stop() {
        server.close();
        http.close();
    }

    CliRun.Result admin(String... args) {
        return as(dir.resolve("data").resolve("admin-token"), args);
    }

    CliRun.Result as(Path tokenFile, String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--server", url, "--token-file", tokenFile.toString()));
        return CliRun.run(CliRun.environment(home, Map.of()), all.toArray(String[]::new));
    }

    /** A worker's own request, with the admin token as OJS workers carry it. */
    JsonNode worker(String path, String body) throws Exception {
        String token =
                Files.readString(dir.resolve("data").resolve("admin-token")).strip();
        HttpResponse<String> answer = http.send(
                HttpRequest.newBuilder(URI.create(url + path))
                        .header("Authorization", "Bearer " + token)
                        .header("Content-Type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        return CliRun.parse(answer.body());
    }

    String heartbeat(String id) throws Exception {
        return worker("/ojs/v1/workers/heartbeat", "{\"worker_id\": \"" + id + "\", \"active_job_ids\": []}")
                .path("state")
                .asText();
    }

    void register(String id, String queue) throws Exception {
        worker(
                "/ojs/v1/workers/register",
                "{\"worker_id\": \"" + id + "\", \"hostname\": \"web-01\", \"pid\": 12345, \"queues\": [\"" + queue
                        + "\"]}");
    }

    @Test
    void anOperatorListsAWorkerQuietsItAndTheWorkerHearsItInItsNextHeartbeat() throws Exception {
        register("worker-abc", "emails");

        CliRun.Result list = admin("ojs", "workers");
        assertThat(list.exit()).as(list.err()).isZero();
        assertThat(list.out())
                .contains("ID", "QUEUES", "STATE", "DIRECTED", "HOST", "PID", "LAST_HEARTBEAT", "ACTIVE_JOBS")
                .contains("worker-abc")
                .contains("emails")
                .contains("running")
                .contains("web-01")
                .contains("12345");
        JsonNode listed =
                admin("ojs", "workers", "--json").json().path("workers").get(0);
        assertThat(listed.path("worker_id").asText()).isEqualTo("worker-abc");
        assertThat(listed.path("active_jobs").asInt()).isZero();

        CliRun.Result quiet = admin("ojs", "workers", "quiet", "worker-abc");
        assertThat(quiet.exit()).as(quiet.err()).isZero();
        assertThat(quiet.out()).contains("worker-abc").contains("quiet");
        assertThat(heartbeat("worker-abc")).isEqualTo("quiet");
        assertThat(admin("ojs", "workers", "show", "worker-abc", "--json")
                        .json()
                        .at("/worker/directed_state")
                        .asText())
                .isEqualTo("quiet");
        assertThat(admin("ojs", "workers", "show", "worker-abc").out()).contains("web-01");

        assertThat(admin("ojs", "workers", "resume", "worker-abc").exit()).isZero();
        assertThat(heartbeat("worker-abc")).isEqualTo("running");

        assertThat(admin("audit", "list", "--json").json().path("events").findValuesAsText("action"))
                .contains("ojs.worker.quiet", "ojs.worker.resume");
    }

    @Test
    void aQueueDirectionReachesEveryWorkerOfTheQueueOnly() throws Exception {
        register("mailer-1", "emails");
        register("mailer-2", "emails");
        register("payer", "payments");

        CliRun.Result terminate = admin("ojs", "workers", "terminate", "--queue", "emails", "--json");
        assertThat(terminate.exit()).as(terminate.err()).isZero();
        assertThat(terminate.json().path("workers").toString())
                .contains("mailer-1", "mailer-2")
                .doesNotContain("payer");
        assertThat(heartbeat("mailer-1")).isEqualTo("terminate");
        assertThat(heartbeat("mailer-2")).isEqualTo("terminate");
        assertThat(heartbeat("payer")).isEqualTo("running");

        CliRun.Result resume = admin("ojs", "workers", "resume", "--queue", "emails");
        assertThat(resume.out()).contains("2 OJS worker(s) of queue emails");
        assertThat(heartbeat("mailer-1")).isEqualTo("running");
    }

    @Test
    void anUnknownWorkerIsRefusedWithTheApisCodeAndAWorkerOrQueueMustBeNamed() {
        CliRun.Result unknown = admin("ojs", "workers", "quiet", "nobody");
        assertThat(unknown.exit()).isEqualTo(ExitCodes.CLIENT_ERROR);
        assertThat(unknown.err()).contains("not_found");

        assertThat(admin("ojs", "workers", "quiet").exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(admin("ojs", "workers", "quiet", "w", "--queue", "q").exit()).isEqualTo(ExitCodes.USAGE);
    }

    /** A user's token is not the admin's: listing and directing are refused, and the worker hears nothing. */
    @Test
    void aTokenWithoutTheAdminRoleIsRefused() throws Exception {
        register("worker-x", "default");
        assertThat(admin("orgs", "create", "--name", "acme").exit()).isZero();
        assertThat(admin("projects", "create", "--name", "web", "--org", "acme").exit())
                .isZero();
        assertThat(admin("users", "create", "--name", "lead").exit()).isZero();
        assertThat(admin("members", "set", "--project", "web", "--user", "lead", "--role", "owner")
                        .exit())
                .isZero();
        Path file = dir.resolve("lead.token");
        CliRun.Result token = admin(
                "tokens",
                "create",
                "--user",
                "lead",
                "--project",
                "web",
                "--role",
                "owner",
                "--secret-file",
                file.toString());
        assertThat(token.exit()).as(token.err()).isZero();

        for (String[] args : List.of(
                new String[] {"ojs", "workers"},
                new String[] {"ojs", "workers", "quiet", "worker-x"},
                new String[] {"ojs", "workers", "terminate", "--queue", "default"})) {
            CliRun.Result refused = as(file, args);
            assertThat(refused.exit()).as(String.join(" ", args)).isEqualTo(ExitCodes.CLIENT_ERROR);
            assertThat(refused.err()).contains("forbidden");
        }
        assertThat(heartbeat("worker-x")).isEqualTo("running");
    }
}

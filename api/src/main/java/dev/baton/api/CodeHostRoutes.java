package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.store.CodeHost;
import dev.baton.store.CodeHostDelivery;
import dev.baton.store.CodeHosts;
import dev.baton.store.Project;
import dev.baton.store.Role;
import dev.baton.web.auth.RouteAccess;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.time.Instant;
import java.util.List;
import java.util.regex.Pattern;

/**
 * {@code /v0/projects/{project}/code-hosts} (docs/pull-requests.md): the GitHub repositories and
 * GitLab projects where the project's judged reports go beside their pull requests, each with a
 * token kept as a webhook's secret is (stored, never shown again), and each one's delivery log.
 * Maintainers and up, as webhooks (the access its routes are registered with): a token writes to another system.
 */
final class CodeHostRoutes implements RouteModule {
    static final String GITHUB_API = "https://api.github.com";
    static final String GITLAB_API = "https://gitlab.com/api/v4";
    private static final Pattern GITHUB_REPO = Pattern.compile("[A-Za-z0-9_.-]{1,100}/[A-Za-z0-9_.-]{1,100}");
    private static final Pattern GITLAB_PROJECT =
            Pattern.compile("[0-9]{1,18}|[A-Za-z0-9_.-]{1,255}(/[A-Za-z0-9_.-]{1,255}){1,20}");
    private static final Pattern TOKEN = Pattern.compile("[\\x21-\\x7e]{1,1000}");

    private final ApiContext api;
    private final Lookups find;

    record CreateCodeHost(String kind, String repository, String token, String apiUrl) {}

    record CodeHostView(String uuid, String kind, String repository, String apiUrl, Instant created) {
        static CodeHostView of(CodeHost h) {
            return new CodeHostView(h.uuid(), h.kind(), h.repository(), h.apiUrl(), h.created());
        }
    }

    record CodeHostList(List<CodeHostView> codeHosts) {}

    record DeliveryView(
            long id,
            String report,
            int number,
            int attempts,
            @JsonInclude(JsonInclude.Include.ALWAYS) Instant nextAttempt,
            @JsonInclude(JsonInclude.Include.ALWAYS) Instant delivered,
            @JsonInclude(JsonInclude.Include.ALWAYS) Integer lastStatus,
            @JsonInclude(JsonInclude.Include.ALWAYS) String lastError,
            Instant created) {
        static DeliveryView of(CodeHostDelivery d) {
            return new DeliveryView(
                    d.id(),
                    d.reportUuid(),
                    d.number(),
                    d.attempts(),
                    d.nextAttempt(),
                    d.delivered(),
                    d.lastStatus(),
                    d.lastError(),
                    d.created());
        }
    }

    record DeliveryList(List<DeliveryView> deliveries) {}

    CodeHostRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    private CodeHosts hosts() {
        return api.store().alerts().codeHosts();
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post(
                "/v0/projects/{project}/code-hosts",
                this::create,
                RouteAccess.onProject(Role.MAINTAINER).audited("code_host.created"));
        config.routes.get("/v0/projects/{project}/code-hosts", this::list, RouteAccess.onProject(Role.MAINTAINER));
        config.routes.put(
                "/v0/projects/{project}/code-hosts/{host}",
                this::replace,
                RouteAccess.onProject(Role.MAINTAINER).audited("code_host.updated"));
        config.routes.delete(
                "/v0/projects/{project}/code-hosts/{host}",
                this::delete,
                RouteAccess.onProject(Role.MAINTAINER).audited("code_host.deleted"));
        config.routes.get(
                "/v0/projects/{project}/code-hosts/{host}/deliveries",
                this::deliveries,
                RouteAccess.onProject(Role.MAINTAINER));
    }

    private void create(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        CreateCodeHost body = api.body(ctx, CreateCodeHost.class);
        if (body.kind() == null) throw ApiException.missingField("kind");
        boolean github = CodeHost.GITHUB.equals(body.kind());
        if (!github && !CodeHost.GITLAB.equals(body.kind()))
            throw ApiException.invalidField("kind", "kind must be github or gitlab");
        if (body.repository() == null) throw ApiException.missingField("repository");
        if (!(github ? GITHUB_REPO : GITLAB_PROJECT).matcher(body.repository()).matches()) {
            throw ApiException.invalidField(
                    "repository",
                    github
                            ? "repository must be owner/name"
                            : "repository must be the GitLab project's numeric id or its path, group/name");
        }
        token(body.token());
        String apiUrl = body.apiUrl() == null ? (github ? GITHUB_API : GITLAB_API) : apiUrl(body.apiUrl());
        CodeHost h = hosts().createHost(project.id(), body.kind(), apiUrl, body.repository(), body.token(), api.now());
        Json.write(ctx, 201, CodeHostView.of(h));
    }

    private static void token(String token) {
        if (token == null) throw ApiException.missingField("token");
        if (!TOKEN.matcher(token).matches())
            throw ApiException.invalidField("token", "token must be 1 to 1,000 printable characters without spaces");
    }

    /**
     * {@code PUT …/code-hosts/{host}}: a new token (a rotated one) and API root for the same
     * repository; the kind and repository stay, as the sticky comments and deliveries made for
     * them do (another repository is another host: delete this one and add it).
     */
    private void replace(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("host");
        CodeHost old = hosts().findHost(project.id(), ref).orElseThrow(() -> notFound(ref));
        CreateCodeHost body = api.body(ctx, CreateCodeHost.class);
        if (body.kind() != null && !body.kind().equals(old.kind()))
            throw ApiException.invalidField("kind", "kind cannot change: delete this host and add another");
        if (body.repository() != null && !body.repository().equals(old.repository()))
            throw ApiException.invalidField("repository", "repository cannot change: delete this host and add another");
        token(body.token());
        boolean github = CodeHost.GITHUB.equals(old.kind());
        String apiUrl = body.apiUrl() == null ? (github ? GITHUB_API : GITLAB_API) : apiUrl(body.apiUrl());
        CodeHost h = hosts().updateHost(project.id(), ref, apiUrl, body.token()).orElseThrow(() -> notFound(ref));
        Json.write(ctx, 200, CodeHostView.of(h));
    }

    private static String apiUrl(String raw) {
        try {
            String url = WebhookRoutes.url(raw);
            if (url.contains("?")) throw ApiException.invalidField("api_url", "api_url must not have a query");
            return url;
        } catch (ApiException e) {
            throw ApiException.invalidField(
                    "api_url",
                    "api_url must be an http or https URL with a host, without user info, query or fragment");
        }
    }

    private void list(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        Json.write(
                ctx,
                200,
                new CodeHostList(hosts().hosts(project.id()).stream()
                        .map(CodeHostView::of)
                        .toList()));
    }

    private void delete(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("host");
        if (!hosts().deleteHost(project.id(), ref, api.now())) throw notFound(ref);
        ctx.status(204);
    }

    private void deliveries(Context ctx) {
        int limit =
                Fields.intParam("limit", ctx.queryParam("limit"), AlertRoutes.DEFAULT_LIMIT, 1, AlertRoutes.MAX_LIMIT);
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("host");
        CodeHost h = hosts().findHost(project.id(), ref).orElseThrow(() -> notFound(ref));
        Json.write(
                ctx,
                200,
                new DeliveryList(hosts().deliveries(h.id(), limit).stream()
                        .map(DeliveryView::of)
                        .toList()));
    }

    private static ApiException notFound(String ref) {
        return ApiException.notFound("code_host_not_found", "no code host '" + ref + "' in this project");
    }
}

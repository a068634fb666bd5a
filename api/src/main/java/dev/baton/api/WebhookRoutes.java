package dev.baton.api;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.baton.store.Project;
import dev.baton.store.Role;
import dev.baton.store.Webhook;
import dev.baton.store.WebhookDelivery;
import dev.baton.web.auth.RouteAccess;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.net.URI;
import java.net.URISyntaxException;
import java.security.SecureRandom;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

/**
 * {@code /v0/projects/{project}/webhooks} (docs/alerts.md, "Webhooks"): endpoints that receive
 * each new alert of the project and its groups' change points that move or are withdrawn, signed with a secret shown once, and each one's delivery log.
 * Maintainers and up (the access its routes are registered with): a webhook sends the project's results elsewhere.
 */
final class WebhookRoutes implements RouteModule {
    private static final SecureRandom RANDOM = new SecureRandom();
    private static final int MAX_URL_LENGTH = 2048;

    private final ApiContext api;
    private final Lookups find;

    record CreateWebhook(String url) {}

    record WebhookView(String uuid, String url, Instant created) {
        static WebhookView of(Webhook w) {
            return new WebhookView(w.uuid(), w.url(), w.created());
        }
    }

    /** The answer of a create: the only time the secret is shown. */
    record CreatedWebhook(WebhookView webhook, String secret) {}

    record WebhookList(List<WebhookView> webhooks) {}

    /**
     * One delivery of the log: its {@code event}; the {@code alert} of an {@code alert.created},
     * the {@code group} and judged {@code report} of a {@code change_point.moved} or {@code
     * change_point.withdrawn} (docs/alerts.md, "Webhooks").
     */
    record DeliveryView(
            long id,
            String event,
            String alert,
            String group,
            String report,
            int attempts,
            @JsonInclude(JsonInclude.Include.ALWAYS) Instant nextAttempt,
            @JsonInclude(JsonInclude.Include.ALWAYS) Instant delivered,
            @JsonInclude(JsonInclude.Include.ALWAYS) Integer lastStatus,
            @JsonInclude(JsonInclude.Include.ALWAYS) String lastError,
            Instant created) {
        static DeliveryView of(WebhookDelivery d) {
            return new DeliveryView(
                    d.id(),
                    d.event(),
                    d.alertUuid(),
                    d.groupUuid(),
                    d.reportUuid(),
                    d.attempts(),
                    d.nextAttempt(),
                    d.delivered(),
                    d.lastStatus(),
                    d.lastError(),
                    d.created());
        }
    }

    record DeliveryList(List<DeliveryView> deliveries) {}

    WebhookRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post(
                "/v0/projects/{project}/webhooks",
                this::create,
                RouteAccess.onProject(Role.MAINTAINER).audited("webhook.created"));
        config.routes.get("/v0/projects/{project}/webhooks", this::list, RouteAccess.onProject(Role.MAINTAINER));
        config.routes.delete(
                "/v0/projects/{project}/webhooks/{webhook}",
                this::delete,
                RouteAccess.onProject(Role.MAINTAINER).audited("webhook.deleted"));
        config.routes.get(
                "/v0/projects/{project}/webhooks/{webhook}/deliveries",
                this::deliveries,
                RouteAccess.onProject(Role.MAINTAINER));
    }

    private void create(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String url = url(api.body(ctx, CreateWebhook.class).url());
        byte[] key = new byte[32];
        RANDOM.nextBytes(key);
        String secret = "whsec_" + HexFormat.of().formatHex(key);
        Webhook w = api.store().alerts().webhooks().createWebhook(project.id(), url, secret, api.now());
        Json.write(ctx, 201, new CreatedWebhook(WebhookView.of(w), secret));
    }

    static String url(String raw) {
        if (raw == null) throw ApiException.missingField("url");
        try {
            URI uri = new URI(raw);
            if (raw.length() > MAX_URL_LENGTH
                    || !("http".equals(uri.getScheme()) || "https".equals(uri.getScheme()))
                    || uri.getHost() == null
                    || uri.getUserInfo() != null
                    || uri.getFragment() != null) {
                throw ApiException.invalidField(
                        "url", "url must be an http or https URL with a host, without user info or fragment");
            }
            return raw;
        } catch (URISyntaxException e) {
            throw ApiException.invalidField("url", "url is not a URL: " + e.getMessage());
        }
    }

    private void list(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        Json.write(
                ctx,
                200,
                new WebhookList(api.store().alerts().webhooks().webhooks(project.id()).stream()
                        .map(WebhookView::of)
                        .toList()));
    }

    private void delete(Context ctx) {
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("webhook");
        if (!api.store().alerts().webhooks().deleteWebhook(project.id(), ref, api.now())) throw notFound(ref);
        ctx.status(204);
    }

    private void deliveries(Context ctx) {
        int limit =
                Fields.intParam("limit", ctx.queryParam("limit"), AlertRoutes.DEFAULT_LIMIT, 1, AlertRoutes.MAX_LIMIT);
        Project project = find.project(ctx.pathParam("project"));
        String ref = ctx.pathParam("webhook");
        Webhook w =
                api.store().alerts().webhooks().findWebhook(project.id(), ref).orElseThrow(() -> notFound(ref));
        Json.write(
                ctx,
                200,
                new DeliveryList(api.store().alerts().webhooks().deliveries(w.id(), limit).stream()
                        .map(DeliveryView::of)
                        .toList()));
    }

    private static ApiException notFound(String ref) {
        return ApiException.notFound("webhook_not_found", "no webhook '" + ref + "' in this project");
    }
}

package dev.baton.api;

import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Cpu;
import dev.baton.protocol.value.Disk;
import dev.baton.protocol.value.Memory;
import dev.baton.protocol.value.QueueTimeout;
import dev.baton.protocol.value.Slug;
import dev.baton.store.Spec;
import dev.baton.store.StoreException;
import dev.baton.web.http.ApiException;
import dev.baton.web.http.Json;
import dev.baton.web.http.Lookups;
import dev.baton.web.http.RouteModule;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;

/** Spec management (seed 001, server scoped; who may call what: auth.RouteTable). */
public final class SpecRoutes implements RouteModule {
    private final ApiContext api;
    private final Lookups find;

    public SpecRoutes(ApiContext api) {
        this.api = api;
        this.find = new Lookups(api.store());
    }

    record CreateSpec(
            String name,
            String slug,
            String architecture,
            Integer cpu,
            Long memory,
            Long disk,
            Boolean network,
            Integer queueTimeout,
            Boolean requireCleanFingerprint) {}

    /**
     * {@code queueTimeout}: seconds to set, 0 to clear, absent to leave as is;
     * {@code requireCleanFingerprint}: absent to leave as is.
     */
    record UpdateSpec(
            String name, String slug, Boolean archived, Integer queueTimeout, Boolean requireCleanFingerprint) {}

    @Override
    public void addRoutes(JavalinConfig config) {
        config.routes.post("/v0/specs", this::create);
        config.routes.get("/v0/specs", this::list);
        config.routes.get("/v0/specs/{spec}", this::get);
        config.routes.patch("/v0/specs/{spec}", this::update);
        config.routes.delete("/v0/specs/{spec}", this::delete);
    }

    private void create(Context ctx) {
        CreateSpec body = api.body(ctx, CreateSpec.class);
        String name = Fields.name("name", Fields.require("name", body.name()));
        Slug slug = Fields.slug("slug", body.slug());
        Architecture arch =
                Fields.parse("architecture", Fields.require("architecture", body.architecture()), Architecture::parse);
        Cpu cpu = Fields.parse("cpu", Fields.require("cpu", body.cpu()), Cpu::of);
        Memory memory = Fields.parse("memory", Fields.require("memory", body.memory()), Memory::of);
        Disk disk = Fields.parse("disk", Fields.require("disk", body.disk()), Disk::of);
        boolean network = body.network() != null && body.network();
        Integer queueTimeout = body.queueTimeout() == null
                ? null
                : Fields.parse("queue_timeout", body.queueTimeout(), QueueTimeout::of)
                        .seconds();
        Spec spec = Slugs.insert(
                name,
                slug,
                s -> api.store()
                        .specs()
                        .createSpec(name, s, arch, cpu.count(), memory.bytes(), disk.bytes(), network, api.now()));
        if (queueTimeout != null) spec = api.store().specs().setSpecQueueTimeout(spec.id(), queueTimeout, api.now());
        if (Boolean.TRUE.equals(body.requireCleanFingerprint()))
            spec = api.store().specs().setSpecRequireCleanFingerprint(spec.id(), true, api.now());
        Json.write(ctx, 201, spec.view());
    }

    private void list(Context ctx) {
        boolean archived = Fields.flag("archived", ctx.queryParam("archived"));
        Json.write(
                ctx,
                200,
                api.store().specs().listSpecs(archived).stream().map(Spec::view).toList());
    }

    private void get(Context ctx) {
        Json.write(ctx, 200, find.spec(ctx.pathParam("spec")).view());
    }

    private void update(Context ctx) {
        UpdateSpec body = api.body(ctx, UpdateSpec.class);
        String name = Fields.name("name", body.name());
        Slug slug = Fields.slug("slug", body.slug());
        Integer queueTimeout = body.queueTimeout() == null || body.queueTimeout() == 0
                ? null
                : Fields.parse("queue_timeout", body.queueTimeout(), QueueTimeout::of)
                        .seconds();
        Spec spec = find.spec(ctx.pathParam("spec"));
        try {
            Spec updated = api.store().specs().updateSpec(spec.id(), name, slug, body.archived(), api.now());
            if (body.queueTimeout() != null)
                updated = api.store().specs().setSpecQueueTimeout(spec.id(), queueTimeout, api.now());
            if (body.requireCleanFingerprint() != null) {
                updated = api.store()
                        .specs()
                        .setSpecRequireCleanFingerprint(spec.id(), body.requireCleanFingerprint(), api.now());
            }
            Json.write(ctx, 200, updated.view());
        } catch (StoreException e) {
            if (e.reason() == StoreException.Reason.CONFLICT && slug != null) throw Slugs.taken(slug);
            throw e;
        }
    }

    private void delete(Context ctx) {
        Spec spec = find.spec(ctx.pathParam("spec"));
        try {
            api.store().specs().deleteSpec(spec.id());
        } catch (StoreException e) {
            if (e.reason() == StoreException.Reason.IN_USE) {
                throw ApiException.conflict(
                        "spec_in_use",
                        "spec '" + spec.slug() + "' is referenced by jobs; archive it instead (PATCH archived=true)");
            }
            throw e;
        }
        ctx.status(204);
    }
}

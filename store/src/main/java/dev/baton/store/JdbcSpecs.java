package dev.baton.store;

import static dev.baton.store.Rows.micros;
import static dev.baton.store.StoreContext.notFound;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.value.Architecture;
import dev.baton.protocol.value.Slug;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.statement.Update;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Specs, the specs each runner serves, and the cache of specs the hand-out reads. */
final class JdbcSpecs implements Specs {
    private static final Logger LOG = LoggerFactory.getLogger(JdbcSpecs.class);

    private static final String RUNNER_SPECS =
            "SELECT " + prefixed("s", Rows.SPEC) + " FROM spec s JOIN runner_spec rs ON rs.spec_id = s.id"
                    + " WHERE rs.runner_id = :runner ORDER BY s.created, s.id";

    private final StoreContext context;
    private final Statements statements;
    /** Specs change rarely and are read on every hand-out; writes below invalidate it. */
    private final SpecCache specs = new SpecCache();
    /** Told after every spec or runner-spec write ({@link #onSpecsChange}). */
    private final List<Runnable> specListeners = new java.util.concurrent.CopyOnWriteArrayList<>();

    JdbcSpecs(StoreContext context) {
        this.context = context;
        this.statements = context.statements;
    }

    @Override
    public Spec createSpec(
            String name,
            Slug slug,
            Architecture architecture,
            int cpu,
            long memory,
            long disk,
            boolean network,
            Instant now) {
        return context.unique(
                "spec slug '" + slug + "' is taken",
                () -> context.write(h -> {
                    long id = h.createQuery(
                                    "INSERT INTO spec (uuid, name, slug, architecture, cpu, memory, disk, network, created, modified)"
                                            + " VALUES (:uuid, :name, :slug, :arch, :cpu, :memory, :disk, :network, :now, :now) RETURNING id")
                            .bind("uuid", UUID.randomUUID().toString())
                            .bind("name", name)
                            .bind("slug", slug.value())
                            .bind("arch", architecture.wireName())
                            .bind("cpu", cpu)
                            .bind("memory", memory)
                            .bind("disk", disk)
                            .bind("network", network)
                            .bind("now", micros(now))
                            .mapTo(Long.class)
                            .one();
                    return context.spec(h, id).orElseThrow();
                }));
    }

    @Override
    public Optional<Spec> findSpec(ResourceId id) {
        String reference = id.uuid().map(u -> "uuid:" + u).orElse("slug:" + id.text());
        return specs.get(
                reference, () -> context.readPlain(c -> context.byResource(c, "spec", Rows.SPEC, id, Rows::spec)));
    }

    @Override
    public Optional<Spec> findSpec(long id) {
        return specs.get(id, key -> context.readPlain(c -> context.byId(c, "spec", Rows.SPEC, key, Rows::spec)));
    }

    @Override
    public List<Spec> listSpecs(boolean archived) {
        return context.read(h -> h.createQuery("SELECT " + Rows.SPEC + " FROM spec"
                        + (archived ? "" : " WHERE archived IS NULL") + " ORDER BY created, id")
                .map(Rows.SPEC_MAPPER)
                .list());
    }

    @Override
    public Spec updateSpec(long specId, String name, Slug slug, Boolean archived, Instant now) {
        try {
            return updateSpecRow(specId, name, slug, archived, now);
        } finally {
            specsChanged();
        }
    }

    private Spec updateSpecRow(long specId, String name, Slug slug, Boolean archived, Instant now) {
        return context.unique(
                "spec slug '" + slug + "' is taken",
                () -> context.write(h -> {
                    Update u = h.createUpdate("UPDATE spec SET modified = :now"
                            + (name != null ? ", name = :name" : "")
                            + (slug != null ? ", slug = :slug" : "")
                            + (archived == null
                                    ? ""
                                    : archived ? ", archived = COALESCE(archived, :now)" : ", archived = NULL")
                            + " WHERE id = :id");
                    u.bind("now", micros(now)).bind("id", specId);
                    if (name != null) u.bind("name", name);
                    if (slug != null) u.bind("slug", slug.value());
                    if (u.execute() == 0) throw notFound("spec", specId);
                    return context.spec(h, specId).orElseThrow();
                }));
    }

    @Override
    public Spec setSpecQueueTimeout(long specId, Integer queueTimeoutSeconds, Instant now) {
        try {
            return setSpecQueueTimeoutRow(specId, queueTimeoutSeconds, now);
        } finally {
            specsChanged();
        }
    }

    private Spec setSpecQueueTimeoutRow(long specId, Integer queueTimeoutSeconds, Instant now) {
        return context.write(h -> {
            int rows = h.createUpdate("UPDATE spec SET queue_timeout = :qt, modified = :now WHERE id = :id")
                    .bind("qt", queueTimeoutSeconds)
                    .bind("now", micros(now))
                    .bind("id", specId)
                    .execute();
            if (rows == 0) throw notFound("spec", specId);
            return context.spec(h, specId).orElseThrow();
        });
    }

    @Override
    public Spec setSpecRequireCleanFingerprint(long specId, boolean required, Instant now) {
        try {
            return context.write(h -> {
                int rows = h.createUpdate(
                                "UPDATE spec SET require_clean_fingerprint = :required, modified = :now WHERE id = :id")
                        .bind("required", required)
                        .bind("now", micros(now))
                        .bind("id", specId)
                        .execute();
                if (rows == 0) throw notFound("spec", specId);
                return context.spec(h, specId).orElseThrow();
            });
        } finally {
            specsChanged();
        }
    }

    @Override
    public void deleteSpec(long specId) {
        try {
            deleteSpecRow(specId);
        } finally {
            specsChanged();
        }
    }

    private void deleteSpecRow(long specId) {
        context.write(h -> {
            if (context.spec(h, specId).isEmpty()) throw notFound("spec", specId);
            long jobs = h.createQuery("SELECT COUNT(*) FROM job WHERE spec_id = :id")
                    .bind("id", specId)
                    .mapTo(Long.class)
                    .one();
            if (jobs > 0) {
                throw new StoreException(
                        StoreException.Reason.IN_USE,
                        "spec is referenced by " + jobs + (jobs == 1 ? " job" : " jobs") + "; archive it instead");
            }
            // runner_spec restricts deleting a spec so that a job's spec cannot vanish by accident;
            // with no job referencing it, its runner associations go with it.
            h.createUpdate("DELETE FROM runner_spec WHERE spec_id = :id")
                    .bind("id", specId)
                    .execute();
            return h.createUpdate("DELETE FROM spec WHERE id = :id")
                    .bind("id", specId)
                    .execute();
        });
    }

    @Override
    public List<Spec> runnerSpecs(long runnerId) {
        return context.readPlain(
                c -> statements.on(c, RUNNER_SPECS).bind("runner", runnerId).list(Rows::spec));
    }

    @Override
    public void addRunnerSpec(long runnerId, long specId) {
        try {
            addRunnerSpecRow(runnerId, specId);
        } finally {
            specsChanged();
        }
    }

    private void addRunnerSpecRow(long runnerId, long specId) {
        context.write(h -> {
            if (context.runner(h, runnerId).isEmpty()) throw notFound("runner", runnerId);
            if (context.spec(h, specId).isEmpty()) throw notFound("spec", specId);
            return h.createUpdate("INSERT INTO runner_spec (runner_id, spec_id) VALUES (:runner, :spec)"
                            + " ON CONFLICT (runner_id, spec_id) DO NOTHING")
                    .bind("runner", runnerId)
                    .bind("spec", specId)
                    .execute();
        });
    }

    @Override
    public boolean removeRunnerSpec(long runnerId, long specId) {
        try {
            return removeRunnerSpecRow(runnerId, specId);
        } finally {
            specsChanged();
        }
    }

    private boolean removeRunnerSpecRow(long runnerId, long specId) {
        return context.write(
                        h -> h.createUpdate("DELETE FROM runner_spec WHERE runner_id = :runner AND spec_id = :spec")
                                .bind("runner", runnerId)
                                .bind("spec", specId)
                                .execute())
                > 0;
    }

    @Override
    public Runnable onSpecsChange(Runnable listener) {
        specListeners.add(listener);
        return () -> specListeners.remove(listener);
    }

    @Override
    public void specsChangedElsewhere() {
        specs.invalidate();
    }

    /** After a spec or runner-spec write (committed or failed: a spurious invalidation costs one read). */
    private void specsChanged() {
        specs.invalidate();
        for (Runnable listener : specListeners) {
            // Runs in a finally: a failing listener must not hide the write's own exception.
            try {
                listener.run();
            } catch (RuntimeException e) {
                LOG.warn("a spec change listener failed", e);
            }
        }
    }

    private static String prefixed(String alias, String columns) {
        List<String> out = new ArrayList<>();
        for (String c : columns.split(",")) out.add(alias + "." + c.strip());
        return String.join(", ", out);
    }
}

package dev.baton.store;

import static dev.baton.store.Rows.micros;

import java.sql.SQLException;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/** The OCI registry's upload sessions, each advance a compare-and-set on its size. */
final class JdbcRegistryUploads implements RegistryUploads {
    private static final String UPLOAD_COLUMNS = "id, project_uuid, repository, size, chunks, created, updated";

    private final StoreContext context;

    JdbcRegistryUploads(StoreContext context) {
        this.context = context;
    }

    private static RegistryUpload registryUpload(java.sql.ResultSet rs, org.jdbi.v3.core.statement.StatementContext ctx)
            throws SQLException {
        return new RegistryUpload(
                rs.getString("id"),
                rs.getString("project_uuid"),
                rs.getString("repository"),
                rs.getLong("size"),
                rs.getString("chunks"),
                Rows.instant(rs, "created"),
                Rows.instant(rs, "updated"));
    }

    @Override
    public void createRegistryUpload(RegistryUpload upload) {
        context.write(h -> h.createUpdate("INSERT INTO registry_upload (" + UPLOAD_COLUMNS + ")"
                        + " VALUES (:id, :project, :repository, :size, :chunks, :created, :updated)")
                .bind("id", upload.id())
                .bind("project", upload.projectUuid())
                .bind("repository", upload.repository())
                .bind("size", upload.size())
                .bind("chunks", upload.chunks())
                .bind("created", micros(upload.created()))
                .bind("updated", micros(upload.updated()))
                .execute());
    }

    @Override
    public Optional<RegistryUpload> findRegistryUpload(String id) {
        return context.read(h -> h.createQuery("SELECT " + UPLOAD_COLUMNS + " FROM registry_upload WHERE id = :id")
                .bind("id", id)
                .map(JdbcRegistryUploads::registryUpload)
                .findOne());
    }

    @Override
    public boolean advanceRegistryUpload(String id, long expectedSize, long size, String chunks, Instant now) {
        return context.write(
                h -> h.createUpdate("UPDATE registry_upload SET size = :size, chunks = :chunks, updated = :now"
                                        + " WHERE id = :id AND size = :expected")
                                .bind("size", size)
                                .bind("chunks", chunks)
                                .bind("now", micros(now))
                                .bind("id", id)
                                .bind("expected", expectedSize)
                                .execute()
                        == 1);
    }

    @Override
    public boolean deleteRegistryUpload(String id, long expectedSize) {
        return context.write(h ->
                h.createUpdate("DELETE FROM registry_upload WHERE id = :id AND (:expected < 0 OR size = :expected)")
                                .bind("id", id)
                                .bind("expected", expectedSize)
                                .execute()
                        == 1);
    }

    @Override
    public List<RegistryUpload> idleRegistryUploads(Instant cutoff, int limit) {
        return context.read(h -> h.createQuery("SELECT " + UPLOAD_COLUMNS
                        + " FROM registry_upload WHERE updated < :cutoff" + " ORDER BY updated ASC LIMIT :limit")
                .bind("cutoff", micros(cutoff))
                .bind("limit", limit)
                .map(JdbcRegistryUploads::registryUpload)
                .list());
    }

    @Override
    public long countRegistryUploads() {
        return context.read(h -> h.createQuery("SELECT COUNT(*) FROM registry_upload")
                .mapTo(Long.class)
                .one());
    }
}

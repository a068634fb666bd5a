package dev.baton.store;

import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.micros;
import static dev.baton.store.Rows.nullableLong;
import static dev.baton.store.Rows.uuid;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.id.TokenUuid;
import dev.baton.protocol.id.UserUuid;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.mapper.RowMapper;
import org.jdbi.v3.core.statement.Query;

/** {@link AccessStore} in SQL both dialects accept, on the store's transactions ({@link StoreContext}). */
final class JdbcAccessStore implements AccessStore {
    private static final String USER = "id, uuid, name, created";
    private static final String MEMBERSHIP = "user_id, organization_id, project_id, role, created";
    private static final String TOKEN =
            "id, uuid, user_id, name, organization_id, project_id, role, created, expires, last_used, revoked";
    private static final String AUDIT = "id, at, actor, token, action, target, detail, address";

    private static final RowMapper<User> USER_MAPPER = (rs, ctx) ->
            new User(rs.getLong("id"), new UserUuid(uuid(rs)), rs.getString("name"), instant(rs, "created"));
    private static final RowMapper<Membership> MEMBERSHIP_MAPPER = (rs, ctx) -> new Membership(
            rs.getLong("user_id"),
            nullableLong(rs, "organization_id"),
            nullableLong(rs, "project_id"),
            Role.ofCode(rs.getInt("role")),
            instant(rs, "created"));
    private static final RowMapper<StoredToken> TOKEN_MAPPER = (rs, ctx) -> new StoredToken(
            rs.getLong("id"),
            new TokenUuid(uuid(rs)),
            rs.getLong("user_id"),
            rs.getString("name"),
            nullableLong(rs, "organization_id"),
            nullableLong(rs, "project_id"),
            Role.ofCode(rs.getInt("role")),
            instant(rs, "created"),
            instant(rs, "expires"),
            instant(rs, "last_used"),
            instant(rs, "revoked"));
    private static final RowMapper<AuditEvent> AUDIT_MAPPER = (rs, ctx) -> new AuditEvent(
            rs.getLong("id"),
            instant(rs, "at"),
            rs.getString("actor"),
            rs.getString("token"),
            rs.getString("action"),
            rs.getString("target"),
            rs.getString("detail"),
            rs.getString("address"));

    private final StoreContext context;

    JdbcAccessStore(StoreContext context) {
        this.context = context;
    }

    @Override
    public User createUser(String name, Instant now) {
        return context.unique(
                "user name '" + name + "' is taken",
                () -> context.write(h -> {
                    long id = h.createQuery(
                                    "INSERT INTO app_user (uuid, name, created, modified) VALUES (:uuid, :name, :now, :now) RETURNING id")
                            .bind("uuid", UUID.randomUUID().toString())
                            .bind("name", name)
                            .bind("now", micros(now))
                            .mapTo(Long.class)
                            .one();
                    return h.createQuery("SELECT " + USER + " FROM app_user WHERE id = :id")
                            .bind("id", id)
                            .map(USER_MAPPER)
                            .one();
                }));
    }

    @Override
    public Optional<User> findUser(ResourceId id) {
        Optional<UUID> uuid = id.uuid();
        return context.read(h -> h.createQuery(
                        "SELECT " + USER + " FROM app_user WHERE " + (uuid.isPresent() ? "uuid" : "name") + " = :id")
                .bind("id", uuid.map(UUID::toString).orElse(id.text()))
                .map(USER_MAPPER)
                .findOne());
    }

    @Override
    public Optional<User> findUser(long id) {
        return context.read(h -> h.createQuery("SELECT " + USER + " FROM app_user WHERE id = :id")
                .bind("id", id)
                .map(USER_MAPPER)
                .findOne());
    }

    @Override
    public List<User> listUsers() {
        return context.read(h -> h.createQuery("SELECT " + USER + " FROM app_user ORDER BY name")
                .map(USER_MAPPER)
                .list());
    }

    @Override
    public Membership setMembership(long userId, Long organizationId, Long projectId, Role role, Instant now) {
        new Membership(userId, organizationId, projectId, role, now); // checks exactly one scope
        // Two first-time sets at once: one inserts, the other meets the unique index and is a CONFLICT (409), not a
        // fault.
        return context.unique(
                "the membership changed concurrently; try again",
                () -> context.write(h -> {
                    String where = " WHERE user_id = :user AND "
                            + (organizationId != null ? "organization_id = :org" : "project_id = :project");
                    int updated = h.createUpdate("UPDATE membership SET role = :role, modified = :now" + where)
                            .bind("user", userId)
                            .bind("org", organizationId)
                            .bind("project", projectId)
                            .bind("role", role.code())
                            .bind("now", micros(now))
                            .execute();
                    if (updated == 0) {
                        h.createUpdate(
                                        "INSERT INTO membership (user_id, organization_id, project_id, role, created, modified)"
                                                + " VALUES (:user, :org, :project, :role, :now, :now)")
                                .bind("user", userId)
                                .bind("org", organizationId)
                                .bind("project", projectId)
                                .bind("role", role.code())
                                .bind("now", micros(now))
                                .execute();
                    }
                    return h.createQuery("SELECT " + MEMBERSHIP + " FROM membership" + where)
                            .bind("user", userId)
                            .bind("org", organizationId)
                            .bind("project", projectId)
                            .map(MEMBERSHIP_MAPPER)
                            .one();
                }));
    }

    @Override
    public boolean removeMembership(long userId, Long organizationId, Long projectId) {
        return context.write(h -> h.createUpdate("DELETE FROM membership WHERE user_id = :user AND "
                                + (organizationId != null ? "organization_id = :org" : "project_id = :project"))
                        .bind("user", userId)
                        .bind("org", organizationId)
                        .bind("project", projectId)
                        .execute()
                > 0);
    }

    @Override
    public List<Membership> members(Long organizationId, Long projectId) {
        return context.read(h -> h.createQuery("SELECT " + MEMBERSHIP + " FROM membership WHERE "
                        + (organizationId != null ? "organization_id = :org" : "project_id = :project")
                        + " ORDER BY created, id")
                .bind("org", organizationId)
                .bind("project", projectId)
                .map(MEMBERSHIP_MAPPER)
                .list());
    }

    @Override
    public List<Membership> membershipsOf(long userId) {
        return context.read(
                h -> h.createQuery("SELECT " + MEMBERSHIP + " FROM membership WHERE user_id = :user ORDER BY id")
                        .bind("user", userId)
                        .map(MEMBERSHIP_MAPPER)
                        .list());
    }

    @Override
    public StoredToken createToken(NewToken t, Instant now) {
        return context.write(h -> {
            long id = h.createQuery(
                            "INSERT INTO api_token (uuid, user_id, name, token_hash, organization_id, project_id, role, created, expires)"
                                    + " VALUES (:uuid, :user, :name, :hash, :org, :project, :role, :now, :expires) RETURNING id")
                    .bind("uuid", UUID.randomUUID().toString())
                    .bind("user", t.userId())
                    .bind("name", t.name())
                    .bind("hash", t.hash())
                    .bind("org", t.organizationId())
                    .bind("project", t.projectId())
                    .bind("role", t.role().code())
                    .bind("now", micros(now))
                    .bind("expires", micros(t.expires()))
                    .mapTo(Long.class)
                    .one();
            return h.createQuery("SELECT " + TOKEN + " FROM api_token WHERE id = :id")
                    .bind("id", id)
                    .map(TOKEN_MAPPER)
                    .one();
        });
    }

    @Override
    public Optional<StoredToken> tokenByHash(String hash) {
        return context.read(h -> h.createQuery("SELECT " + TOKEN + " FROM api_token WHERE token_hash = :hash")
                .bind("hash", hash)
                .map(TOKEN_MAPPER)
                .findOne());
    }

    @Override
    public Optional<StoredToken> findToken(TokenUuid uuid) {
        return context.read(h -> h.createQuery("SELECT " + TOKEN + " FROM api_token WHERE uuid = :uuid")
                .bind("uuid", uuid.toString())
                .map(TOKEN_MAPPER)
                .findOne());
    }

    @Override
    public List<StoredToken> listTokens(Long userId) {
        return context.read(h -> {
            Query q = h.createQuery("SELECT " + TOKEN + " FROM api_token"
                    + (userId != null ? " WHERE user_id = :user" : "") + " ORDER BY id DESC");
            if (userId != null) q.bind("user", userId);
            return q.map(TOKEN_MAPPER).list();
        });
    }

    @Override
    public void touchToken(long tokenId, Instant now, Duration granularity) {
        context.write(h -> h.createUpdate(
                        "UPDATE api_token SET last_used = :now WHERE id = :id AND (last_used IS NULL OR last_used < :stale)")
                .bind("now", micros(now))
                .bind("id", tokenId)
                .bind("stale", micros(now.minus(granularity)))
                .execute());
    }

    @Override
    public boolean revokeToken(long tokenId, Instant now) {
        return context.write(
                h -> h.createUpdate("UPDATE api_token SET revoked = :now WHERE id = :id AND revoked IS NULL")
                                .bind("now", micros(now))
                                .bind("id", tokenId)
                                .execute()
                        > 0);
    }

    @Override
    public Optional<Long> jobSubmitter(long jobId) {
        return context.read(h -> h.createQuery("SELECT user_id FROM job_submitter WHERE job_id = :job")
                .bind("job", jobId)
                .mapTo(Long.class)
                .findOne());
    }

    @Override
    public void appendAudit(
            Instant at, String actor, String token, String action, String target, String detail, String address) {
        context.write(h -> h.createUpdate("INSERT INTO audit_event (at, actor, token, action, target, detail, address)"
                        + " VALUES (:at, :actor, :token, :action, :target, :detail, :address)")
                .bind("at", micros(at))
                .bind("actor", actor)
                .bind("token", token)
                .bind("action", action)
                .bind("target", target)
                .bind("detail", detail)
                .bind("address", address)
                .execute());
    }

    @Override
    public List<AuditEvent> audit(AuditFilter f) {
        List<String> where = new ArrayList<>();
        if (f.actor() != null) where.add("actor = :actor");
        if (f.action() != null) where.add("action = :action");
        if (f.since() != null) where.add("at >= :since");
        if (f.until() != null) where.add("at < :until");
        if (f.before() != null) where.add("id < :before");
        String sql = "SELECT " + AUDIT + " FROM audit_event"
                + (where.isEmpty() ? "" : " WHERE " + String.join(" AND ", where)) + " ORDER BY id DESC LIMIT :limit";
        return context.read(h -> {
            Query q = h.createQuery(sql).bind("limit", f.limit());
            if (f.actor() != null) q.bind("actor", f.actor());
            if (f.action() != null) q.bind("action", f.action());
            if (f.since() != null) q.bind("since", micros(f.since()));
            if (f.until() != null) q.bind("until", micros(f.until()));
            if (f.before() != null) q.bind("before", f.before());
            return q.map(AUDIT_MAPPER).list();
        });
    }

    @Override
    public int pruneAudit(Instant before) {
        return context.write(h -> h.createUpdate("DELETE FROM audit_event WHERE at < :before")
                .bind("before", micros(before))
                .execute());
    }
}

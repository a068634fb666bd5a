package dev.baton.store;

import static dev.baton.store.Rows.instant;
import static dev.baton.store.Rows.micros;
import static dev.baton.store.Rows.nullableInt;

import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.mapper.RowMapper;

/** {@link CodeHosts} in SQL both dialects accept, on the store's transactions ({@link StoreContext}). */
final class JdbcCodeHosts implements CodeHosts {
    private static final String HOST =
            "h.id, h.uuid, h.project_id, h.kind, h.api_url, h.repository, h.token, h.created";
    private static final String DELIVERY = "SELECT " + HOST
            + ", d.id AS delivery_id, d.report_id, r.uuid AS report_uuid, r.branch, r.testbed, r.hash, d.number,"
            + " d.attempts, d.next_attempt, d.delivered, d.last_status, d.last_error, d.check_run, d.created AS delivery_created"
            + " FROM code_host_delivery d JOIN code_host h ON h.id = d.host_id JOIN report r ON r.id = d.report_id";

    private static final RowMapper<CodeHost> HOST_MAPPER = (rs, ctx) -> new CodeHost(
            rs.getLong("id"),
            rs.getString("uuid"),
            rs.getLong("project_id"),
            rs.getString("kind"),
            rs.getString("api_url"),
            rs.getString("repository"),
            rs.getString("token"),
            instant(rs, "created"));
    private static final RowMapper<CodeHostDelivery> DELIVERY_MAPPER = (rs, ctx) -> new CodeHostDelivery(
            rs.getLong("delivery_id"),
            HOST_MAPPER.map(rs, ctx),
            rs.getLong("report_id"),
            rs.getString("report_uuid"),
            rs.getString("branch"),
            rs.getString("testbed"),
            rs.getString("hash"),
            rs.getInt("number"),
            rs.getInt("attempts"),
            instant(rs, "next_attempt"),
            instant(rs, "delivered"),
            nullableInt(rs, "last_status"),
            rs.getString("last_error"),
            rs.getString("check_run"),
            instant(rs, "delivery_created"));

    private final StoreContext context;

    JdbcCodeHosts(StoreContext context) {
        this.context = context;
    }

    /**
     * The outbox rows of a report being judged, in the judgement's transaction: one per host of
     * the project whose kind the run named a pull or merge request for.
     */
    static void enqueue(Handle h, long projectId, long reportId, Instant now) {
        h.createUpdate("INSERT INTO code_host_delivery (host_id, report_id, number, attempts, next_attempt, created)"
                        + " SELECT c.id, r.id, CASE WHEN c.kind = 'github' THEN r.github_pr ELSE r.gitlab_mr END, 0, :now, :now"
                        + " FROM code_host c JOIN report r ON r.id = :r"
                        + " WHERE c.project_id = :p AND c.deleted IS NULL"
                        + " AND ((c.kind = 'github' AND r.github_pr IS NOT NULL) OR (c.kind = 'gitlab' AND r.gitlab_mr IS NOT NULL))"
                        + " ON CONFLICT DO NOTHING")
                .bind("now", micros(now))
                .bind("r", reportId)
                .bind("p", projectId)
                .execute();
    }

    @Override
    public CodeHost createHost(
            long projectId, String kind, String apiUrl, String repository, String token, Instant now) {
        return context.write(h -> {
            long id = h.createQuery(
                            "INSERT INTO code_host (uuid, project_id, kind, api_url, repository, token, created)"
                                    + " VALUES (:uuid, :p, :kind, :url, :repo, :token, :now) RETURNING id")
                    .bind("uuid", UUID.randomUUID().toString())
                    .bind("p", projectId)
                    .bind("kind", kind)
                    .bind("url", apiUrl)
                    .bind("repo", repository)
                    .bind("token", token)
                    .bind("now", micros(now))
                    .mapTo(Long.class)
                    .one();
            return h.createQuery("SELECT " + HOST + " FROM code_host h WHERE h.id = :id")
                    .bind("id", id)
                    .map(HOST_MAPPER)
                    .one();
        });
    }

    @Override
    public List<CodeHost> hosts(long projectId) {
        return context.read(h -> h.createQuery("SELECT " + HOST
                        + " FROM code_host h WHERE h.project_id = :p AND h.deleted IS NULL ORDER BY h.id")
                .bind("p", projectId)
                .map(HOST_MAPPER)
                .list());
    }

    @Override
    public Optional<CodeHost> findHost(long projectId, String uuid) {
        return context.read(h -> h.createQuery("SELECT " + HOST
                        + " FROM code_host h WHERE h.project_id = :p AND h.uuid = :uuid AND h.deleted IS NULL")
                .bind("p", projectId)
                .bind("uuid", uuid)
                .map(HOST_MAPPER)
                .findOne());
    }

    @Override
    public Optional<CodeHost> updateHost(long projectId, String uuid, String apiUrl, String token) {
        return context.write(h -> {
            int n = h.createUpdate("UPDATE code_host SET api_url = :url, token = :token"
                            + " WHERE project_id = :p AND uuid = :uuid AND deleted IS NULL")
                    .bind("url", apiUrl)
                    .bind("token", token)
                    .bind("p", projectId)
                    .bind("uuid", uuid)
                    .execute();
            if (n == 0) return Optional.<CodeHost>empty();
            return h.createQuery("SELECT " + HOST + " FROM code_host h WHERE h.project_id = :p AND h.uuid = :uuid")
                    .bind("p", projectId)
                    .bind("uuid", uuid)
                    .map(HOST_MAPPER)
                    .findOne();
        });
    }

    @Override
    public boolean deleteHost(long projectId, String uuid, Instant now) {
        return context.write(h -> {
            int n = h.createUpdate(
                            "UPDATE code_host SET deleted = :now WHERE project_id = :p AND uuid = :uuid AND deleted IS NULL")
                    .bind("now", micros(now))
                    .bind("p", projectId)
                    .bind("uuid", uuid)
                    .execute();
            h.createUpdate("UPDATE code_host_delivery SET next_attempt = NULL"
                            + " WHERE host_id IN (SELECT id FROM code_host WHERE uuid = :uuid)")
                    .bind("uuid", uuid)
                    .execute();
            return n > 0;
        });
    }

    @Override
    public void setReportReview(long reportId, Integer githubPr, Integer gitlabMr) {
        context.write(h -> h.createUpdate("UPDATE report SET github_pr = :gh, gitlab_mr = :gl WHERE id = :id")
                .bind("gh", githubPr)
                .bind("gl", gitlabMr)
                .bind("id", reportId)
                .execute());
    }

    @Override
    public ReportReview reportReview(long reportId) {
        return context.read(h -> h.createQuery("SELECT github_pr, gitlab_mr FROM report WHERE id = :id")
                .bind("id", reportId)
                .map((rs, ctx) -> new ReportReview(nullableInt(rs, "github_pr"), nullableInt(rs, "gitlab_mr")))
                .findOne()
                .orElse(ReportReview.NONE));
    }

    @Override
    public List<CodeHostDelivery> dueDeliveries(Instant now, int limit) {
        return context.read(h -> h.createQuery(
                        DELIVERY + " WHERE d.next_attempt IS NOT NULL AND d.next_attempt <= :now AND h.deleted IS NULL"
                                + " ORDER BY d.next_attempt, d.id LIMIT :limit")
                .bind("now", micros(now))
                .bind("limit", limit)
                .map(DELIVERY_MAPPER)
                .list());
    }

    @Override
    public boolean takeDelivery(long id, Instant due, Instant retryAt) {
        return context.write(h -> h.createUpdate(
                                "UPDATE code_host_delivery SET next_attempt = :retry WHERE id = :id AND next_attempt = :due")
                        .bind("retry", micros(retryAt))
                        .bind("id", id)
                        .bind("due", micros(due))
                        .execute()
                > 0);
    }

    @Override
    public void setCheckRun(long id, String checkRun) {
        context.write(h -> h.createUpdate("UPDATE code_host_delivery SET check_run = :c WHERE id = :id")
                .bind("c", checkRun)
                .bind("id", id)
                .execute());
    }

    @Override
    public void recordAttempt(long id, Integer status, String error, Instant delivered, Instant nextAttempt) {
        context.write(h -> h.createUpdate(
                        "UPDATE code_host_delivery SET attempts = attempts + 1, last_status = :status, last_error = :error,"
                                + " delivered = :delivered, next_attempt = :next WHERE id = :id")
                .bind("status", status)
                .bind("error", error)
                .bind("delivered", micros(delivered))
                .bind("next", micros(nextAttempt))
                .bind("id", id)
                .execute());
    }

    @Override
    public void postpone(long id, Instant nextAttempt) {
        context.write(h -> h.createUpdate("UPDATE code_host_delivery SET next_attempt = :next WHERE id = :id")
                .bind("next", micros(nextAttempt))
                .bind("id", id)
                .execute());
    }

    @Override
    public List<CodeHostDelivery> deliveries(long hostId, int limit) {
        return context.read(h -> h.createQuery(DELIVERY + " WHERE d.host_id = :h ORDER BY d.id DESC LIMIT :limit")
                .bind("h", hostId)
                .bind("limit", limit)
                .map(DELIVERY_MAPPER)
                .list());
    }

    @Override
    public Optional<CodeHostComment> takeComment(
            long hostId, int number, String branch, String testbed, Instant now, Instant takenUntil) {
        return context.write(h -> {
            h.createUpdate("INSERT INTO code_host_comment (host_id, number, branch, testbed, modified)"
                            + " VALUES (:h, :n, :b, :t, :now) ON CONFLICT DO NOTHING")
                    .bind("h", hostId)
                    .bind("n", number)
                    .bind("b", branch)
                    .bind("t", testbed)
                    .bind("now", micros(now))
                    .execute();
            // The compare-and-set that makes one node the comment's writer until takenUntil.
            int taken = h.createUpdate("UPDATE code_host_comment SET taken_until = :until"
                            + " WHERE host_id = :h AND number = :n AND branch = :b AND testbed = :t"
                            + " AND (taken_until IS NULL OR taken_until <= :now)")
                    .bind("until", micros(takenUntil))
                    .bind("h", hostId)
                    .bind("n", number)
                    .bind("b", branch)
                    .bind("t", testbed)
                    .bind("now", micros(now))
                    .execute();
            if (taken == 0) return Optional.<CodeHostComment>empty();
            return Optional.of(h.createQuery("SELECT id, remote_id, report_id FROM code_host_comment"
                            + " WHERE host_id = :h AND number = :n AND branch = :b AND testbed = :t")
                    .bind("h", hostId)
                    .bind("n", number)
                    .bind("b", branch)
                    .bind("t", testbed)
                    .map((rs, ctx) -> new CodeHostComment(
                            rs.getLong("id"), rs.getString("remote_id"), Rows.nullableLong(rs, "report_id")))
                    .one());
        });
    }

    @Override
    public void releaseComment(long commentId, String remoteId, Long reportId, Instant now) {
        context.write(h -> h.createUpdate("UPDATE code_host_comment SET taken_until = NULL, modified = :now,"
                        + " remote_id = COALESCE(:remote, remote_id), report_id = COALESCE(:report, report_id)"
                        + " WHERE id = :id")
                .bind("now", micros(now))
                .bind("remote", remoteId)
                .bind("report", reportId)
                .bind("id", commentId)
                .execute());
    }
}

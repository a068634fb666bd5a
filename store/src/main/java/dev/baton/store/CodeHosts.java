package dev.baton.store;

import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * Code hosts, their outbox and their sticky comments (docs/pull-requests.md). Deliveries are
 * written with the judgement ({@link Alerts#recordJudgement}) for every judged report that
 * names a pull request; senders on any node take the due ones with a compare-and-set, and hold a
 * sticky comment while they write it, so it is created once and then only updated.
 */
public interface CodeHosts {
    CodeHost createHost(long projectId, String kind, String apiUrl, String repository, String token, Instant now);

    /** The project's hosts that are not deleted, oldest first. */
    List<CodeHost> hosts(long projectId);

    Optional<CodeHost> findHost(long projectId, String uuid);

    /**
     * Replaces the token and API root of a host that is not deleted (the repository and kind stay:
     * its sticky comments and deliveries belong to them); empty when there is none.
     */
    Optional<CodeHost> updateHost(long projectId, String uuid, String apiUrl, String token);

    /** Marks it deleted (its pending deliveries are not sent); false when there was none. */
    boolean deleteHost(long projectId, String uuid, Instant now);

    /** Records the pull request ({@code githubPr}) and merge request ({@code gitlabMr}) a run belongs to; null: none. */
    void setReportReview(long reportId, Integer githubPr, Integer gitlabMr);

    /** What {@link #setReportReview} recorded ({@link ReportReview#NONE} for no such report). */
    ReportReview reportReview(long reportId);

    /** Deliveries due at {@code now}, oldest first. */
    List<CodeHostDelivery> dueDeliveries(Instant now, int limit);

    /** Takes a due delivery for one attempt, as {@link Webhooks#takeDelivery}. */
    boolean takeDelivery(long id, Instant due, Instant retryAt);

    /** Keeps the check run an attempt created, so the next attempt updates it. */
    void setCheckRun(long id, String checkRun);

    /** Records an attempt, as {@link Webhooks#recordAttempt}. */
    void recordAttempt(long id, Integer status, String error, Instant delivered, Instant nextAttempt);

    /** Moves a taken delivery's next attempt without counting an attempt (its comment was held elsewhere). */
    void postpone(long id, Instant nextAttempt);

    /** The host's deliveries, newest first. */
    List<CodeHostDelivery> deliveries(long hostId, int limit);

    /**
     * Takes the sticky comment of the host, pull request, branch and testbed (made when there is
     * none) until {@code takenUntil}; empty when another node holds it.
     */
    Optional<CodeHostComment> takeComment(
            long hostId, int number, String branch, String testbed, Instant now, Instant takenUntil);

    /** Releases a taken comment, recording its id on the host and the report it now shows (null: unchanged). */
    void releaseComment(long commentId, String remoteId, Long reportId, Instant now);
}

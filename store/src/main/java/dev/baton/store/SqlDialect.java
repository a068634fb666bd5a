package dev.baton.store;

import dev.baton.protocol.id.JobUuid;
import java.sql.SQLException;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.HandleCallback;
import org.jdbi.v3.core.Jdbi;

/**
 * What differs between SQLite and PostgreSQL, as one strategy object (as db-scheduler's
 * {@code JdbcCustomization}): how a write transaction is entered and retried, what a unique
 * violation looks like, how a claim is made atomic, how rows a sweep acts on are locked, and what
 * the schema keeps that the other does not. {@link StoreContext} runs transactions with it; the
 * parts whose SQL differs ({@link JdbcClaims}, {@link JdbcJobLiveness}, {@link JdbcNodes},
 * {@link JdbcRuns}, {@link JdbcLeaseOffers}) are handed it. A dialect never calls back into the
 * store or a part: what it needs comes as arguments (docs/decisions/0042-sql-dialect-strategy.md).
 * One per store: {@link SqliteDialect} holds the file's writer lock, {@link PostgresDialect} the
 * pool it evicts dead connections from.
 */
interface SqlDialect {
    /** Runs {@code work} in one database transaction, committed on return, rolled back on exception. */
    <T> T transaction(Jdbi jdbi, HandleCallback<T, RuntimeException> work);

    /** Runs one read; a dialect may re-run it (PostgreSQL on a dead connection). */
    default <T> T reading(Supplier<T> read) {
        return read.get();
    }

    /** Threads committing batches at once: 1 where the database has one writer. */
    int committers();

    /** True when the exception is the dialect's unique-constraint violation. */
    boolean isUniqueViolation(SQLException e);

    /** Whether the store keeps its constant statements prepared per connection (a driver that compiles on every prepare). */
    default boolean keepsStatementsPrepared() {
        return false;
    }

    /**
     * One claim inside the caller's write transaction: the dialect picks the candidate and makes
     * the read-then-update atomic, handing each candidate it may take to {@code take} (pending →
     * claimed, empty when the job is no longer pending: {@link JdbcClaims#applyClaim}), or taking
     * it in the statement that found it with {@code write}'s SQL (PostgreSQL, decision 0059). The order of candidates, router preferences
     * included, is {@link ClaimSql#CLAIM_ORDER} with {@link ClaimFilter#order}, or
     * {@link ClaimSql#plainClaim} where that picks the same job ({@link ClaimSql#anyPendingPreferred}).
     */
    Optional<Job> claim(Statements statements, Handle h, ClaimWrite write, LongFunction<Optional<Job>> take);

    /**
     * Sets {@code last_heartbeat} of each job still in flight to its time (never backwards);
     * returns the jobs left for the next write because another transaction held their rows.
     */
    Set<JobUuid> jobHeartbeats(Statements statements, Handle h, Map<JobUuid, Instant> times);

    /** How the rows a sweep acts on are locked: appended to the sweep's SELECT. */
    String sweepLock();

    /**
     * Whether a statement may carry data-modifying common table expressions ({@code WITH j AS
     * (UPDATE … RETURNING …), a AS (UPDATE …) SELECT …}): a transition then updates the job and
     * its attempt (or report) in one round trip (decision 0053). SQLite has none.
     */
    default boolean modifiesInCtes() {
        return false;
    }

    /** Whether the schema keeps pending jobs counted per spec and priority by triggers (the queue status reads them). */
    default boolean keepsPendingCounts() {
        return false;
    }
}

package dev.baton.dispatch;

import java.time.Instant;
import java.util.List;
import java.util.Locale;

/**
 * Why a pending job has not started, as the dispatcher sees it now: a stable {@code code}, one
 * human sentence, and the details of that code ({@code ahead} for runners_busy, {@code declines}
 * for declined and retry_backoff, {@code until} for retry_backoff). Absent details are omitted
 * from the JSON.
 */
public record PendingReason(String code, String message, Integer ahead, List<RunnerDecline> declines, Instant until) {

    /** The codes, in the order the dispatcher checks them (the first that applies wins). */
    public enum Code {
        SPEC_ARCHIVED,
        RETRY_BACKOFF,
        POOL_BACKOFF,
        POOL_STARTING,
        NO_RUNNER,
        LABELS_UNMATCHED,
        RUNNERS_QUARANTINED,
        DECLINED,
        RUNNERS_OFFLINE,
        NO_QUIET_RUNNER,
        ORG_LIMIT,
        RUNNERS_BUSY;

        public String wireName() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** One runner's last decline of the job. */
    public record RunnerDecline(String runner, String code, String reason) {}

    static PendingReason of(Code code, String message) {
        return new PendingReason(code.wireName(), message, null, null, null);
    }
}

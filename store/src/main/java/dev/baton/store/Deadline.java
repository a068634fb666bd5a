package dev.baton.store;

/**
 * The deadlines kept on a job row (schema V4), each due when its time is at or before now. The
 * sweep acts on each kind under a row lock; see {@link JobLiveness#sweepDue}.
 */
public enum Deadline {
    /** claimed, not accepted in time: back to the queue. */
    ACCEPT("status = 1 AND accept_deadline <= :now", "accept_deadline"),
    /** in flight and its runner gone past the heartbeat timeout (channel closed or node dead). */
    LOST("status IN (1, 2) AND lost_deadline <= :now", "lost_deadline"),
    /** running past its timeout plus grace: canceled. */
    HARD("status = 2 AND hard_deadline <= :now", "hard_deadline"),
    /** canceled while in flight, the runner has not answered in time: its lease is revoked. */
    CANCEL("cancel_deadline <= :now", "cancel_deadline"),
    /** pending past created + queue_timeout, never started: failed with queue_timeout. */
    QUEUE(
            "status = 0 AND queue_timeout IS NOT NULL AND attempt <= requeues"
                    + " AND created + CAST(queue_timeout AS BIGINT) * 1000000 <= :now",
            "created");

    final String due;
    final String order;

    Deadline(String due, String order) {
        this.due = due;
        this.order = order;
    }
}

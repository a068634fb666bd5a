package dev.baton.chaos;

import java.time.Instant;

/**
 * One job the suite tried to submit.
 *
 * @param chaosId     the suite's own id of the job, passed to the job's command (so executions name it without Baton's help)
 * @param jobUuid     Baton's job UUID when the server acknowledged it (201), else null
 * @param outcome     how the submission ended
 * @param retried     whether the job opted in to retries when its runner is lost
 * @param iterations  iterations of the job
 */
record Submission(String chaosId, String jobUuid, Outcome outcome, Instant at, boolean retried, int iterations) {
    enum Outcome {
        /** 201: the job exists and must reach a terminal state. */
        ACKNOWLEDGED,
        /** The connection broke after the request was sent: the job may or may not exist. */
        UNCERTAIN,
        /** No node took the request (all refused the connection, or answered an error). */
        NOT_SUBMITTED
    }
}

package dev.baton.runner.lease;

import dev.baton.channelclient.outbox.FinalLeaseMessage;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.IterationResult;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * The final word an ended attempt owes the server, as {@link FinalMessageOutbox} keeps it: Complete
 * with the outcome, or CancelAck when the server asked to cancel, or nothing after a stale lease
 * (another runner may hold the job now; a word under the old lease would only be answered stale).
 * Apart from {@link LeaseRunner} so that what is said stays apart from when and how it is sent.
 */
final class FinalWord {
    private FinalWord() {}

    /** The word for {@code job}, decided once by {@link LeasedJob#ending()}; empty when nothing is to be said. */
    static Optional<FinalLeaseMessage> of(
            LeasedJob job, String runner, LeaseOutcome outcome, List<IterationResult> results, Instant now) {
        String at = now.toString();
        String jobId = job.grant.jobId();
        int attempt = job.job.attempt();
        return switch (job.ending()) {
            case NOTHING -> Optional.empty();
            case CANCEL_ACK ->
                Optional.of(new FinalLeaseMessage(
                        jobId,
                        attempt,
                        "cancel-ack",
                        Wire.mapper()
                                .valueToTree(new SeedMessages.CancelAck(
                                        job.lease(),
                                        runner,
                                        at,
                                        "canceled" + (job.startedAt() == null ? " before it started" : ""),
                                        results)),
                        0));
            case COMPLETE ->
                Optional.of(new FinalLeaseMessage(
                        jobId,
                        attempt,
                        "complete",
                        Wire.mapper()
                                .valueToTree(new SeedMessages.Complete(
                                        job.lease(),
                                        runner,
                                        outcome,
                                        new SeedMessages.Timings(
                                                job.startedAt() == null
                                                        ? null
                                                        : job.startedAt().toString(),
                                                at),
                                        results)),
                        0));
        };
    }
}

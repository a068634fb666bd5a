package dev.baton.dispatch;

import dev.baton.dispatch.output.ResultProcessor;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.LeaseId;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.IterationResult;
import dev.baton.protocol.model.JobOutput;
import dev.baton.store.AttemptFailure;
import dev.baton.store.AttemptOutcome;
import dev.baton.store.Store;
import dev.baton.store.Transition;
import java.time.Instant;

/**
 * A {@code completed} or {@code failed} that carries output, stored under the attempt that sent
 * it. Small output is written by the transition itself, on the attempt's row: applied or
 * refused, output and state change together (docs/decisions/0034-small-output-on-the-attempt.md).
 *
 * <p>Larger output goes to the blob storage first, then the transition runs, so that a completed
 * job always has it (a crash in between leaves output without the transition, which the runner's
 * resend applies). If the store refuses the transition (another node canceled the job meanwhile,
 * or the lease moved on) that attempt's output is removed again: an attempt shows only the output
 * of a word that was applied; a reader may see it in between. A duplicate keeps it (a resend, or
 * for {@code failed} the runner's own account of a timeout failure under the same lease). The
 * output of any other attempt — the one a moved lease went to — is never touched: the key names
 * the attempt (docs/decisions/0027-output-per-attempt.md).
 */
final class FinalOutput {
    private final Store store;
    private final ResultProcessor results;

    FinalOutput(Store store, ResultProcessor results) {
        this.store = store;
        this.results = results;
    }

    Transition complete(
            ProjectUuid project, JobUuid job, int attempt, LeaseId lease, RunnerMessage.Completed c, Instant now) {
        JobOutput output = outputOf(c);
        byte[] onTheAttempt = results.onTheAttempt(output);
        if (onTheAttempt != null) return store.transitions().complete(job, lease, now, onTheAttempt);
        results.save(project, job, attempt, output);
        return takenBackIfRefused(project, job, attempt, store.transitions().complete(job, lease, now, null));
    }

    Transition fail(ProjectUuid project, int attempt, RunnerMessage.Failed f, Instant now) {
        JobOutput output = new JobOutput(f.results(), errorOf(f));
        // A router reports a runner behind it as lost: the same outcome as a runner the
        // server lost itself, so a policy's runner_lost means the same through a router.
        AttemptOutcome outcome = f.runnerLost() ? AttemptOutcome.LOST : AttemptOutcome.FAILED;
        byte[] onTheAttempt = results.onTheAttempt(output);
        if (onTheAttempt != null) {
            Transition t =
                    store.transitions().fail(f.job(), f.lease(), errorOf(f), outcome, now, onTheAttempt, failureOf(f));
            // A duplicate whose attempt keeps no output: a heartbeat timeout failed it under this
            // lease just before. The runner's own account is kept, as FinalMessages keeps it when the
            // timeout was seen first; a plain resend finds its output already stored.
            if (t.result() == Transition.Result.DUPLICATE && !results.hasOutput(project, t.job()))
                results.save(project, f.job(), attempt, output);
            return t;
        }
        results.save(project, f.job(), attempt, output);
        return takenBackIfRefused(
                project,
                f.job(),
                attempt,
                store.transitions().fail(f.job(), f.lease(), errorOf(f), outcome, now, null, failureOf(f)));
    }

    private Transition takenBackIfRefused(ProjectUuid project, JobUuid job, int attempt, Transition t) {
        if (!t.applied() && t.result() != Transition.Result.DUPLICATE) results.discard(project, job, attempt);
        return t;
    }

    /** The output a `completed` carries, as it is stored and then parsed. */
    static JobOutput outputOf(RunnerMessage.Completed c) {
        return new JobOutput(c.results(), null);
    }

    /**
     * What the store classifies and decides a retry by (issue 41): the runner's failure code and
     * the exit code of the first iteration that did not exit 0 (what {@code final_exit_codes} names).
     */
    static AttemptFailure failureOf(RunnerMessage.Failed f) {
        Integer exit = null;
        if (f.results() != null) {
            for (IterationResult r : f.results()) {
                if (r != null && r.exitCode() != null && r.exitCode() != 0) {
                    exit = r.exitCode();
                    break;
                }
            }
        }
        return new AttemptFailure(f.failureCode(), exit);
    }

    static String errorOf(RunnerMessage.Failed f) {
        return f.error() == null || f.error().isBlank() ? "the runner reported failure" : f.error();
    }
}

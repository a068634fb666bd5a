package dev.baton.chaos;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * What a run found. The four asserted figures are {@code lost}, {@code stuck}, {@code doubleRuns}
 * and {@code missingResults}; {@code violations} says, job by job, what broke any rule.
 *
 * @param submitted          jobs the server acknowledged (201)
 * @param uncertain          submissions whose response was lost, and how many of those the server did create
 * @param statuses           jobs by final status
 * @param failures           failed jobs by error message
 * @param executions         executions in the log (one per iteration run)
 * @param completedByTransport completed attempts by the transport that carried them ({@code websocket}, {@code nats}): shows that each transport of the run did work
 * @param faults             faults by kind
 * @param lost               acknowledged jobs the server does not have
 * @param stuck              jobs not terminal after the quiescence timeout
 * @param doubleRuns         (job, iteration) executed more than once under one attempt's lease
 * @param overlappingLeases  jobs with two attempts whose lease windows overlap
 * @param missingResults     processed jobs whose output or results are not stored, or do not come from an execution of the completing attempt
 * @param wronglyFailed      failed jobs whose error is not a lost or killed runner (their command cannot fail)
 * @param outsideLease       executions that started while their runner held no lease on the job (fenced work; see docs/reliability.md)
 * @param finishedNotCompleted executions that finished their work under an attempt that did not end completed, by the attempt's outcome
 * @param recovery           median and max "time to recover" per fault kind (see docs/reliability.md for each definition)
 * @param quiescence         from the last fault to every job terminal
 * @param violations         one line per broken rule
 * @param pool               the pool scenario's counts (null in the runner agents' scenario); its violations are among {@code violations}
 */
record ChaosResult(
        int submitted,
        String uncertain,
        Map<String, Integer> statuses,
        Map<String, Integer> failures,
        int executions,
        Map<String, Integer> completedByTransport,
        Map<String, Integer> faults,
        int connectionsDropped,
        int lost,
        int stuck,
        int doubleRuns,
        int overlappingLeases,
        int missingResults,
        int wronglyFailed,
        int outsideLease,
        Map<String, Integer> finishedNotCompleted,
        Map<String, String> recovery,
        Duration quiescence,
        List<String> unexpectedExits,
        List<String> violations,
        PoolAudit.Findings pool) {

    /** This result with the pool scenario's counts, whose violations join the others. */
    ChaosResult withPool(PoolAudit.Findings findings) {
        List<String> all = new java.util.ArrayList<>(violations);
        all.addAll(findings.violations());
        return new ChaosResult(
                submitted,
                uncertain,
                statuses,
                failures,
                executions,
                completedByTransport,
                faults,
                connectionsDropped,
                lost,
                stuck,
                doubleRuns,
                overlappingLeases,
                missingResults,
                wronglyFailed,
                outsideLease,
                finishedNotCompleted,
                recovery,
                quiescence,
                unexpectedExits,
                List.copyOf(all),
                findings);
    }

    boolean passed() {
        return violations.isEmpty();
    }

    /** The run's figures as people read them (and as docs/reliability.md records them). */
    String describe() {
        StringBuilder s = new StringBuilder();
        s.append("jobs submitted (acknowledged): ").append(submitted).append('\n');
        s.append("submissions with a lost response: ").append(uncertain).append('\n');
        s.append("final statuses: ").append(statuses).append('\n');
        failures.forEach((error, n) ->
                s.append("  failed ").append(n).append("x: ").append(error).append('\n'));
        s.append("executions logged by the jobs: ").append(executions).append('\n');
        s.append("completed attempts by transport: ")
                .append(completedByTransport)
                .append('\n');
        s.append("faults: ")
                .append(faults)
                .append(", connections reset: ")
                .append(connectionsDropped)
                .append('\n');
        s.append("lost: ").append(lost).append('\n');
        s.append("stuck: ").append(stuck).append('\n');
        s.append("executed twice under one valid lease: ").append(doubleRuns).append('\n');
        s.append("overlapping leases: ").append(overlappingLeases).append('\n');
        s.append("processed without output/results traced to an execution: ")
                .append(missingResults)
                .append('\n');
        s.append("failed for another reason than a lost or killed runner: ")
                .append(wronglyFailed)
                .append('\n');
        s.append("executions started outside any lease (fenced): ")
                .append(outsideLease)
                .append('\n');
        s.append("executions that finished under an attempt that did not complete, by its outcome: ")
                .append(finishedNotCompleted)
                .append('\n');
        recovery.forEach((what, v) ->
                s.append("recovery ").append(what).append(": ").append(v).append('\n'));
        s.append("quiescence after the last fault: ")
                .append(quiescence == null ? "timed out" : Audit.seconds(quiescence))
                .append('\n');
        if (pool != null) s.append(pool.describe());
        if (!violations.isEmpty()) {
            s.append("VIOLATIONS (").append(violations.size()).append("):\n");
            violations.forEach(v -> s.append("  ").append(v).append('\n'));
        }
        return s.toString();
    }
}

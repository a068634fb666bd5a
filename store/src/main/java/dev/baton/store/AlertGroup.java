package dev.baton.store;

import java.time.Instant;
import java.util.List;

/**
 * The alerts one report's judgement raised, across all its metrics (docs/alerts.md, "Triage and
 * groups"; decision 0049): one project, branch and testbed, one commit range from
 * {@code previousHash} (the commit of the newest report judged before it on that branch and
 * testbed, exclusive; null when unknown) to {@code hash}. {@code alerts} oldest first.
 */
public record AlertGroup(
        long id,
        String uuid,
        long projectId,
        String reportUuid,
        String branch,
        String testbed,
        String hash,
        String previousHash,
        Instant created,
        List<Alert> alerts) {

    public AlertGroup {
        alerts = List.copyOf(alerts);
    }

    /**
     * The group's triage: its alerts' when they all have the same one (state, note, commit, who
     * and when), otherwise {@link Triage#MIXED} (or the one state they share) without the rest.
     */
    public Triage triage() {
        if (alerts.isEmpty()) return Triage.NONE;
        Triage first = alerts.getFirst().triage();
        if (alerts.stream().allMatch(a -> a.triage().equals(first))) return first;
        String state = first.state();
        boolean oneState = alerts.stream().allMatch(a -> a.triage().state().equals(state));
        return new Triage(oneState ? state : Triage.MIXED, null, null, null, null);
    }
}

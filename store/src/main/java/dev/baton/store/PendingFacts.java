package dev.baton.store;

import java.util.List;

/**
 * What the store knows about one pending job's place in the queue, read in one go for the
 * dispatcher to explain the wait: the runners that serve its spec (archived ones excluded), how
 * many pending jobs come before it in dispatch order among jobs those runners could take, how many
 * jobs those runners have in flight, whether its tier limit holds it back now, and how many of the
 * spec's recent jobs finished and their run times' sum in microseconds (the estimate uses only
 * their mean).
 *
 * <p>Serving runners that are not quarantined and heartbeated recently (at or after the time the
 * read was given) are only counted, in {@code freshServing}: whatever else is known of them, they
 * are connected. Every other serving runner is listed in {@code servingRunners}. A submission at
 * 100 runners read and mapped 100 rows only to count them (issue 13).
 *
 * <p>{@code pooled}: some runner pool starts machines of its spec (issue 43), so the pools are
 * worth reading; without one, a waiting job's explanation reads no pool (it read them all on
 * every submission before).
 */
public record PendingFacts(
        List<ServingRunner> servingRunners,
        int freshServing,
        int ahead,
        int inFlightOnServingRunners,
        boolean tierLimited,
        int recentRuns,
        long recentRunMicros,
        boolean pooled) {

    /** Every serving runner, listed or counted. */
    public int serving() {
        return servingRunners.size() + freshServing;
    }
}

package dev.baton.server.store;

import java.time.Duration;
import java.util.List;

/**
 * What the store knows about one pending job's place in the queue, read in one go for the
 * dispatcher to explain the wait: the runners that serve its spec (archived ones excluded), how
 * many pending jobs come before it in dispatch order among jobs those runners could take, how many
 * jobs those runners have in flight, whether its tier limit holds it back now, and how long the
 * spec's recent jobs ran (newest first).
 */
public record PendingFacts(List<ServingRunner> servingRunners, int ahead, int inFlightOnServingRunners, boolean tierLimited,
        List<Duration> recentRunTimes) {}

package dev.baton.store;

import dev.baton.protocol.value.Slug;
import java.time.Instant;

/**
 * What explaining a pending job needs of one runner that serves its spec: who it is, whether it
 * is quarantined and when it last heartbeated. Not a whole {@link Runner}: every submission reads
 * every serving runner, and mapping full rows (uuids, names, times) was a measurable share of the
 * submit path at 100 runners (issue 13).
 */
public record ServingRunner(long id, Slug slug, boolean quarantined, Instant lastHeartbeat) {}

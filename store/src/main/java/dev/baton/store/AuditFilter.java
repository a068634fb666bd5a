package dev.baton.store;

import java.time.Instant;

/** Which audit events to read, newest first: each field null for any; {@code before} an event id to page on. */
public record AuditFilter(String actor, String action, Instant since, Instant until, Long before, int limit) {}

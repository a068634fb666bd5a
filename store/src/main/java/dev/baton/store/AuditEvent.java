package dev.baton.store;

import java.time.Instant;

/**
 * One recorded action: who ({@code admin} or {@code user:<name>}) with which token (its UUID,
 * null for the admin token), what ({@code action} such as {@code runner.created}, on
 * {@code target}, with {@code detail} as JSON or null), when, and from which address.
 */
public record AuditEvent(
        long id, Instant at, String actor, String token, String action, String target, String detail, String address) {}

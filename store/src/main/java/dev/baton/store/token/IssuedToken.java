package dev.baton.store.token;

import java.time.Duration;
import java.time.Instant;

/** A freshly signed token with the times the token endpoint reports. */
public record IssuedToken(String token, Instant issuedAt, Duration expiresIn) {}

package dev.baton.store;

import java.time.Duration;

/** What starts a {@link Roll}: which runners ({@code target}), to what, how many at a time, and who asked. */
public record NewRoll(
        String target,
        String version,
        String url,
        String checksum,
        int maxUnavailable,
        Duration rejoinTimeout,
        String createdBy) {}

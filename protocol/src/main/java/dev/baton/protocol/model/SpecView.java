package dev.baton.protocol.model;

import dev.baton.protocol.id.SpecUuid;
import dev.baton.protocol.value.Architecture;
import java.time.Instant;

/** A spec as the API and the runner see it (seed 001's JsonSpec). */
public record SpecView(
        SpecUuid uuid,
        String name,
        String slug,
        Architecture architecture,
        int cpu,
        long memory,
        long disk,
        boolean network,
        Instant created,
        Instant modified,
        Instant archived) {}

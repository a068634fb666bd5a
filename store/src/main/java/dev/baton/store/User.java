package dev.baton.store;

import dev.baton.protocol.id.UserUuid;
import java.time.Instant;

/** A person or pipeline that holds API tokens; created by an admin. Names are unique. */
public record User(long id, UserUuid uuid, String name, Instant created) {}

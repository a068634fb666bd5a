package dev.baton.runner.update;

import dev.baton.protocol.message.ServerMessage;

/** Installs a new version of the agent when the server says {@code update}. */
public interface Updater {
    /** Downloads, verifies and installs; on failure the running version is left untouched. */
    void install(ServerMessage.Update update) throws UpdateException;

    /** An updater that refuses, for agents not run from a jar (tests, IDE). */
    static Updater unsupported(String why) {
        return update -> {
            throw new UpdateException(why);
        };
    }
}

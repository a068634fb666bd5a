package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The channel scenarios on the embedded SQLite store. */
class SqliteChannelTest extends ChannelContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The fingerprint scenarios on the embedded SQLite store. */
class SqliteFingerprintTest extends FingerprintContractTest {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

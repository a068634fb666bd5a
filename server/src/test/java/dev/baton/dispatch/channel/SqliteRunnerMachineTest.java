package dev.baton.dispatch.channel;

import java.nio.file.Path;

/** The machine scenarios on the embedded SQLite store. */
class SqliteRunnerMachineTest extends RunnerMachineContract {
    @Override
    String databaseUrl(Path dataDir) {
        return null;
    }
}

package dev.baton.chaos;

import java.nio.file.Path;

/**
 * A {@code baton runner up} agent with the process executor; its work directory survives restarts
 * (outbox, sweep). {@code nats}: it runs {@code --transport nats} (the NATS transport).
 */
record RunnerAgent(String slug, String uuid, Path workDir, BatonProcess process, boolean nats) {}

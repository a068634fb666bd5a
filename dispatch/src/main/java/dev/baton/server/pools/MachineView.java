package dev.baton.server.pools;

import dev.baton.server.store.PoolMachine;

/** A live pool machine as the scaler sees it: its row and its runner's phase ({@code job}: the job it runs, or null). */
public record MachineView(PoolMachine machine, RunnerPhase phase, Long job) {}

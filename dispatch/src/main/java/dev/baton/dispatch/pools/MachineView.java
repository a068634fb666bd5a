package dev.baton.dispatch.pools;

import dev.baton.store.PoolMachine;

/** A live pool machine as the scaler sees it: its row and its runner's phase ({@code job}: the job it runs, or null). */
public record MachineView(PoolMachine machine, RunnerPhase phase, Long job) {}

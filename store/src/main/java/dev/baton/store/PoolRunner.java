package dev.baton.store;

/**
 * What the store knows of a pool machine's single-job runner (issue 43): whether it has a channel
 * to some node ({@code connected}: its {@code node_id} is set), whether it was archived, whether
 * its one attempt ended ({@code spent}), and the job of its open attempt ({@code job}, null: none).
 */
public record PoolRunner(boolean connected, boolean archived, boolean spent, Long job) {}

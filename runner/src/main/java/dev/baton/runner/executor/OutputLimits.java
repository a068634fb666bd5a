package dev.baton.runner.executor;

/**
 * Bounds on what one iteration reports, so a result always fits in a channel message.
 *
 * @param streamBytes stdout and stderr, each
 * @param files how many {@code file_paths} entries are collected
 * @param fileBytes one collected file
 * @param totalFileBytes all collected files of one iteration together
 */
public record OutputLimits(int streamBytes, int files, int fileBytes, int totalFileBytes) {
    public static final OutputLimits DEFAULT = new OutputLimits(1 << 20, 64, 1 << 20, 4 << 20);
}

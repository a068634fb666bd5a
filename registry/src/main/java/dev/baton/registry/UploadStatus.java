package dev.baton.registry;

/** Where an upload session stands: its id and how many bytes it holds. */
public record UploadStatus(String id, long size) {
    /** The {@code Range} header value: {@code 0-<last byte>} ({@code 0-0} for an empty upload, as distribution does). */
    public String range() {
        return "0-" + Math.max(0, size - 1);
    }
}

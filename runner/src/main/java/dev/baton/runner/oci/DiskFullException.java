package dev.baton.runner.oci;

import java.io.IOException;

/** Not enough space to pull or unpack the image; the job should go to another runner. */
public final class DiskFullException extends IOException {
    public DiskFullException(String message) {
        super(message);
    }

    /** True when an I/O error says the device is full. */
    public static boolean isDiskFull(IOException e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof DiskFullException) return true;
            String m = t.getMessage();
            if (m != null && (m.contains("No space left on device") || m.contains("Disk quota exceeded"))) return true;
        }
        return false;
    }
}

package dev.baton.runner;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The exclusive right of one agent to a work directory: an OS file lock on {@code agent.lock}
 * in it, which holds the owner's PID for whoever is refused. Two agents on one directory would
 * sweep each other's jobs, share one outbox and — with one runner key — replace each other's
 * channel forever. The kernel drops the lock when its process dies, however it dies, so a
 * SIGKILLed agent never blocks the next start; the file itself is left in place (deleting it
 * would let a third agent lock a fresh file while a second still holds the old one).
 */
public final class WorkDirLock implements AutoCloseable {
    public static final String FILE = "agent.lock";

    /** Another agent holds the directory. */
    public static final class HeldException extends Exception {
        private final long holderPid;

        HeldException(Path dir, long holderPid) {
            super("another runner agent (PID " + (holderPid > 0 ? Long.toString(holderPid) : "unknown")
                    + ") holds the work directory " + dir + "; stop it first, or give this agent its own --work-dir");
            this.holderPid = holderPid;
        }

        /** The holder's PID as it wrote it, or -1 if the file does not say. */
        public long holderPid() {
            return holderPid;
        }
    }

    private final FileChannel channel;
    private final FileLock lock;

    private WorkDirLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /**
     * Takes the lock without waiting.
     *
     * @throws HeldException when another agent holds it (its PID in the message)
     */
    public static WorkDirLock acquire(Path dir) throws HeldException, IOException {
        Files.createDirectories(dir);
        Path file = dir.resolve(FILE);
        FileChannel channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        FileLock lock;
        try {
            lock = channel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null; // held by this very process (another agent in the same JVM)
        } catch (IOException | RuntimeException e) {
            channel.close();
            throw e;
        }
        if (lock == null) {
            long holder = readPid(channel);
            channel.close();
            throw new HeldException(dir.toAbsolutePath(), holder);
        }
        try {
            channel.truncate(0);
            channel.write(
                    ByteBuffer.wrap((ProcessHandle.current().pid() + "\n").getBytes(StandardCharsets.US_ASCII)), 0);
            channel.force(true);
        } catch (IOException e) {
            channel.close();
            throw e;
        }
        return new WorkDirLock(channel, lock);
    }

    private static long readPid(FileChannel channel) {
        try {
            ByteBuffer buf = ByteBuffer.allocate(32);
            channel.read(buf, 0);
            String text = new String(buf.array(), 0, buf.position(), StandardCharsets.US_ASCII).strip();
            return text.isEmpty() ? -1 : Long.parseLong(text);
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            if (lock.isValid()) lock.release();
        } finally {
            channel.close();
        }
    }
}

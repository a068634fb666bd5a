package dev.baton.channelclient.outbox;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.channelclient.machine.InflightRecord;
import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.Wire;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Terminal results and in-flight attempts on disk, so neither a dropped connection nor a crash of
 * the agent loses a result; on the NATS transport, the lease runner's final words ({@link FinalLeaseMessage}) the
 * same way. One file per job (per attempt for final words) and kind; every write goes to a temporary file that
 * is fsynced and then renamed over the old one, so a reader sees the old or the new entry, never
 * half of one. A file that cannot be read is renamed to {@code *.corrupt} and reported.
 */
public final class Outbox {
    private static final Logger log = LoggerFactory.getLogger(Outbox.class);
    private static final String RESULT = ".result.json";
    private static final String INFLIGHT = ".inflight.json";
    private static final String LEASE_WORD = ".lease.json";

    /** What is stored for a result: the message and how often it was sent. */
    record StoredResult(int sends, RunnerMessage message) {}

    private final Path dir;
    private final ObjectMapper mapper = Wire.mapper();

    public Outbox(Path dir) {
        this.dir = dir;
        try {
            Files.createDirectories(dir);
            // Entries hold lease ids, which are capabilities: only the agent's user may read them.
            try {
                Files.setPosixFilePermissions(
                        dir, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
            } catch (UnsupportedOperationException e) {
                log.debug("no POSIX permissions on {}", dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create the outbox " + dir, e);
        }
    }

    public Path directory() {
        return dir;
    }

    public void writeResult(RunnerMessage.Terminal message, int sends) {
        write(dir.resolve(message.job() + RESULT), new StoredResult(sends, message));
    }

    public void deleteResult(JobUuid job) {
        delete(dir.resolve(job + RESULT));
    }

    public void writeInflight(InflightRecord record) {
        write(dir.resolve(record.job() + INFLIGHT), record);
    }

    public void deleteInflight(JobUuid job) {
        delete(dir.resolve(job + INFLIGHT));
    }

    public void writeFinalLeaseMessage(FinalLeaseMessage word) {
        write(dir.resolve(word.key() + LEASE_WORD), word);
    }

    public void deleteFinalLeaseMessage(FinalLeaseMessage word) {
        delete(dir.resolve(word.key() + LEASE_WORD));
    }

    /** Final words of the NATS transport the server has not answered yet, oldest file first. */
    public List<FinalLeaseMessage> leaseWords() {
        List<FinalLeaseMessage> out = new ArrayList<>();
        for (Path p : files(LEASE_WORD)) {
            try {
                FinalLeaseMessage word = mapper.readValue(p.toFile(), FinalLeaseMessage.class);
                if (word.job() == null
                        || word.path() == null
                        || word.message() == null
                        || !p.getFileName().toString().equals(word.key() + LEASE_WORD)) {
                    quarantine(p, "not a final word of its attempt");
                } else {
                    out.add(word);
                }
            } catch (IOException | RuntimeException e) {
                quarantine(p, e.getMessage());
            }
        }
        return out;
    }

    /** Results not yet acknowledged, with how often each was sent, oldest file first. */
    public Map<RunnerMessage.Terminal, Integer> results() {
        Map<RunnerMessage.Terminal, Integer> out = new LinkedHashMap<>();
        for (Path p : files(RESULT)) {
            try {
                StoredResult stored = mapper.readValue(p.toFile(), StoredResult.class);
                if (stored.message() instanceof RunnerMessage.Terminal t) out.put(t, stored.sends());
                else quarantine(p, "not a terminal message");
            } catch (IOException | RuntimeException e) {
                quarantine(p, e.getMessage());
            }
        }
        return out;
    }

    public List<InflightRecord> inflight() {
        List<InflightRecord> out = new ArrayList<>();
        for (Path p : files(INFLIGHT)) {
            try {
                out.add(mapper.readValue(p.toFile(), InflightRecord.class));
            } catch (IOException | RuntimeException e) {
                quarantine(p, e.getMessage());
            }
        }
        return out;
    }

    private List<Path> files(String suffix) {
        List<Path> out = new ArrayList<>();
        try (DirectoryStream<Path> stream = Files.newDirectoryStream(dir, "*" + suffix)) {
            stream.forEach(out::add);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot list the outbox " + dir, e);
        }
        out.sort((a, b) -> {
            try {
                return Files.getLastModifiedTime(a).compareTo(Files.getLastModifiedTime(b));
            } catch (IOException e) {
                return a.compareTo(b);
            }
        });
        return out;
    }

    private void write(Path target, Object value) {
        Path tmp = target.resolveSibling(target.getFileName() + ".tmp");
        try {
            byte[] bytes = mapper.writeValueAsBytes(value);
            try (FileChannel ch = FileChannel.open(
                    tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                ByteBuffer buf = ByteBuffer.wrap(bytes);
                while (buf.hasRemaining()) ch.write(buf);
                ch.force(true);
            }
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + target, e);
        }
    }

    private static void delete(Path p) {
        try {
            Files.deleteIfExists(p);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + p, e);
        }
    }

    private static void quarantine(Path p, String why) {
        log.error("outbox entry {} cannot be read ({}); moved aside", p.getFileName(), why);
        try {
            Files.move(p, p.resolveSibling(p.getFileName() + ".corrupt"), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.error("cannot move {} aside", p, e);
        }
    }
}

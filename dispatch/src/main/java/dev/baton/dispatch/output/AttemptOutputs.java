package dev.baton.dispatch.output;

import dev.baton.protocol.id.JobUuid;
import dev.baton.protocol.id.ProjectUuid;
import dev.baton.protocol.message.Wire;
import dev.baton.protocol.model.JobOutput;
import dev.baton.store.Store;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;

/**
 * Output kept where it costs least (docs/decisions/0034-small-output-on-the-attempt.md): up to
 * {@link #ON_THE_ATTEMPT_MAX_BYTES} encoded, on the attempt's row in the database, written by the
 * transition that ends the attempt; larger, in the blob storage ({@code blobs}), put before that
 * transition as before. A job's completion then creates no file, which was the largest single
 * cost of a short job on the server, and a final word that is refused stores nothing at all.
 *
 * <p>Reads look at the attempt's row first, then at the blob storage: an attempt whose output
 * was put there (large, or a word that carried output without ending the attempt) keeps NULL on
 * its row, and output stored before this change is only in the blob storage.
 */
public final class AttemptOutputs implements OutputStore {
    /**
     * The most encoded bytes kept on an attempt's row. A benchmark's or build's summary fits; a
     * large log tail goes to the blob storage, which keeps the database's rows (and SQLite's one
     * writer) small.
     */
    public static final int ON_THE_ATTEMPT_MAX_BYTES = 64 * 1024;

    private final Store store;
    private final OutputStore blobs;

    public AttemptOutputs(Store store, OutputStore blobs) {
        this.store = store;
        this.blobs = blobs;
    }

    @Override
    public byte[] onTheAttempt(JobOutput output) {
        byte[] encoded = encode(output);
        return encoded.length <= ON_THE_ATTEMPT_MAX_BYTES ? encoded : null;
    }

    @Override
    public void put(ProjectUuid project, JobUuid job, int attempt, JobOutput output) {
        blobs.put(project, job, attempt, output);
    }

    @Override
    public Optional<JobOutput> get(ProjectUuid project, JobUuid job, int attempt) {
        Optional<byte[]> kept = attempt >= 1 ? store.runs().attemptOutput(job, attempt) : Optional.empty();
        return kept.isPresent() ? Optional.of(decode(kept.get(), job, attempt)) : blobs.get(project, job, attempt);
    }

    /** Removes what the blob storage keeps: output on an attempt's row was written by an applied transition and stays with it. */
    @Override
    public void remove(ProjectUuid project, JobUuid job, int attempt) {
        blobs.remove(project, job, attempt);
    }

    private static byte[] encode(JobOutput output) {
        try {
            return Wire.mapper().writeValueAsBytes(output);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot encode output", e);
        }
    }

    private static JobOutput decode(byte[] encoded, JobUuid job, int attempt) {
        try {
            return Wire.mapper().readValue(encoded, JobOutput.class);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read output of job " + job + " attempt " + attempt, e);
        }
    }
}

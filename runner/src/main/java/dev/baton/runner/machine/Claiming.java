package dev.baton.runner.machine;

import dev.baton.channelclient.machine.InflightRecord;
import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.DeclineCode;
import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.model.ClaimedJob;
import dev.baton.protocol.value.ImageDigest;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Claiming phase: asking for work ({@code ready}), taking or declining the {@code job} offers
 * that answer it, {@code no_job}, and the executor's held images reported with them.
 */
final class Claiming {
    private static final Logger log = LoggerFactory.getLogger(RunnerMachine.class);

    private final MachineState s;
    /**
     * Jobs the server may still hand out for our last {@code ready}: the slots it asked for, less
     * the jobs received since. A new {@code ready} is sent only when this is 0, so a freed slot is
     * never announced while jobs of the previous wait may still be on their way (the server would
     * open a second wait and send more jobs than there are slots).
     */
    private int readyRemaining;
    /** The executor's held images (null: it keeps none, so none are reported); see {@link Input.ImagesHeld}. */
    private List<ImageDigest> heldImages;
    /** The server has not been told the current {@link #heldImages} on this link yet. */
    private boolean heldImagesUnsent;

    /** Checks whether a single-job runner is done (set by the machine: {@link Draining#maybeExit}). */
    java.util.function.Consumer<List<Effect>> exitWhenDone = out -> {};

    Claiming(MachineState state) {
        this.s = state;
    }

    void onImagesHeld(Input.ImagesHeld i) {
        if (!i.images().equals(heldImages)) {
            heldImages = i.images();
            heldImagesUnsent = true;
        }
    }

    /** A new connection: no {@code ready} outstanding, and it (perhaps another node) knows no images yet. */
    void linkOpened() {
        readyRemaining = 0;
        heldImagesUnsent = heldImages != null;
    }

    /** The connection is gone, and with it the server's wait for our {@code ready}. */
    void linkLost() {
        readyRemaining = 0;
    }

    void onNoJob(List<Effect> out) {
        if (readyRemaining == 0) log.debug("no_job without an outstanding ready");
        readyRemaining = 0;
        maybeReady(out);
    }

    void onJob(ClaimedJob job, List<Effect> out) {
        if (readyRemaining > 0) readyRemaining--;
        String refusal = refusal(job);
        if (s.config.singleJob() && !s.singleJobTaken) {
            // The one job of a single-job runner (issue 43): whatever happens to it, no other
            // follows; the server refuses the key once its attempt ended.
            s.singleJobTaken = true;
            if (s.mode == MachineState.Mode.RUNNING) s.mode = MachineState.Mode.QUIET;
            if (refusal == null) log.info("single-job runner: took job {}; exiting once it is reported", job.uuid());
        } else if (s.singleJobTaken && refusal == null) {
            refusal = "single-job runner has had its job";
        }
        if (refusal != null) {
            log.info("declining job {}: {}", job.uuid(), refusal);
            DeclineCode code = s.shuttingDown ? DeclineCode.SHUTTING_DOWN : DeclineCode.OTHER;
            s.link.send(new RunnerMessage.Declined(job.uuid(), job.lease(), code, refusal), out);
            maybeReady(out);
            if (s.singleJobTaken) exitWhenDone.accept(out);
            return;
        }
        HeldJob h = new HeldJob(job);
        s.jobs.put(job.uuid(), h);
        out.add(new Effect.WriteInflight(new InflightRecord(job.uuid(), job.lease(), null)));
        s.link.send(new RunnerMessage.Preparing(job.uuid(), job.lease(), h.progress), out);
        out.add(new Effect.StartPrepare(job));
        maybeReady(out);
    }

    /** Why this runner will not take the job, or null. Declining puts it back in the queue. */
    private String refusal(ClaimedJob job) {
        if (s.jobs.containsKey(job.uuid()) || s.pending.containsKey(job.uuid())) return "runner already holds this job";
        if ((s.mode != MachineState.Mode.RUNNING && !s.singleJobTaken) || s.shuttingDown)
            return "runner is " + (s.shuttingDown ? "shutting down" : "quiet");
        if (s.updating || s.pendingUpdate != null) return "runner is updating";
        if (s.calibrating) return "runner is measuring its noise";
        if (s.jobs.size() >= s.config.slots()) return "no free slot (slots=" + s.config.slots() + ")";
        if (job.spec() != null && job.spec().architecture() != null) {
            if (s.config.arch().isEmpty() || s.config.arch().get() != job.spec().architecture()) {
                return "architecture " + job.spec().architecture().wireName() + " not supported by this runner ("
                        + s.config.arch().map(a -> a.wireName()).orElse("unknown") + ")";
            }
        }
        return null;
    }

    /** Ask for work when connected, running, not updating, with a free slot and no result waiting. */
    void maybeReady(List<Effect> out) {
        if (!s.link.isConnected() || readyRemaining > 0 || s.mode != MachineState.Mode.RUNNING || s.shuttingDown)
            return;
        if (s.updating || s.pendingUpdate != null || !s.pending.isEmpty()) return;
        if (s.calibrationAsked || s.calibrating) return;
        MachineConfig config = s.config;
        int free = config.slots() - s.jobs.size();
        if (free <= 0) return;
        readyRemaining = free;
        s.link.send(
                new RunnerMessage.Ready(
                        config.pollTimeoutSeconds(),
                        config.os(),
                        config.arch().map(a -> a.wireName()).orElse(System.getProperty("os.arch")),
                        config.version(),
                        free,
                        null,
                        null,
                        config.capabilities(),
                        config.reportedLabels(),
                        heldImages,
                        AgentProcess.HOST,
                        AgentProcess.PID,
                        AgentProcess.STARTED),
                out);
        heldImagesUnsent = false;
    }

    /** Whether the server may still hand out jobs for our last {@code ready}. */
    boolean readyOutstanding() {
        return readyRemaining > 0;
    }

    /** The held images when the server has not seen them on this link yet, else null (unchanged); at most once. */
    List<ImageDigest> imagesToReport() {
        if (!heldImagesUnsent) return null;
        heldImagesUnsent = false;
        return heldImages;
    }
}

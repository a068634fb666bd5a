package dev.baton.router;

import dev.baton.protocol.model.RunnerHost;
import dev.baton.protocol.value.ImageDigest;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** A runner behind the router, connected or not. Touched only by the event loop. */
final class Downstream {
    final String name;
    Set<String> specs;
    Link link;
    /** The answers owed on {@link #link}, in the order of its messages. */
    Answers answers;

    Instant lastValid;
    /** Jobs it asked for with its current {@code ready} and has not been handed yet. */
    int free;

    boolean waiting;
    Instant pollDeadline;
    /** The labels it reported in its last {@code ready} (docs/scheduling.md, "Label routing"). */
    Map<String, String> labels = Map.of();
    /** The images it last reported holding, most recent first; null when it reports none (image affinity). */
    List<ImageDigest> images;
    /** Its machine as its last {@code ready} described it, with the address it connected from; passed upstream with {@code running} (issue 41). */
    RunnerHost machine;

    Downstream(String name, Set<String> specs) {
        this.name = name;
        this.specs = specs;
    }

    boolean canTake(HeldJob job) {
        return link != null
                && waiting
                && free > 0
                && specs.contains(job.spec())
                && !job.declinedBy.contains(name)
                && labels.entrySet().containsAll(job.labels.entrySet());
    }

    /** Whether it holds the job's image (image affinity: such a runner is offered the job first). */
    boolean holds(HeldJob job) {
        return images != null
                && job.claimed != null
                && job.claimed.config() != null
                && images.contains(job.claimed.config().digest());
    }
}

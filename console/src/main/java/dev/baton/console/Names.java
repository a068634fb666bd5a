package dev.baton.console;

import dev.baton.store.Store;
import java.util.HashMap;
import java.util.Map;

/** Spec, runner and user names looked up once per page. */
final class Names {
    private final Store store;
    private final Map<Long, String> specs = new HashMap<>();
    private final Map<Long, String> runners = new HashMap<>();
    private final Map<Long, String> users = new HashMap<>();

    Names(Store store) {
        this.store = store;
    }

    String spec(long id) {
        return specs.computeIfAbsent(
                id, s -> store.specs().findSpec(s).map(x -> x.slug().value()).orElse("?"));
    }

    String runner(Long id) {
        return id == null
                ? null
                : runners.computeIfAbsent(
                        id,
                        r -> store.runners()
                                .findRunner(r)
                                .map(x -> x.slug().value())
                                .orElse("?"));
    }

    /** Who submitted the job: its user's name, or {@code admin} when the admin token did (no user is recorded then). */
    String submitter(long jobId) {
        return store.access()
                .jobSubmitter(jobId)
                .map(u -> users.computeIfAbsent(
                        u, id -> store.access().findUser(id).map(x -> x.name()).orElse("?")))
                .orElse(JobListing.ADMIN);
    }
}

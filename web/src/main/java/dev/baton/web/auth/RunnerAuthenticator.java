package dev.baton.web.auth;

import dev.baton.protocol.id.ResourceId;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.store.Runner;
import dev.baton.store.Store;
import dev.baton.web.http.ApiException;
import java.util.Optional;

/**
 * Checks a runner's {@code Authorization: Bearer baton_runner_…} header for the runner named in
 * the path (UUID or slug): shape first (nothing malformed reaches the database), then one store
 * query by runner and key hash that excludes archived runners. The key is never logged.
 */
public final class RunnerAuthenticator {
    private final Store store;

    public RunnerAuthenticator(Store store) {
        this.store = store;
    }

    /**
     * The message of a refused key: which runner, and how to get it a working key. Wrong, rotated,
     * malformed and missing keys and unknown or archived runners are not told apart, so the answer
     * says nothing about which runners exist.
     */
    public static String refusal(String runner) {
        String name = runner == null || runner.isBlank() ? "RUNNER" : runner.strip();
        if (name.length() > 100) name = name.substring(0, 100) + "…";
        return "runner key refused for runner '" + name
                + "' (missing, malformed, wrong or rotated key, or no such active runner):"
                + " send Authorization: Bearer baton_runner_…; to give it a new key run 'baton runners rotate-key "
                + name
                + "' and start the runner with that key";
    }

    /** The error code of a single-job runner's key after its job (issue 43). */
    public static final String SPENT = "runner_spent";

    /**
     * The authenticated runner, or empty for a missing, malformed, wrong or archived runner's key.
     *
     * @throws ApiException 401 {@value #SPENT} for the right key of a single-job runner whose
     *     attempt ended: it is told apart from other refusals (only the key's holder sees it), so
     *     an agent or a pool knows the runner is done, not misconfigured
     */
    public Optional<Runner> authenticate(String runner, String authorization) {
        if (runner == null || runner.isBlank()) return Optional.empty();
        Optional<String> token = BearerToken.of(authorization);
        if (token.isEmpty()) return Optional.empty();
        RunnerKey key;
        try {
            key = RunnerKey.parse(token.get());
        } catch (IllegalArgumentException malformed) {
            return Optional.empty();
        }
        Optional<Runner> found = store.runners().authenticateRunner(ResourceId.of(runner), key.hash());
        if (found.isPresent()
                && found.get().ephemeral()
                && store.runners().isSpent(found.get().id()))
            throw new ApiException(
                    401,
                    SPENT,
                    "runner '" + found.get().slug().value()
                            + "' is a single-job runner and its job has ended: its key works no more."
                            + " A single-job runner takes one job; create a new one for the next job");
        return found;
    }
}

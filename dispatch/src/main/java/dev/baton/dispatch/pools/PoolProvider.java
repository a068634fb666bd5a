package dev.baton.dispatch.pools;

import java.util.Map;

/**
 * What starts and stops a pool's machines (issue 43; docs/runner.md, "Pools", states the
 * contract; decision 0046). Two calls, both may block (the scaler calls them off its decision):
 *
 * <ul>
 *   <li>{@link #start}: boot a machine that runs {@code baton runner up --ephemeral} as the
 *       request's runner with its one-time key, and return an id for it at once (not when the
 *       runner registered: the scaler watches that and applies {@code boot_timeout});
 *   <li>{@link #stop}: make sure the machine with that id is gone; stopping one that is gone
 *       already succeeds. Called again after a failure or by another node.
 * </ul>
 *
 * A failure is a {@link ProviderException} whose message is shown to people (on the pool and on
 * the jobs that wait), so it must not hold the key.
 */
public interface PoolProvider {
    /** The provider's name in a pool's {@code provider} field ({@code process}, {@code exec}). */
    String name();

    String start(StartRequest request) throws ProviderException;

    void stop(String providerId, Map<String, String> config) throws ProviderException;

    /**
     * Stops what may run of a machine whose id was never recorded: its node died after the
     * provider began the start and before the scaler wrote the id back. {@code machine} is the
     * machine's id in Baton (the request's {@code machine}). False (the default) when the provider
     * cannot find machines that way; the machine's runner then leaves by itself after its job,
     * and one that never took a job is left to the provider's side (docs/runner.md, "Pools").
     */
    default boolean stopUnrecorded(String machine, Map<String, String> config) throws ProviderException {
        return false;
    }

    /**
     * One machine to start: the server's URL, the runner's slug and key (pass them in the
     * environment, never on a command line: {@code BATON_SERVER}, {@code BATON_RUNNER},
     * {@code BATON_RUNNER_KEY}), the labels it reports, the machine's id in Baton, and the pool's
     * provider settings.
     */
    record StartRequest(
            String server,
            String runner,
            String key,
            Map<String, String> labels,
            String machine,
            String pool,
            Map<String, String> config) {
        @Override
        public String toString() { // never the key
            return "StartRequest[runner=" + runner + ", machine=" + machine + ", pool=" + pool + "]";
        }
    }

    /** A start or stop that failed; the message says why, for people. */
    final class ProviderException extends Exception {
        private static final long serialVersionUID = 1L;

        public ProviderException(String message) {
            super(message);
        }
    }
}

package dev.baton.runner.oci;

import java.util.Optional;

/**
 * The bearer token a pull presents to the registry, and how to get a fresh one when the registry
 * refuses it mid-pull (issue 41: a job's token lives pull_token_ttl at most, a large image on a
 * slow link may take longer).
 */
public interface PullCredentials {
    /** The token to present now; null or empty for none. */
    String current();

    /**
     * A token to try instead of {@code refused}, which the registry just refused; empty when there
     * is none to be had (the job ended, the server cannot be asked), and the pull is denied.
     */
    Optional<String> refresh(String refused);

    /** One token for the whole pull, never refreshed. */
    static PullCredentials fixed(String token) {
        return new PullCredentials() {
            @Override
            public String current() {
                return token;
            }

            @Override
            public Optional<String> refresh(String refused) {
                return Optional.empty();
            }
        };
    }
}

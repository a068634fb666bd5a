package dev.baton.store;

import java.util.Set;

/**
 * One waiting runner in a claim made for several at once ({@link Claims#claimEach}).
 *
 * @param runnerId  the runner that takes the jobs
 * @param slots     the most jobs it takes
 * @param specIds   the specs it waits for, as its waiter sees them (after a router's narrowing):
 *                  requests with the same set share an answer, so once one of them finds nothing
 *                  later ones of that set are not tried
 * @param filter    a router's narrowing and preference ({@link ClaimFilter#NONE} for a runner)
 * @param declinedSome the runner declined jobs: its claim may find nothing while another runner of
 *                  the same specs would find something, so its empty answer says nothing about the set
 */
public record ClaimRequest(long runnerId, int slots, Set<Long> specIds, ClaimFilter filter, boolean declinedSome) {
    public ClaimRequest {
        specIds = Set.copyOf(specIds);
    }
}

package dev.baton.dispatch.pools;

/**
 * What the server knows of a pool machine's runner (issue 43): not connected yet, connected with
 * no job, running its job, or spent (its one attempt ended: the machine has done its work).
 */
public enum RunnerPhase {
    NOT_CONNECTED,
    IDLE,
    BUSY,
    SPENT
}

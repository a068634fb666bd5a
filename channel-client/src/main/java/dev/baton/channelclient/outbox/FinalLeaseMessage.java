package dev.baton.channelclient.outbox;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A lease runner's final word on an attempt ({@code Complete} or {@code CancelAck}), kept on
 * disk until the server answers it with {@code CompleteAck} or {@code StaleLease}.
 *
 * @param job the job's id (names the entry with {@code attempt})
 * @param attempt the attempt the lease was granted for
 * @param path where it is posted under {@code /v0/runners/{runner}/leases/}: {@code complete} or {@code cancel-ack}
 * @param message the message as sent, lease included
 * @param refusals how often the server refused it with an HTTP error (not counting a server it could not reach)
 */
public record FinalLeaseMessage(String job, int attempt, String path, JsonNode message, int refusals) {
    public FinalLeaseMessage withRefusals(int n) {
        return new FinalLeaseMessage(job, attempt, path, message, n);
    }

    /** The name of its entry: one per attempt, so an old attempt's word never overwrites a newer one's. */
    String key() {
        return job + "." + attempt;
    }
}

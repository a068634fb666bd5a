package dev.baton.broker;

import java.util.ArrayList;
import java.util.List;

/**
 * What a transport-A runner's NATS user may do, in nats-server's permission subjects; the names
 * are the ones the server hands the runner in {@code LeaseSubjects}, so the grant matches what a
 * runner really uses:
 * <ul>
 *   <li>publish: for each of its specs' durable consumers, INFO (bind to the consumer the server
 *   made), MSG.NEXT (pull) and {@code $JS.ACK.<stream>.<consumer>.>} (ack, nak, term of a pulled
 *   message); nothing else, so it cannot pull or answer another spec's offers, nor publish on any
 *   control subject or another runner's inbox;</li>
 *   <li>subscribe: its own inbox prefix ({@link NatsBroker#inboxPrefix}), where its pulled offers
 *   and API replies arrive, and its own control subject. Not the shared {@code _INBOX.>}: with it
 *   any runner read every offer other runners pulled (lease id, job, env).</li>
 * </ul>
 * {@code baton runners nats-user} prints it; tests configure real nats-servers with it.
 */
public record RunnerGrant(String runnerSlug, String inboxPrefix, List<String> publish, List<String> subscribe) {
    public RunnerGrant {
        publish = List.copyOf(publish);
        subscribe = List.copyOf(subscribe);
    }

    public static RunnerGrant of(String runnerSlug, List<String> specSlugs) {
        List<String> publish = new ArrayList<>();
        for (String spec : specSlugs) {
            String consumer = NatsBroker.consumer(spec);
            publish.add("$JS.API.CONSUMER.MSG.NEXT." + NatsBroker.STREAM + "." + consumer);
            publish.add("$JS.API.CONSUMER.INFO." + NatsBroker.STREAM + "." + consumer);
            publish.add("$JS.ACK." + NatsBroker.STREAM + "." + consumer + ".>");
        }
        String inbox = NatsBroker.inboxPrefix(runnerSlug);
        return new RunnerGrant(
                runnerSlug, inbox, publish, List.of(inbox + ".>", NatsBroker.controlSubject(runnerSlug)));
    }
}

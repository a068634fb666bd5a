package dev.baton.cli;

import dev.baton.server.broker.NatsBroker;
import java.util.ArrayList;
import java.util.List;

/**
 * The nats-server user of one transport-A runner: it may pull and ack only on its specs' durable
 * consumers and read only its own control subject. The names come from {@link NatsBroker}, the
 * same ones the server hands the runner in {@code LeaseSubjects}, so the grant matches what the
 * runner's LeaseQueue really uses (bind to the consumer: INFO; pull: MSG.NEXT with an
 * {@code _INBOX} reply; ack: the message's {@code $JS.ACK} reply subject).
 */
record NatsRunnerUser(String user, String password, List<String> publish, List<String> subscribe) {
    static NatsRunnerUser of(String runnerSlug, List<String> specSlugs, String password) {
        if (!printableWithoutQuotes(password)) {
            throw new IllegalArgumentException("the password must be printable, without quotes, backslashes or spaces");
        }
        List<String> publish = new ArrayList<>();
        for (String spec : specSlugs) {
            String consumer = NatsBroker.consumer(spec);
            publish.add("$JS.API.CONSUMER.MSG.NEXT." + NatsBroker.STREAM + "." + consumer);
            publish.add("$JS.API.CONSUMER.INFO." + NatsBroker.STREAM + "." + consumer);
            publish.add("$JS.ACK." + NatsBroker.STREAM + "." + consumer + ".>");
        }
        return new NatsRunnerUser("runner-" + runnerSlug, password, List.copyOf(publish),
                List.of("_INBOX.>", NatsBroker.controlSubject(runnerSlug)));
    }

    /** The {@code authorization} block for nats-server.conf (a server with several users merges the {@code users} lists). */
    String authorization() {
        return "authorization {\n"
                + "  users = [\n"
                + "    { user: " + quote(user) + ", password: " + quote(password) + ", permissions: {\n"
                + "        publish: { allow: " + list(publish) + " },\n"
                + "        subscribe: { allow: " + list(subscribe) + " } } }\n"
                + "  ]\n"
                + "}\n";
    }

    private static String list(List<String> subjects) {
        return "[" + String.join(", ", subjects.stream().map(NatsRunnerUser::quote).toList()) + "]";
    }

    /** Quoted, since an unquoted {@code $JS…} would be read as a variable. */
    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    private static boolean printableWithoutQuotes(String s) {
        return !s.isEmpty() && s.chars().allMatch(c -> c > ' ' && c < 127 && c != '"' && c != '\\' && c != '\'');
    }
}

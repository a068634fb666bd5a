package dev.baton.cli;

import dev.baton.broker.RunnerGrant;
import java.util.List;

/**
 * The nats-server user of one transport-A runner: it may pull and ack only on its specs' durable
 * consumers and read only its own control subject. The grant is {@link RunnerGrant}'s, whose names are the
 * same ones the server hands the runner in {@code LeaseSubjects}, so the grant matches what the
 * runner's LeaseQueue really uses (bind to the consumer: INFO; pull: MSG.NEXT with a reply below
 * the runner's own inbox prefix, {@code _INBOX_baton.<runner>}; ack: the message's {@code $JS.ACK}
 * reply subject). Publishing is only to those API subjects, so a runner cannot pull, ack or nak
 * another spec's offers, nor publish on any control subject.
 */
record NatsRunnerUser(String user, String password, String inboxPrefix, List<String> publish, List<String> subscribe) {
    static NatsRunnerUser of(String runnerSlug, List<String> specSlugs, String password) {
        if (!printableWithoutQuotes(password)) {
            throw new IllegalArgumentException("the password must be printable, without quotes, backslashes or spaces");
        }
        RunnerGrant grant = RunnerGrant.of(runnerSlug, specSlugs);
        return new NatsRunnerUser(
                "runner-" + runnerSlug, password, grant.inboxPrefix(), grant.publish(), grant.subscribe());
    }

    /** The {@code authorization} block for nats-server.conf (a server with several users merges the {@code users} lists). */
    String authorization() {
        return "authorization {\n"
                + "  users = [\n"
                + "    # " + user + " connects with the inbox prefix " + inboxPrefix + " (LeaseSubjects.inbox_prefix)\n"
                + "    { user: " + quote(user) + ", password: " + quote(password) + ", permissions: {\n"
                + "        publish: { allow: " + list(publish) + " },\n"
                + "        subscribe: { allow: " + list(subscribe) + " } } }\n"
                + "  ]\n"
                + "}\n";
    }

    private static String list(List<String> subjects) {
        return "["
                + String.join(", ", subjects.stream().map(NatsRunnerUser::quote).toList()) + "]";
    }

    /** Quoted, since an unquoted {@code $JS…} would be read as a variable. */
    private static String quote(String s) {
        return "\"" + s + "\"";
    }

    private static boolean printableWithoutQuotes(String s) {
        return !s.isEmpty() && s.chars().allMatch(c -> c > ' ' && c < 127 && c != '"' && c != '\\' && c != '\'');
    }
}

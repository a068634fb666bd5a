package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The NATS grant of a runner: exactly its specs' consumers and its own control subject. */
class NatsRunnerUserTest {
    @Test
    void grantsExactlyTheRunnersTwoConsumersAndItsControlSubject() {
        NatsRunnerUser user = NatsRunnerUser.of("gpu-box-1", List.of("gpu", "x86-small"), "s3cret");

        assertThat(user.user()).isEqualTo("runner-gpu-box-1");
        assertThat(user.publish())
                .containsExactly(
                        "$JS.API.CONSUMER.MSG.NEXT.BATON_LEASES.baton-gpu",
                        "$JS.API.CONSUMER.INFO.BATON_LEASES.baton-gpu",
                        "$JS.ACK.BATON_LEASES.baton-gpu.>",
                        "$JS.API.CONSUMER.MSG.NEXT.BATON_LEASES.baton-x86-small",
                        "$JS.API.CONSUMER.INFO.BATON_LEASES.baton-x86-small",
                        "$JS.ACK.BATON_LEASES.baton-x86-small.>");
        assertThat(user.subscribe())
                .as("its own inbox prefix, not the _INBOX.> every runner shares")
                .containsExactly("_INBOX_baton.gpu-box-1.>", "baton.control.gpu-box-1");
        assertThat(user.inboxPrefix()).isEqualTo("_INBOX_baton.gpu-box-1");
        assertThat(user.authorization()).isEqualTo("""
                authorization {
                  users = [
                    # runner-gpu-box-1 connects with the inbox prefix _INBOX_baton.gpu-box-1 (LeaseSubjects.inbox_prefix)
                    { user: "runner-gpu-box-1", password: "s3cret", permissions: {
                        publish: { allow: ["$JS.API.CONSUMER.MSG.NEXT.BATON_LEASES.baton-gpu", "$JS.API.CONSUMER.INFO.BATON_LEASES.baton-gpu", \
                "$JS.ACK.BATON_LEASES.baton-gpu.>", "$JS.API.CONSUMER.MSG.NEXT.BATON_LEASES.baton-x86-small", \
                "$JS.API.CONSUMER.INFO.BATON_LEASES.baton-x86-small", "$JS.ACK.BATON_LEASES.baton-x86-small.>"] },
                        subscribe: { allow: ["_INBOX_baton.gpu-box-1.>", "baton.control.gpu-box-1"] } } }
                  ]
                }
                """);
    }

    @Test
    void aPasswordThatWouldBreakTheConfigIsRefused() {
        assertThatThrownBy(() -> NatsRunnerUser.of("box", List.of("gpu"), "a\"b"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> NatsRunnerUser.of("box", List.of("gpu"), ""))
                .isInstanceOf(IllegalArgumentException.class);
    }
}

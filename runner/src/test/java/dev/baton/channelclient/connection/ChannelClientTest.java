package dev.baton.channelclient.connection;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.channelclient.machine.Input;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.value.RunnerKey;
import dev.baton.runner.testing.ScriptedPeer;
import java.net.URI;
import java.net.http.HttpClient;
import java.time.Clock;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The socket layer against a scripted peer standing in for the server channel (which lands separately). */
class ChannelClientTest {
    @Test
    void aRefusedKeyNamesTheCommandOfWhoeverRefusedIt() {
        assertThat(ChannelClient.describeRefusal(401, "bench-1", false))
                .contains("the server refused")
                .contains("baton runners rotate-key bench-1");
        assertThat(ChannelClient.describeRefusal(401, "bench-1", true))
                .contains("the router refused")
                .contains("baton router keys rotate bench-1")
                .doesNotContain("rotate-key");
    }

    @Test
    void channelUriFromServerUrl() {
        assertThat(ChannelClient.channelUri(URI.create("http://h:8080"), "r-1"))
                .hasToString("ws://h:8080/v0/runners/r-1/channel");
        assertThat(ChannelClient.channelUri(URI.create("https://h/base/"), "r 1"))
                .hasToString("wss://h/base/v0/runners/r+1/channel");
        assertThatThrownBy(() -> ChannelClient.channelUri(URI.create("ftp://h"), "r"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void messagesAreDecodedAndOversizedOrInvalidOnesReportedAsMalformed() throws Exception {
        RunnerKey key = RunnerKey.generate();
        try (ScriptedPeer peer = new ScriptedPeer(key.reveal(), (p, m) -> List.of())) {
            BlockingQueue<Input> inputs = new LinkedBlockingQueue<>();
            var client = new ChannelClient(
                    HttpClient.newHttpClient(), peer.url(), "r", key, 1024, inputs::add, Clock.systemUTC());
            client.connect();
            assertThat(inputs.poll(10, TimeUnit.SECONDS)).isInstanceOf(Input.ConnectionOpened.class);
            peer.send(new ServerMessage.NoJob());
            assertThat(inputs.poll(10, TimeUnit.SECONDS)).isEqualTo(new Input.Received(new ServerMessage.NoJob()));
            peer.send(new ServerMessage.Error("x".repeat(2000), "too big"));
            assertThat(inputs.poll(10, TimeUnit.SECONDS))
                    .isInstanceOfSatisfying(
                            Input.Malformed.class, m -> assertThat(m.reason()).contains("larger than 1024"));
            peer.stop();
            assertThat(inputs.poll(10, TimeUnit.SECONDS))
                    .isInstanceOfSatisfying(
                            Input.ConnectionClosed.class,
                            c -> assertThat(c.fatal()).isFalse());
            assertThat(inputs.poll(500, TimeUnit.MILLISECONDS))
                    .as("closed is reported once")
                    .isNull();
        }
    }

    @Test
    void aCloseWithCode4001IsReportedAsReplaced() throws Exception {
        RunnerKey key = RunnerKey.generate();
        try (ScriptedPeer peer = new ScriptedPeer(key.reveal(), (p, m) -> List.of())) {
            BlockingQueue<Input> inputs = new LinkedBlockingQueue<>();
            var client = new ChannelClient(
                    HttpClient.newHttpClient(), peer.url(), "r", key, 1024, inputs::add, Clock.systemUTC());
            client.connect();
            assertThat(inputs.poll(10, TimeUnit.SECONDS)).isInstanceOf(Input.ConnectionOpened.class);
            peer.awaitConnections(1, java.time.Duration.ofSeconds(10));
            peer.closeCurrent(ChannelClient.CLOSE_REPLACED, "replaced by a newer connection of this runner");
            assertThat(inputs.poll(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(Input.ConnectionClosed.class, c -> {
                assertThat(c.replaced()).isTrue();
                assertThat(c.fatal()).isFalse();
                assertThat(c.reason()).contains("4001");
            });

            client.connect();
            assertThat(inputs.poll(10, TimeUnit.SECONDS)).isInstanceOf(Input.ConnectionOpened.class);
            peer.awaitConnections(2, java.time.Duration.ofSeconds(10));
            peer.closeCurrent(4003, "server shutting down");
            assertThat(inputs.poll(10, TimeUnit.SECONDS))
                    .isInstanceOfSatisfying(
                            Input.ConnectionClosed.class,
                            c -> assertThat(c.replaced()).isFalse());
        }
    }

    @Test
    void aCloseWithCode1009IsReportedAsTooBig() throws Exception {
        RunnerKey key = RunnerKey.generate();
        try (ScriptedPeer peer = new ScriptedPeer(key.reveal(), (p, m) -> List.of())) {
            BlockingQueue<Input> inputs = new LinkedBlockingQueue<>();
            var client = new ChannelClient(
                    HttpClient.newHttpClient(), peer.url(), "r", key, 1024, inputs::add, Clock.systemUTC());
            client.connect();
            assertThat(inputs.poll(10, TimeUnit.SECONDS)).isInstanceOf(Input.ConnectionOpened.class);
            peer.awaitConnections(1, java.time.Duration.ofSeconds(10));
            peer.closeCurrent(ChannelClient.CLOSE_TOO_BIG, "Text message too large");
            assertThat(inputs.poll(10, TimeUnit.SECONDS)).isInstanceOfSatisfying(Input.ConnectionClosed.class, c -> {
                assertThat(c.tooBig()).isTrue();
                assertThat(c.replaced()).isFalse();
                assertThat(c.fatal()).isFalse();
            });
        }
    }
}

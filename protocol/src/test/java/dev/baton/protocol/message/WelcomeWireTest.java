package dev.baton.protocol.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The welcome tells the runner the server's read timeout (issue 45, decision 0051), and may leave it out. */
class WelcomeWireTest {
    @Test
    void theReadTimeoutTravelsAsHeartbeatTimeoutSeconds() {
        String json = Wire.encode(new ServerMessage.Welcome("r", "R", List.of("host"), 1024L, 30L));
        assertThat(json).contains("\"heartbeat_timeout_seconds\":30");
        assertThat(Wire.decodeServerMessage(json))
                .isEqualTo(new ServerMessage.Welcome("r", "R", List.of("host"), 1024L, 30L));
    }

    @Test
    void aWelcomeWithoutItIsReadAsNull() {
        ServerMessage read = Wire.decodeServerMessage(
                "{\"event\":\"welcome\",\"runner\":\"r\",\"name\":\"R\",\"specs\":[],\"max_message_bytes\":1024}");
        assertThat(((ServerMessage.Welcome) read).heartbeatTimeoutSeconds()).isNull();
    }
}

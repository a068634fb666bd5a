package dev.baton.channelclient.connection;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The wait a 4029 close asks for, read from the reason the server writes (docs/protocol.md, "Connection"). */
class RetryAfterTest {
    @Test
    void aTooManyConnectsCloseNamesItsWait() {
        assertThat(ChannelClient.retryAfter(4029, "too many connects of this runner; retry in 17 s"))
                .isEqualTo(Duration.ofSeconds(17));
    }

    @Test
    void anyOtherCloseOrAReasonWithoutAWaitHasNone() {
        assertThat(ChannelClient.retryAfter(4002, "retry in 17 s")).isNull();
        assertThat(ChannelClient.retryAfter(4029, "too many connects")).isNull();
        assertThat(ChannelClient.retryAfter(4029, null)).isNull();
        assertThat(ChannelClient.retryAfter(4029, "retry in 99999999999 s")).isNull();
    }
}

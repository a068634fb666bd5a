package dev.baton.web.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.core.config.EdgeSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How X-Forwarded-For is read behind trusted_proxies (issue 41); ForwardedClientAddressTest: a real server. */
class ClientAddressTest {
    final ClientAddress behindProxies = new ClientAddress(EdgeSettings.cidrs("10.0.0.0/8, fd00::/8"));

    @Test
    void withoutTrustedProxiesThePeerIsTheClientWhateverTheHeaderSays() {
        ClientAddress none = new ClientAddress(List.of());
        assertThat(none.of("10.0.0.5", List.of("203.0.113.9"))).isEqualTo("10.0.0.5");
    }

    @Test
    void theHeaderIsReadFromTheRightAcrossLinesSkippingTrustedHops() {
        // Two header lines (a client's own, then the proxy's): the last line's last hop is the nearest.
        assertThat(behindProxies.of("10.0.0.5", List.of("198.51.100.1", "203.0.113.9, 10.2.3.4")))
                .isEqualTo("203.0.113.9");
        // A dual-stack socket shows an IPv4 proxy as an IPv4-mapped IPv6 address; it is still the trusted proxy.
        assertThat(behindProxies.of("::ffff:10.0.0.5", List.of("203.0.113.9"))).isEqualTo("203.0.113.9");
        assertThat(behindProxies.of("fd00::1", List.of("[2001:db8::7]:443"))).isEqualTo("2001:db8:0:0:0:0:0:7");
        assertThat(behindProxies.of("10.0.0.5", List.of("203.0.113.9:5123"))).isEqualTo("203.0.113.9");
    }

    @Test
    void aHopThatIsNoAddressStopsTheWalkAtTheLastTrustedOne() {
        assertThat(behindProxies.of("10.0.0.5", List.of("203.0.113.9, unknown")))
                .isEqualTo("10.0.0.5");
        assertThat(behindProxies.of("10.0.0.5", List.of("unknown, 10.7.7.7"))).isEqualTo("10.7.7.7");
        assertThat(behindProxies.of("10.0.0.5", List.of("evil.example.com")))
                .as("never a host name")
                .isEqualTo("10.0.0.5");
        assertThat(behindProxies.of("10.0.0.5", List.of())).isEqualTo("10.0.0.5");
    }
}

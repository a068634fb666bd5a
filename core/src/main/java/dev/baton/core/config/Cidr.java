package dev.baton.core.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A block of IPv4 or IPv6 addresses ({@code 10.0.0.0/8}, {@code fd00::/8}); a bare address is a
 * block of one. An IPv4-mapped IPv6 address ({@code ::ffff:10.1.2.3}) is the IPv4 address it maps,
 * as Java reads it, so a proxy reached over a dual-stack socket still matches its IPv4 block.
 *
 * @param network the first address of the block (host bits cleared)
 * @param prefix  how many leading bits every address of the block shares
 */
public record Cidr(InetAddress network, int prefix) {
    /** Only what an address literal can hold, so parsing one never asks DNS. */
    private static final Pattern LITERAL = Pattern.compile("[0-9A-Fa-f:.]+");

    public Cidr {
        int bits = network.getAddress().length * 8;
        if (prefix < 0 || prefix > bits) {
            throw new IllegalArgumentException("prefix /" + prefix + " does not fit " + network.getHostAddress());
        }
        network = masked(network, prefix);
    }

    /** {@code text} as a block: {@code address/prefix} or a bare address. */
    public static Cidr parse(String text) {
        String t = text.strip();
        int slash = t.indexOf('/');
        InetAddress address = address(slash < 0 ? t : t.substring(0, slash))
                .orElseThrow(() -> new IllegalArgumentException("'" + text + "' is not an IP address or CIDR block"));
        int bits = address.getAddress().length * 8;
        if (slash < 0) return new Cidr(address, bits);
        try {
            return new Cidr(address, Integer.parseInt(t.substring(slash + 1)));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("'" + text + "' has no valid prefix length after '/'");
        }
    }

    /** An address literal (IPv4 or IPv6, no host names, no brackets), or empty when {@code text} is not one. */
    public static Optional<InetAddress> address(String text) {
        if (text == null || text.isEmpty() || !LITERAL.matcher(text).matches()) return Optional.empty();
        if (!text.contains(":") && !text.matches("\\d{1,3}(\\.\\d{1,3}){3}")) return Optional.empty();
        try {
            return Optional.of(InetAddress.getByName(text));
        } catch (UnknownHostException e) {
            return Optional.empty();
        }
    }

    public boolean contains(InetAddress address) {
        byte[] a = address.getAddress();
        byte[] n = network.getAddress();
        if (a.length != n.length) return false;
        return Arrays.equals(masked(a, prefix), n);
    }

    @Override
    public String toString() {
        return network.getHostAddress() + "/" + prefix;
    }

    private static InetAddress masked(InetAddress address, int prefix) {
        try {
            return InetAddress.getByAddress(masked(address.getAddress(), prefix));
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(e);
        }
    }

    private static byte[] masked(byte[] bytes, int prefix) {
        byte[] out = bytes.clone();
        for (int i = 0; i < out.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - i * 8));
            out[i] &= (byte) (0xFF << (8 - keep));
        }
        return out;
    }
}

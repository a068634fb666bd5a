package dev.baton.protocol.model;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Instant;

/**
 * The machine an agent runs on, as far as Baton knows it (issue 41): what the agent reported in
 * {@code ready} ({@code os}, {@code arch}, {@code version}, {@code host}, {@code pid} and when the
 * agent process started) and the address its connection came from, as the receiving side saw it.
 * Every field is optional (null: not reported); text is cut to {@link #MAX_LENGTH}, never refused,
 * since it is only recorded and shown. A router passes the one of the runner behind it with
 * {@code running} (docs/protocol.md, "Routers").
 */
public record RunnerHost(
        String os, String arch, String version, String host, Long pid, Instant agentStarted, String address) {
    /** Longest kept value of any text field. */
    public static final int MAX_LENGTH = 128;

    /** The same with every text field cut to {@link #MAX_LENGTH} and a negative pid dropped. */
    public RunnerHost bounded() {
        return new RunnerHost(
                cut(os),
                cut(arch),
                cut(version),
                cut(host),
                pid == null || pid < 0 ? null : pid,
                agentStarted,
                cut(address));
    }

    /** The same machine seen from another address (the server's view of a connection). */
    public RunnerHost withAddress(String a) {
        return new RunnerHost(os, arch, version, host, pid, agentStarted, a);
    }

    /**
     * A connection's peer as its IP address, or null: not the port, which changes on every reconnect,
     * so that a runner reconnecting from the same process and address is the same machine.
     */
    public static String address(SocketAddress peer) {
        if (peer instanceof InetSocketAddress inet && inet.getAddress() != null)
            return inet.getAddress().getHostAddress();
        return peer == null ? null : peer.toString();
    }

    private static String cut(String s) {
        return s == null || s.length() <= MAX_LENGTH ? s : s.substring(0, MAX_LENGTH);
    }
}

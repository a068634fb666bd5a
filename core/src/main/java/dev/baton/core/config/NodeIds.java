package dev.baton.core.config;

import java.net.InetAddress;
import java.util.regex.Pattern;

/**
 * Node ids: what {@code --node-id} accepts, and its default {@code <hostname>-<pid>}. The default
 * is unique per process on a host, so a restarted node is a new node and the old one is found
 * dead by its missed heartbeats (or at once, when a node restarts under the same id).
 */
public final class NodeIds {
    public static final Pattern VALID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._:-]{0,62}");

    private NodeIds() {}

    public static String defaultId() {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            host = "baton";
        }
        String id = host.replaceAll("[^A-Za-z0-9._-]", "-") + "-"
                + ProcessHandle.current().pid();
        if (id.length() > 63) id = id.substring(id.length() - 63);
        return VALID.matcher(id).matches()
                ? id
                : "baton-" + ProcessHandle.current().pid();
    }
}

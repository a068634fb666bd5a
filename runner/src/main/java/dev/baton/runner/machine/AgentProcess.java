package dev.baton.runner.machine;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;

/**
 * This agent's process as the server records it with every {@code ready} (issue 41): the host
 * name, the process id and when the process started, so an operator can tell which machine and
 * which run of the agent took a job. Read once; a host name the resolver cannot give is left out.
 */
final class AgentProcess {
    static final String HOST = hostName();
    static final Long PID = ProcessHandle.current().pid();
    static final Instant STARTED = ProcessHandle.current().info().startInstant().orElse(null);

    private AgentProcess() {}

    private static String hostName() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            String env = System.getenv("HOSTNAME");
            return env == null || env.isBlank() ? null : env;
        }
    }
}

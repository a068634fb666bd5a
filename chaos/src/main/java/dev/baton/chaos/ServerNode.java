package dev.baton.chaos;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;

/** A {@code baton server} node on a port it keeps across restarts, so runners and the balancer find it again. */
record ServerNode(int index, int port, BatonProcess process) {

    String url() {
        return "http://127.0.0.1:" + port;
    }

    /** A port free now; the node binds it at every start (SO_REUSEADDR lets it rebind after a kill). */
    static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}

package dev.baton.runner.integration;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy in front of the server that a test can {@link #cut}: from then on its port is
 * closed (a new connection is refused) and every connection through it is closed, as a network
 * partition between one runner and the server would look to that runner.
 */
final class CuttableProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final URI upstream;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    CuttableProxy(URI upstream) throws IOException {
        this.upstream = upstream;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("proxy-accept").start(this::accept);
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort() + upstream.getRawPath());
    }

    /** Closes the port and every connection through it; nothing reaches the server through this proxy again. */
    void cut() {
        close(listener);
        open.forEach(CuttableProxy::close);
    }

    @Override
    public void close() {
        cut();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), upstream.getPort());
                open.add(client);
                open.add(server);
                Thread.ofVirtual().start(() -> relay(client, server));
                Thread.ofVirtual().start(() -> relay(server, client));
            } catch (IOException e) {
                return; // cut
            }
        }
    }

    private void relay(Socket from, Socket to) {
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException closed) {
            // one side went away: both close below
        } finally {
            close(from);
            close(to);
        }
    }

    private static void close(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}

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
 * partition between one runner and the server would look to that runner. {@link #heal} opens the
 * same port again: the partition is over.
 */
final class CuttableProxy implements AutoCloseable {
    private volatile ServerSocket listener;
    private final int port;
    private final URI upstream;
    private final Set<Socket> open = ConcurrentHashMap.newKeySet();

    CuttableProxy(URI upstream) throws IOException {
        this.upstream = upstream;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.port = listener.getLocalPort();
        ServerSocket l = listener;
        Thread.ofVirtual().name("proxy-accept").start(() -> accept(l));
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + port + upstream.getRawPath());
    }

    /** Closes the port and every connection through it; nothing reaches the server through this proxy again. */
    void cut() {
        close(listener);
        open.forEach(CuttableProxy::close);
    }

    /** Listens on the same port again after {@link #cut}. */
    void heal() throws IOException {
        ServerSocket l = new ServerSocket();
        l.setReuseAddress(true);
        l.bind(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), port), 50);
        listener = l;
        Thread.ofVirtual().name("proxy-accept").start(() -> accept(l));
    }

    @Override
    public void close() {
        cut();
    }

    private void accept(ServerSocket listener) {
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
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
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

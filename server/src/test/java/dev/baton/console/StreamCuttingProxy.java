package dev.baton.console;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP proxy between the browser and the server that can cut the console's event streams: it
 * passes every byte through, notices a connection whose request is {@code GET /console/events}, and
 * on {@link #cut()} closes those connections under the page, as a flaky network or a restarted
 * proxy would. While {@link #block blocked}, a new event stream request is closed before it reaches
 * the server, so the page stays without its stream (it keeps retrying) until {@link #unblock}.
 * Everything else (pages, htmx refreshes, the log stream) is never touched.
 */
final class StreamCuttingProxy implements AutoCloseable {
    private static final byte[] EVENTS_REQUEST = "GET /console/events".getBytes(StandardCharsets.US_ASCII);

    private final ServerSocket listener;
    private final int upstreamPort;
    private final Set<Socket> eventStreams = ConcurrentHashMap.newKeySet();
    private final Set<Socket> all = ConcurrentHashMap.newKeySet();
    private final AtomicInteger cuts = new AtomicInteger();
    private final AtomicInteger refused = new AtomicInteger();
    private volatile boolean blocked;

    StreamCuttingProxy(int upstreamPort) throws IOException {
        this.upstreamPort = upstreamPort;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("proxy-accept").start(this::accept);
    }

    String url(String path) {
        return "http://127.0.0.1:" + listener.getLocalPort() + path;
    }

    /** Closes every open event stream connection; returns how many. */
    int cut() {
        int n = 0;
        for (Socket s : eventStreams) {
            close(s);
            n++;
        }
        cuts.addAndGet(n);
        return n;
    }

    /** From now on a new event stream is closed before it reaches the server (open ones are cut too). */
    void block() {
        blocked = true;
        cut();
    }

    void unblock() {
        blocked = false;
    }

    /** Event stream connections closed by {@link #cut}, and requests refused while blocked. */
    int cuts() {
        return cuts.get();
    }

    int refused() {
        return refused.get();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Socket server = new Socket(InetAddress.getLoopbackAddress(), upstreamPort);
                all.add(client);
                all.add(server);
                Thread.ofVirtual().start(() -> toServer(client, server));
                Thread.ofVirtual().start(() -> pump(server, client));
            } catch (IOException e) {
                if (!listener.isClosed()) System.err.println("proxy: " + e);
            }
        }
    }

    /** Browser → server, watching for the event stream request (at most one per connection is in flight). */
    private void toServer(Socket client, Socket server) {
        byte[] buffer = new byte[8192];
        byte[] carry = new byte[0]; // the end of the previous chunk, so a request line split across reads is still seen
        try (client;
                server;
                InputStream in = client.getInputStream();
                OutputStream out = server.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                byte[] window = new byte[carry.length + n];
                System.arraycopy(carry, 0, window, 0, carry.length);
                System.arraycopy(buffer, 0, window, carry.length, n);
                if (contains(window, EVENTS_REQUEST)) {
                    if (blocked) {
                        refused.incrementAndGet();
                        return; // closes both sides: the request never reaches the server
                    }
                    eventStreams.add(client);
                }
                out.write(buffer, 0, n);
                out.flush();
                int keep = Math.min(window.length, EVENTS_REQUEST.length - 1);
                carry = java.util.Arrays.copyOfRange(window, window.length - keep, window.length);
            }
        } catch (IOException e) {
            // one side went away: the try closes both
        } finally {
            eventStreams.remove(client);
            all.remove(client);
            all.remove(server);
        }
    }

    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        try (from;
                to;
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            for (int n; (n = in.read(buffer)) > 0; ) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException e) {
            // closed under us, by a cut or by either end
        }
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) continue outer;
            }
            return true;
        }
        return false;
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        listener.close();
        for (Socket s : all) close(s);
    }
}

package dev.baton.chaos;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntSupplier;

/**
 * A TCP load balancer on 127.0.0.1 between the runners and the server nodes, as HAProxy in TCP
 * mode would be: each new connection goes to the next node in turn, skipping nodes that refuse.
 * It is also the fault injector for the network: {@link #drop} cuts established connections
 * with a reset (SO_LINGER 0), both towards the runner and towards the server, the way a
 * restarted middlebox or a lost route does.
 */
final class FaultyBalancer implements AutoCloseable {
    private final ServerSocket listener;
    private final List<IntSupplier> backends;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private final AtomicInteger next = new AtomicInteger();
    private volatile boolean closed;

    /** One runner connection and its leg to a node. */
    private record Link(Socket client, Socket server) {
        void reset() {
            for (Socket s : List.of(client, server)) {
                try {
                    s.setSoLinger(true, 0);
                    s.close();
                } catch (IOException ignored) {
                    // already closed
                }
            }
        }
    }

    /** @param backends the nodes' ports, read at each connection (a node keeps its port across restarts) */
    FaultyBalancer(List<IntSupplier> backends) throws IOException {
        this.backends = List.copyOf(backends);
        this.listener = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("balancer-accept").start(this::acceptLoop);
    }

    int port() {
        return listener.getLocalPort();
    }

    String url() {
        return "http://127.0.0.1:" + port();
    }

    /** Resets a random {@code fraction} (0–1] of the open connections; returns how many. */
    int drop(double fraction, Random random) {
        List<Link> open = new ArrayList<>(links);
        int cut = 0;
        for (Link l : open) {
            if (random.nextDouble() < fraction) {
                links.remove(l);
                l.reset();
                cut++;
            }
        }
        return cut;
    }

    private void acceptLoop() {
        while (!closed) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            Thread.ofVirtual().start(() -> connect(client));
        }
    }

    private void connect(Socket client) {
        int first = Math.floorMod(next.getAndIncrement(), backends.size());
        for (int i = 0; i < backends.size(); i++) {
            int port = backends.get((first + i) % backends.size()).getAsInt();
            Socket server = new Socket();
            try {
                server.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1000);
            } catch (IOException refused) {
                close(server);
                continue;
            }
            Link link = new Link(client, server);
            links.add(link);
            Thread.ofVirtual().start(() -> pipe(link, client, server));
            pipe(link, server, client);
            return;
        }
        close(client); // no node answers: the runner reconnects later, as it would through HAProxy
    }

    private void pipe(Link link, Socket from, Socket to) {
        byte[] buf = new byte[16 * 1024];
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buf)) >= 0) {
                out.write(buf, 0, n);
                out.flush();
            }
        } catch (IOException ignored) {
            // one side went away: the other follows
        } finally {
            links.remove(link);
            close(from);
            close(to);
        }
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public void close() {
        closed = true;
        close(listener);
        links.forEach(Link::reset);
        links.clear();
    }

    private static void close(ServerSocket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }
}

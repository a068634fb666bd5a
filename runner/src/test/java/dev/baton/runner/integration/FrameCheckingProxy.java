package dev.baton.runner.integration;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP proxy in front of the server that reads the runner's WebSocket frames (RFC 6455 §5.2) as
 * it relays them, byte for byte, and records the first framing fault of each connection: a
 * reserved bit, an unknown opcode, an unmasked frame, a fragmented or long control frame, a
 * continuation without a message or a new message inside one. It tells whether a broken channel
 * was broken by what the runner wrote or by how the server read it.
 */
final class FrameCheckingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final URI upstream;
    private final List<String> faults = new CopyOnWriteArrayList<>();
    private final List<Socket> open = new CopyOnWriteArrayList<>();

    FrameCheckingProxy(URI upstream) throws IOException {
        this.upstream = upstream;
        this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("frame-proxy-accept").start(this::accept);
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort() + upstream.getRawPath());
    }

    /** Framing faults seen in what runners sent, first per connection. */
    List<String> faults() {
        return List.copyOf(faults);
    }

    @Override
    public void close() {
        closeQuietly(listener);
        open.forEach(FrameCheckingProxy::closeQuietly);
    }

    private void accept() {
        while (!listener.isClosed()) {
            Socket client;
            try {
                client = listener.accept();
            } catch (IOException e) {
                return; // closed
            }
            try {
                Socket server = new Socket(InetAddress.getLoopbackAddress(), upstream.getPort());
                open.add(client);
                open.add(server);
                Thread.ofVirtual().start(() -> checkAndRelay(client, server));
                Thread.ofVirtual().start(() -> relay(server, client));
            } catch (IOException serverDown) {
                closeQuietly(client); // as a refused connection looks to the runner; the proxy stays up
            }
        }
    }

    private void relay(Socket from, Socket to) {
        try (InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream()) {
            in.transferTo(out);
        } catch (IOException closed) {
            // one side went away
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    /** Relays the upgrade request as is, then frame by frame, checking each header. */
    private void checkAndRelay(Socket client, Socket server) {
        try (InputStream raw = client.getInputStream();
                OutputStream out = server.getOutputStream()) {
            InputStream in = new BufferedInputStream(raw, 1 << 16);
            int matched = 0; // of "\r\n\r\n"
            while (matched < 4) {
                int b = in.read();
                if (b < 0) return;
                out.write(b);
                matched = (b == (matched % 2 == 0 ? '\r' : '\n')) ? matched + 1 : (b == '\r' ? 1 : 0);
            }
            out.flush();
            boolean inMessage = false;
            long offset = 0;
            byte[] buffer = new byte[1 << 16];
            while (true) {
                int b0 = in.read();
                if (b0 < 0) return;
                int b1 = read(in);
                out.write(b0);
                out.write(b1);
                boolean fin = (b0 & 0x80) != 0;
                int rsv = b0 & 0x70;
                int opcode = b0 & 0x0f;
                boolean masked = (b1 & 0x80) != 0;
                long length = b1 & 0x7f;
                int extra = length == 126 ? 2 : length == 127 ? 8 : 0;
                if (extra > 0) length = 0;
                for (int i = 0; i < extra; i++) {
                    int b = read(in);
                    out.write(b);
                    length = (length << 8) | b;
                }
                String fault = null;
                boolean control = opcode >= 8;
                if (rsv != 0) fault = "reserved bits set";
                else if (!masked) fault = "unmasked frame";
                else if (opcode > 2 && opcode < 8 || opcode > 10) fault = "unknown opcode " + opcode;
                else if (control && (!fin || length > 125)) fault = "fragmented or long control frame";
                else if (opcode == 0 && !inMessage) fault = "continuation without a message";
                else if ((opcode == 1 || opcode == 2) && inMessage) fault = "new message inside a fragmented one";
                if (fault != null) {
                    faults.add(fault + " at byte " + offset + " of the connection's frames");
                    in.transferTo(out); // relay the rest untouched: the server must see what the runner sent
                    return;
                }
                if (!control) inMessage = !fin;
                long rest = length + (masked ? 4 : 0);
                while (rest > 0) {
                    int n = in.read(buffer, 0, (int) Math.min(buffer.length, rest));
                    if (n < 0) return;
                    out.write(buffer, 0, n);
                    rest -= n;
                }
                offset += 2 + extra + (masked ? 4 : 0) + length;
            }
        } catch (IOException closed) {
            // one side went away
        } finally {
            closeQuietly(client);
            closeQuietly(server);
        }
    }

    private static int read(InputStream in) throws IOException {
        int b = in.read();
        if (b < 0) throw new IOException("end of stream inside a frame header");
        return b;
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}

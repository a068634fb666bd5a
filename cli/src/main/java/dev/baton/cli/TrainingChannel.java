package dev.baton.cli;

import dev.baton.protocol.message.RunnerMessage;
import dev.baton.protocol.message.ServerMessage;
import dev.baton.protocol.message.Wire;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * The server's side of one runner channel for {@link AgentTraining}, on a loopback port, in plain
 * sockets (the agent's class path has no HTTP server): it accepts one WebSocket upgrade, says
 * {@code welcome} with a read timeout of 3 s (so the agent heartbeats every second rather than
 * every 10 s), answers {@code ready} with {@code no_job} and everything else with {@code ack},
 * and counts the heartbeats. Only what the agent sends on a connection it does not close: small
 * text frames, masked, perhaps fragmented.
 */
final class TrainingChannel implements AutoCloseable {
    private static final String GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

    private final ServerSocket listener;
    private final CountDownLatch heartbeats;
    private final Thread thread;

    private TrainingChannel(int heartbeats) throws IOException {
        this.listener = new ServerSocket();
        listener.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        this.heartbeats = new CountDownLatch(heartbeats);
        this.thread = Thread.ofPlatform().daemon().name("training-channel").start(this::serve);
    }

    /** A channel that is done once it has seen {@code heartbeats} heartbeats. */
    static TrainingChannel start(int heartbeats) throws IOException {
        return new TrainingChannel(heartbeats);
    }

    URI url() {
        return URI.create("http://127.0.0.1:" + listener.getLocalPort());
    }

    /** Whether the heartbeats came within {@code timeout}. */
    boolean awaitHeartbeats(Duration timeout) throws InterruptedException {
        return heartbeats.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    private void serve() {
        try (Socket socket = listener.accept()) {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            OutputStream out = socket.getOutputStream();
            String key = null;
            for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
                int colon = line.indexOf(':');
                if (colon > 0
                        && line.substring(0, colon)
                                .trim()
                                .toLowerCase(Locale.ROOT)
                                .equals("sec-websocket-key"))
                    key = line.substring(colon + 1).trim();
            }
            if (key == null) return;
            out.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                            + "Sec-WebSocket-Accept: " + accept(key) + "\r\n\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            send(out, new ServerMessage.Welcome("training", "training", List.of("training"), 1L << 20, 3L));
            ByteArrayOutputStream message = new ByteArrayOutputStream();
            while (true) {
                int b0 = in.readUnsignedByte();
                int b1 = in.readUnsignedByte();
                long length = b1 & 0x7f;
                if (length == 126) length = in.readUnsignedShort();
                else if (length == 127) length = in.readLong();
                byte[] mask = new byte[4];
                if ((b1 & 0x80) != 0) in.readFully(mask);
                byte[] payload = new byte[Math.toIntExact(length)];
                in.readFully(payload);
                for (int i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
                int opcode = b0 & 0x0f;
                if (opcode == 8) return; // close
                if (opcode == 9) frame(out, 0xA, payload); // ping: pong
                if (opcode != 0 && opcode != 1) continue;
                message.write(payload);
                if ((b0 & 0x80) == 0) continue; // more fragments follow
                RunnerMessage m = Wire.decodeRunnerMessage(message.toString(StandardCharsets.UTF_8));
                message.reset();
                switch (m) {
                    case RunnerMessage.Ready r -> send(out, new ServerMessage.NoJob());
                    case RunnerMessage.Heartbeat h -> {
                        send(out, new ServerMessage.Ack(h.job()));
                        heartbeats.countDown();
                    }
                    case RunnerMessage.JobScoped s -> send(out, new ServerMessage.Ack(s.job()));
                    default -> send(out, new ServerMessage.Ack(null));
                }
            }
        } catch (IOException | RuntimeException e) {
            // The agent went away (the training ends it) or sent what this channel does not speak:
            // the training then fails by its timeout.
        }
    }

    private static String accept(String key) {
        try {
            byte[] sha1 = MessageDigest.getInstance("SHA-1").digest((key + GUID).getBytes(StandardCharsets.US_ASCII));
            return Base64.getEncoder().encodeToString(sha1);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void send(OutputStream out, ServerMessage message) throws IOException {
        frame(out, 1, Wire.encode(message).getBytes(StandardCharsets.UTF_8));
    }

    /** One unmasked, final frame (a server's frames are never masked). */
    private static synchronized void frame(OutputStream out, int opcode, byte[] payload) throws IOException {
        ByteArrayOutputStream frame = new ByteArrayOutputStream(payload.length + 10);
        frame.write(0x80 | opcode);
        if (payload.length < 126) frame.write(payload.length);
        else if (payload.length <= 0xffff) {
            frame.write(126);
            frame.write(payload.length >>> 8);
            frame.write(payload.length & 0xff);
        } else {
            frame.write(127);
            for (int shift = 56; shift >= 0; shift -= 8) frame.write((int) ((long) payload.length >>> shift) & 0xff);
        }
        frame.write(payload);
        out.write(frame.toByteArray());
        out.flush();
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c != '\n'; c = in.read()) {
            if (c < 0) throw new IOException("the connection closed in the request's head");
            if (c != '\r') line.append((char) c);
        }
        return line.toString();
    }

    @Override
    public void close() throws IOException {
        listener.close();
        thread.interrupt();
    }
}

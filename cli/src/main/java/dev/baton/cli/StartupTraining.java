package dev.baton.cli;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The training run of the launcher's class-data-sharing archive: the launcher runs this once per
 * jar and JVM with {@code -XX:ArchiveClassesAtExit}, so the archive holds what short commands load
 * (picocli's model of every command, the HTTP client, Jackson, the output) rather than whatever
 * the first command of a user happened to load. It runs typical client commands in this process
 * against a stub API on a loopback port and prints nothing.
 */
public final class StartupTraining {
    private static final byte[] LIST =
            "{\"jobs\":[],\"runners\":[],\"limit\":50,\"offset\":0}".getBytes(StandardCharsets.UTF_8);

    private StartupTraining() {}

    public static void main(String[] args) throws IOException {
        HttpServer stub = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        stub.createContext("/", exchange -> {
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(200, LIST.length);
            try (OutputStream body = exchange.getResponseBody()) {
                body.write(LIST);
            }
        });
        stub.start();
        try {
            String server = "http://127.0.0.1:" + stub.getAddress().getPort();
            List<List<String>> calls = List.of(
                    List.of("--version"),
                    List.of("--help"),
                    List.of("jobs", "list", "--project", "training"),
                    List.of("jobs", "get", "--project", "training", "00000000-0000-0000-0000-000000000000"),
                    List.of("runners", "list"),
                    List.of("specs", "list"),
                    List.of("projects", "list"),
                    List.of("jobs", "list"));
            for (List<String> call : calls) {
                String[] args1 = call.toArray(String[]::new);
                var cli = Baton.commandLine(args1);
                PrintWriter nowhere = new PrintWriter(Writer.nullWriter());
                cli.setOut(nowhere);
                cli.setErr(nowhere);
                boolean client = !call.getFirst().startsWith("-");
                String[] withServer = client ? concat(args1, "--server", server, "--token", "training") : args1;
                cli.execute(withServer);
            }
        } finally {
            stub.stop(0);
        }
    }

    private static String[] concat(String[] head, String... tail) {
        String[] all = new String[head.length + tail.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(tail, 0, all, head.length, tail.length);
        return all;
    }
}

package dev.baton.bench;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.protocol.message.Wire;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The lifecycle phase's harness in a JVM of its own ({@link CoreScaling}), started on its own CPU
 * with taskset: the simulated runners and the HTTP submitters of {@link LifecycleThroughput},
 * the same code, with the server in the parent process. Commands on stdin, one line each;
 * answers on stdout:
 * <ul>
 *   <li>{@code PREPARE <plan file>}: connects the plan's runners (JSON: base_url, token, spec,
 *       slots, jobs, runners as [slug, key]) and sends their {@code ready}; answers {@code READY}.
 *   <li>{@code GO}: submits the plan's jobs; answers {@code SUBMITTED <seconds>} when every
 *       {@code POST /v0/run} has returned. The parent's clock starts when it sends {@code GO}
 *       and stops at the last job processed, which only the server sees.
 *   <li>{@code FINISH}: closes the runners; answers {@code RESULT <json>} (jobs the runners
 *       completed, protocol problems, this process's CPU from GO to FINISH).
 *   <li>{@code EXIT}, or the end of stdin: exits.
 * </ul>
 */
public final class PinnedHarness {
    private PinnedHarness() {}

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        HttpClient http = BenchServer.newHttpClient();
        try (Runners client = new Runners(2)) {
            Round round = null;
            String line;
            while ((line = in.readLine()) != null && !line.equals("EXIT")) {
                String[] f = line.split(" ", 2);
                switch (f[0]) {
                    case "PREPARE" -> {
                        round = Round.prepare(client, http, Wire.mapper().readTree(Files.readString(Path.of(f[1]))));
                        say("READY");
                    }
                    case "GO" -> say("SUBMITTED " + round.submitAll());
                    case "FINISH" -> {
                        say("RESULT " + Wire.encode(round.finish()));
                        round = null;
                    }
                    default -> throw new IllegalArgumentException("unknown command: " + line);
                }
            }
        }
        System.exit(0);
    }

    private static void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /** One measured run: its runners, connected and waiting, and its jobs to submit. */
    private static final class Round {
        private final HttpClient http;
        private final String baseUrl;
        private final String token;
        private final String spec;
        private final int jobs;
        private final int submitters;
        private final List<SimRunner> runners;
        private long cpuAtGo;
        private long wallAtGo;

        private Round(HttpClient http, JsonNode plan, List<SimRunner> runners) {
            this.http = http;
            this.baseUrl = plan.get("base_url").asText();
            this.token = plan.get("token").asText();
            this.spec = plan.get("spec").asText();
            this.jobs = plan.get("jobs").asInt();
            this.submitters = LifecycleThroughput.submitters(
                    runners.size(), plan.get("slots").asInt());
            this.runners = runners;
        }

        static Round prepare(Runners client, HttpClient http, JsonNode plan) throws Exception {
            int slots = plan.get("slots").asInt();
            String ws = plan.get("base_url").asText().replace("http://", "ws://");
            List<SimRunner> runners = new ArrayList<>();
            List<CompletableFuture<SimRunner>> connecting = new ArrayList<>();
            for (JsonNode r : plan.get("runners")) {
                SimRunner runner = new SimRunner(SimRunner.Mode.COMPLETE, slots, null, null);
                runners.add(runner);
                connecting.add(runner.connect(
                        client.client(),
                        URI.create(ws + "/v0/runners/" + r.get(0).asText() + "/channel"),
                        r.get(1).asText()));
            }
            CompletableFuture.allOf(connecting.toArray(CompletableFuture[]::new))
                    .get(60, TimeUnit.SECONDS);
            runners.forEach(SimRunner::ready);
            Thread.sleep(500); // every ready has reached the dispatcher, as in LifecycleThroughput
            return new Round(http, plan, runners);
        }

        /** Submits every job over {@link #submitters} concurrent clients; the seconds it took. */
        double submitAll() throws Exception {
            cpuAtGo = ProcessStats.cpuNanos();
            wallAtGo = System.nanoTime();
            AtomicInteger submitted = new AtomicInteger();
            try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
                List<Future<?>> running = new ArrayList<>();
                for (int s = 0; s < submitters; s++) {
                    running.add(pool.submit(() -> {
                        while (submitted.getAndIncrement() < jobs)
                            BenchServer.post(http, baseUrl, token, "/v0/run", BenchServer.runBody(spec));
                        return null;
                    }));
                }
                for (Future<?> f : running) f.get(10, TimeUnit.MINUTES);
            }
            return LifecycleThroughput.round((System.nanoTime() - wallAtGo) / 1e9);
        }

        Map<String, Object> finish() {
            double wall = (System.nanoTime() - wallAtGo) / 1e9;
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("completed", runners.stream().mapToLong(SimRunner::completed).sum());
            r.put("problems", runners.stream().mapToLong(SimRunner::problems).sum());
            r.put(
                    "last_problem",
                    runners.stream()
                            .map(SimRunner::lastProblem)
                            .filter(p -> p != null)
                            .findFirst()
                            .orElse(null));
            r.put("submitters", submitters);
            r.put("cpu_cores", LifecycleThroughput.round((ProcessStats.cpuNanos() - cpuAtGo) / 1e9 / wall));
            r.put("available_processors", Runtime.getRuntime().availableProcessors());
            runners.forEach(SimRunner::close);
            return r;
        }
    }
}

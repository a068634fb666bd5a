package dev.baton.chaos;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One execution of one iteration of a job, as the job itself wrote it to the execution log
 * (never as Baton reports it).
 *
 * @param chaosId    the suite's id of the job
 * @param iteration  the iteration as reports count it, from 0 (the runner's BATON_ITERATION counts from 1)
 * @param runner     the runner slug (a pool machine's uuid), from the working directory the process executor gave it
 * @param jobUuid    the job UUID, from the same directory
 * @param start      when the command began
 * @param end        when it finished its work, or null when it never did (killed)
 * @param nonce      the random value it printed as its metric
 */
record Execution(String chaosId, int iteration, String runner, String jobUuid, Instant start, Instant end, long nonce) {
    /**
     * The process executor runs iteration i of a job in WORK_DIR/process/JOB/iteration-i (docs/runner.md):
     * a runner agent's WORK_DIR is {@code runners/SLUG/work}, a pool machine's {@code pool/MACHINE}
     * (then {@code runner} is the machine's uuid).
     */
    private static final Pattern DIR = Pattern.compile(
            ".*/(?:runners/([^/]+)/work|pool/([0-9a-f-]{36}))/process/([0-9a-f-]{36})/iteration-(\\d+)");

    static List<Execution> read(Path log) throws IOException {
        Map<String, Execution> byKey = new LinkedHashMap<>();
        List<String> malformed = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            String[] f = line.split(" ");
            if (f.length != 6 || !(f[0].equals("start") || f[0].equals("end"))) {
                malformed.add(line);
                continue;
            }
            Matcher m = DIR.matcher(f[3]);
            if (!m.matches()) {
                malformed.add(line);
                continue;
            }
            String key = f[1] + " " + f[2] + " " + f[3] + " " + f[5];
            Instant t = nanos(Long.parseLong(f[4]));
            if (f[0].equals("start")) {
                byKey.put(
                        key,
                        new Execution(
                                f[1],
                                Integer.parseInt(f[2]) - 1,
                                m.group(1) != null ? m.group(1) : m.group(2),
                                m.group(3),
                                t,
                                null,
                                Long.parseLong(f[5])));
            } else {
                Execution e = byKey.get(key);
                if (e == null) malformed.add(line);
                else byKey.put(key, new Execution(e.chaosId, e.iteration, e.runner, e.jobUuid, e.start, t, e.nonce));
            }
        }
        if (!malformed.isEmpty()) throw new IOException("malformed lines in " + log + ": " + malformed);
        return List.copyOf(byKey.values());
    }

    private static Instant nanos(long epochNanos) {
        return Instant.ofEpochSecond(0, epochNanos);
    }
}

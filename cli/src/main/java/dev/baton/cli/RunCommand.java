package dev.baton.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code baton run}: submit a run. With --image and --spec a runner executes the image (the
 * words after {@code --} become its cmd); with --results the given BMF files are stored at once.
 */
@Command(name = "run", mixinStandardHelpOptions = true, description = "Submit a run (runner mode: --image and --spec; direct mode: --results).")
final class RunCommand extends ClientCommand {
    @Option(names = "--project", required = true, description = "project UUID or slug") String project;
    @Option(names = "--image", description = "image digest sha256:…") String image;
    @Option(names = "--spec", description = "spec UUID or slug") String specRef;
    @Option(names = "--timeout", description = "seconds (default 3600)") Integer timeout;
    @Option(names = "--iterations", description = "1-100 (default 1)") Integer iterations;
    @Option(names = "--entrypoint", description = "entrypoint override; repeat for each word") List<String> entrypoint;
    @Option(names = "--env", description = "NAME=VALUE; repeatable") Map<String, String> env;
    @Option(names = "--file-path", description = "file to collect after the run; repeatable") List<String> filePaths;
    @Option(names = "--branch") String branch;
    @Option(names = "--testbed") String testbed;
    @Option(names = "--adapter") String adapter;
    @Option(names = "--results", description = "BMF JSON file (direct mode); repeatable") List<Path> results;
    @Option(names = "--start-time", description = "ISO-8601 (direct mode)") String startTime;
    @Option(names = "--end-time", description = "ISO-8601 (direct mode)") String endTime;
    @Parameters(paramLabel = "CMD", description = "command for the image (after --)") List<String> cmd;

    @Override
    JsonNode call(ApiClient api) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("project", project);
        put(body, "image", image);
        put(body, "spec", specRef);
        put(body, "timeout", timeout);
        put(body, "iterations", iterations);
        put(body, "entrypoint", entrypoint);
        put(body, "cmd", cmd);
        put(body, "env", env == null ? null : new HashMap<>(env));
        put(body, "file_paths", filePaths);
        put(body, "branch", branch);
        put(body, "testbed", testbed);
        put(body, "adapter", adapter);
        put(body, "start_time", startTime);
        put(body, "end_time", endTime);
        if (results != null) {
            List<String> docs = new ArrayList<>();
            for (Path p : results) {
                try {
                    docs.add(Files.readString(p));
                } catch (IOException e) {
                    throw new ClientException("cannot read " + p + ": " + e.getMessage());
                }
            }
            body.put("results", docs);
        }
        return api.post("/v0/run", body);
    }

    private static void put(Map<String, Object> body, String key, Object value) {
        if (value != null) body.put(key, value);
    }
}

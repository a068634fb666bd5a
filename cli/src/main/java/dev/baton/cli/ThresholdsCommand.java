package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.LinkedHashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "thresholds",
        mixinStandardHelpOptions = true,
        description = "Which metrics of a project are judged against their history, and how (docs/alerts.md).",
        subcommands = {
            ThresholdsCommand.Create.class,
            ThresholdsCommand.ListThresholds.class,
            ThresholdsCommand.Get.class,
            ThresholdsCommand.Update.class,
            ThresholdsCommand.Delete.class
        })
final class ThresholdsCommand {
    /** The threshold's rule as options: the body of a create or a replace. */
    static final class Rule {
        @Option(names = "--branch", description = "only this branch (default: every branch)")
        String branch;

        @Option(names = "--testbed", required = true)
        String testbed;

        @Option(names = "--spec", description = "only runs on this spec (default: any)")
        String specRef;

        @Option(names = "--measure", required = true, description = "e.g. latency, throughput")
        String measure;

        @Option(names = "--benchmark", description = "only this benchmark (default: every benchmark of the measure)")
        String benchmark;

        @Option(
                names = "--model",
                required = true,
                description =
                        "static, percentage, z_score, t_test, log_normal, iqr, delta_iqr, bencher_iqr, bencher_delta_iqr, bencher_log_normal or change_point")
        String model;

        @Option(
                names = "--lower-boundary",
                description = "confidence in (0.5, 1), factor, fraction or fixed limit, by model")
        Double lower;

        @Option(
                names = "--upper-boundary",
                description = "as --lower-boundary (default when neither is given: the model's upper default)")
        Double upper;

        @Option(names = "--max-samples", description = "window: at most this many earlier results (default 64)")
        Integer maxSamples;

        @Option(names = "--max-days", description = "window: at most this many days of history")
        Integer maxDays;

        @Option(names = "--min-samples", description = "below this many earlier results the threshold only records")
        Integer minSamples;

        Map<String, Object> body() {
            Map<String, Object> b = new LinkedHashMap<>();
            put(b, "branch", branch);
            put(b, "testbed", testbed);
            put(b, "spec", specRef);
            put(b, "measure", measure);
            put(b, "benchmark", benchmark);
            put(b, "model", model);
            put(b, "lower_boundary", lower);
            put(b, "upper_boundary", upper);
            put(b, "max_samples", maxSamples);
            put(b, "max_days", maxDays);
            put(b, "min_samples", minSamples);
            return b;
        }

        private static void put(Map<String, Object> b, String key, Object value) {
            if (value != null) b.put(key, value);
        }
    }

    static String path(String project) {
        return "/v0/projects/" + seg(project) + "/thresholds";
    }

    @Command(name = "create", description = "Create a threshold (maintainer and up).")
    static final class Create extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Mixin
        Rule rule;

        @Override
        JsonNode call(ApiClient api) {
            return api.post(path(project), rule.body());
        }
    }

    @Command(name = "list", description = "List a project's thresholds.")
    static final class ListThresholds extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Override
        JsonNode call(ApiClient api) {
            return api.get(path(project));
        }

        @Override
        void human(JsonNode answer, PrintWriter out) {
            Table t = new Table(
                    "THRESHOLD",
                    "BRANCH",
                    "TESTBED",
                    "MEASURE",
                    "BENCHMARK",
                    "MODEL",
                    "LOWER",
                    "UPPER",
                    "WINDOW",
                    "MIN");
            for (JsonNode th : answer.path("thresholds")) {
                String window = (th.hasNonNull("max_samples")
                                ? th.get("max_samples").asText() + " samples"
                                : "")
                        + (th.hasNonNull("max_samples") && th.hasNonNull("max_days") ? ", " : "")
                        + (th.hasNonNull("max_days") ? th.get("max_days").asText() + " days" : "");
                t.row(
                        th.path("uuid").asText(),
                        th.hasNonNull("branch") ? th.get("branch").asText() : "(every)",
                        th.path("testbed").asText(),
                        th.path("measure").asText(),
                        th.hasNonNull("benchmark") ? th.get("benchmark").asText() : "(every)",
                        th.path("model").asText(),
                        Metrics.number(th.get("lower_boundary")),
                        Metrics.number(th.get("upper_boundary")),
                        window,
                        th.path("min_samples").asText());
            }
            if (t.isEmpty()) out.println("(no thresholds)");
            else t.print(out);
        }
    }

    @Command(name = "get", description = "Show a threshold.")
    static final class Get extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "THRESHOLD", description = "threshold UUID")
        String threshold;

        @Override
        JsonNode call(ApiClient api) {
            return api.get(path(project) + "/" + seg(threshold));
        }
    }

    @Command(
            name = "update",
            description =
                    "Replace a threshold's rule (maintainer and up); metrics judged before keep their boundaries.")
    static final class Update extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "THRESHOLD", description = "threshold UUID")
        String threshold;

        @Mixin
        Rule rule;

        @Override
        JsonNode call(ApiClient api) {
            return api.put(path(project) + "/" + seg(threshold), rule.body());
        }
    }

    @Command(name = "delete", description = "Delete a threshold (maintainer and up); its boundaries and alerts stay.")
    static final class Delete extends ClientCommand {
        @Option(names = "--project", required = true)
        String project;

        @Parameters(paramLabel = "THRESHOLD", description = "threshold UUID")
        String threshold;

        @Override
        JsonNode call(ApiClient api) {
            api.delete(path(project) + "/" + seg(threshold));
            note("Deleted threshold " + threshold + ".");
            return null;
        }
    }
}

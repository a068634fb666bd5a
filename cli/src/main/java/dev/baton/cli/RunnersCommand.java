package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(
        name = "runners",
        mixinStandardHelpOptions = true,
        description = "Manage runners (machines that execute jobs).",
        subcommands = {
            RunnersCommand.Create.class, RunnersCommand.ListRunners.class, RunnersCommand.Get.class,
                    RunnersCommand.RotateKey.class,
            RunnersCommand.Archive.class, RunnersCommand.Restore.class, RunnersCommand.Specs.class,
                    RunnersCommand.AddSpec.class,
            RunnersCommand.RemoveSpec.class, RunnersCommand.Release.class, RunnersCommand.Canary.class,
                    RunnersCommand.Label.class,
            RunnersUpdateCommand.class, RunnersRollsCommand.class, RunnersNatsUser.class, RunnersDrain.class,
            RunnersResume.class, RunnersCapabilities.class, RunnersNoise.class
        })
final class RunnersCommand {
    @Command(
            name = "create",
            description = {
                "Register a runner; prints its key once,",
                "or with --key-file writes it to a new file (mode 0600) and prints where."
            })
    static final class Create extends ClientCommand {
        @Option(names = "--name", required = true)
        String name;

        @Option(names = "--slug")
        String slug;

        @Option(names = "--spec", description = "spec (UUID or slug) this runner serves; repeatable")
        List<String> specs;

        @Option(
                names = "--ephemeral",
                description = "a single-job runner: one job, then its key is refused (docs/runner.md)")
        boolean ephemeral;

        @Option(
                names = "--job",
                paramLabel = "UUID",
                description =
                        "with --ephemeral: the pending job it is bound to (it takes only this job, no other runner takes it)")
        String job;

        @Option(
                names = "--key-file",
                paramLabel = "FILE",
                description =
                        "write the key to FILE, created with mode 0600 (never overwritten), instead of printing it")
        Path keyFile;

        @Override
        JsonNode call(ApiClient api) {
            // The file is created (exclusively) before the runner: a key the server shows only once
            // must not be lost to a file that already exists or cannot be written.
            if (keyFile != null) SecretFile.create(keyFile, "--key-file", spec.commandLine());
            JsonNode created;
            try {
                created = create(api);
            } catch (RuntimeException e) {
                if (keyFile != null) SecretFile.deleteQuietly(keyFile);
                throw e;
            }
            if (keyFile == null) {
                note("Save the key now: it is shown only once (rotate it with 'baton runners rotate-key').");
                return created;
            }
            SecretFile.write(
                    keyFile,
                    created.path("key").asText(),
                    "rotate it with 'baton runners rotate-key "
                            + created.path("runner").path("slug").asText() + "'");
            ObjectNode shown = ((ObjectNode) created).deepCopy();
            shown.remove("key");
            shown.put("key_file", keyFile.toAbsolutePath().toString());
            return shown;
        }

        private JsonNode create(ApiClient api) {
            Map<String, Object> body = new HashMap<>();
            body.put("name", name);
            if (slug != null) body.put("slug", slug);
            if (ephemeral) body.put("ephemeral", true);
            if (job != null) body.put("job", job);
            JsonNode created;
            try {
                created = api.post("/v0/runners", body);
            } catch (ClientException e) {
                if (e.status() != 409 || "job_not_pending".equals(e.code())) throw e;
                // The name or slug belongs to a runner already: say which and what to do instead.
                throw new ClientException(
                        e.status(),
                        e.code(),
                        e.getMessage() + "; choose another --name" + (slug == null ? "" : " or --slug")
                                + ", or see the existing runner with 'baton runners list --search " + name + "'");
            }
            String runner = created.path("runner").path("uuid").asText();
            if (specs != null)
                for (String s : specs) api.post("/v0/runners/" + seg(runner) + "/specs", Map.of("spec", s));
            return created;
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            out.println("Runner " + answer.path("runner").path("slug").asText() + " ("
                    + answer.path("runner").path("uuid").asText() + ") created.");
            if (answer.has("key_file"))
                out.println("key written to " + answer.path("key_file").asText() + " (mode 0600)");
            else out.println("key: " + answer.path("key").asText());
        }
    }

    @Command(name = "list", description = "List runners.")
    static final class ListRunners extends ClientCommand {
        @Option(names = "--name", description = "exact name")
        String name;

        @Option(names = "--search", description = "substring of name or slug")
        String search;

        @Option(names = "--archived", description = "include archived runners")
        boolean archived;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> q = new LinkedHashMap<>();
            q.put("name", name);
            q.put("search", search);
            q.put("archived", archived ? "true" : null);
            return api.get("/v0/runners" + ApiClient.query(q));
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            // The machine each runner last connected as, a column each (issue 41); --json has it all.
            Table table = new Table(
                    "SLUG",
                    "NAME",
                    "UUID",
                    "VERSION",
                    "BEHIND",
                    "OS",
                    "ARCH",
                    "HOST",
                    "PID",
                    "AGENT_STARTED",
                    "ADDRESS",
                    "LAST_HEARTBEAT",
                    "ARCHIVED",
                    "LABELS",
                    "NOISE",
                    "QUARANTINED",
                    "QUARANTINE_REASON");
            for (JsonNode r : answer) {
                JsonNode m = r.path("machine");
                table.row(
                        Output.text(r.get("slug")),
                        Output.text(r.get("name")),
                        Output.text(r.get("uuid")),
                        Output.text(r.get("version")),
                        Output.text(r.get("behind")),
                        Output.text(m.get("os")),
                        Output.text(m.get("arch")),
                        Output.text(m.get("host")),
                        Output.text(m.get("pid")),
                        Output.text(m.get("agent_started")),
                        Output.text(m.get("address")),
                        Output.text(r.get("last_heartbeat")),
                        Output.text(r.get("archived")),
                        Output.text(r.get("labels")),
                        noise(r.path("noise")),
                        Output.text(r.get("quarantined")),
                        Output.text(r.get("quarantine_reason")));
            }
            if (table.isEmpty()) out.println("(none)");
            else table.print(out);
        }
    }

    /**
     * A runner's noise in one cell (decision 0052): the largest coefficient of variation of its
     * latest calibration, as a percentage, {@code noisy} when it rose past its history, and when it
     * was measured (to the minute; {@code runners get} and {@code runners noise} show each figure).
     */
    static String noise(JsonNode n) {
        if (n.isMissingNode() || n.isNull()) return "-";
        String cv = String.format(
                java.util.Locale.ROOT, "%.2f%%", 100 * n.path("cv").asDouble());
        if (n.path("noisy").asBoolean()) cv += " noisy";
        String measured = n.path("measured").asText("");
        // 2026-11-29T15:02:11.402Z -> 2026-11-29T15:02Z
        if (measured.length() >= 16) cv += " at " + measured.substring(0, 16) + "Z";
        return cv;
    }

    @Command(name = "get", description = "Show one runner.")
    static final class Get extends ClientCommand {
        @Parameters(paramLabel = "RUNNER", description = "UUID or slug")
        String runner;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/runners/" + seg(runner));
        }
    }

    @Command(name = "rotate-key", description = "Issue a new key; the old one stops working at once.")
    static final class RotateKey extends ClientCommand {
        @Parameters(paramLabel = "RUNNER")
        String runner;

        @Override
        JsonNode call(ApiClient api) {
            JsonNode rotated = api.post("/v0/runners/" + seg(runner) + "/token", null);
            note("Save the key now: it is shown only once.");
            return rotated;
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            out.println("key: " + answer.path("key").asText());
        }
    }

    @Command(
            name = "release",
            description = {
                "Lift a runner's quarantine for infrastructure failures:",
                "it takes jobs again, and only later failures count (docs/scheduling.md)."
            })
    static final class Release extends ClientCommand {
        @Parameters(paramLabel = "RUNNER")
        String runner;

        @Override
        JsonNode call(ApiClient api) {
            return api.post("/v0/runners/" + seg(runner) + "/release", null);
        }
    }

    @Command(
            name = "canary",
            description = {
                "Submit a canary job for a quarantined runner: only it takes the job, and when the",
                "job passes (every iteration exits 0) the quarantine lifts; when it fails, it stays (docs/scheduling.md).",
                "The job is a run like `baton run`: an image of the project, or a command after --."
            })
    static final class Canary extends ClientCommand {
        @Parameters(index = "0", paramLabel = "RUNNER")
        String runner;

        @Option(
                names = "--project",
                required = true,
                description = "the project the canary runs in (its image registry)")
        String project;

        @Option(names = "--spec", required = true, description = "one of the runner's specs")
        String spec;

        @Option(names = "--image", description = "an image of the project (digest or tag)")
        String image;

        @Parameters(index = "1..*", paramLabel = "CMD", arity = "0..*", description = "the command (after --)")
        List<String> cmd;

        @Override
        JsonNode call(ApiClient api) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("project", project);
            body.put("spec", spec);
            if (image != null) body.put("image", image);
            if (cmd != null && !cmd.isEmpty()) body.put("cmd", cmd);
            return api.post("/v0/runners/" + seg(runner) + "/canary", body);
        }
    }

    @Command(
            name = "label",
            description = {
                "Set the labels the admin gives a runner (replacing the previous ones);",
                "labels the runner reports stay, but one of the same key is hidden (docs/scheduling.md)."
            })
    static final class Label extends ClientCommand {
        @Parameters(index = "0", paramLabel = "RUNNER")
        String runner;

        @Parameters(index = "1..*", paramLabel = "KEY=VALUE", arity = "0..*")
        List<String> labels;

        @Option(names = "--clear", description = "remove every label the admin set")
        boolean clear;

        @Override
        JsonNode call(ApiClient api) {
            if (!clear && (labels == null || labels.isEmpty()))
                throw new ClientException("give KEY=VALUE labels, or --clear to remove them");
            if (clear && labels != null && !labels.isEmpty()) throw new ClientException("--clear takes no labels");
            Map<String, String> set = new LinkedHashMap<>();
            for (String l : labels == null ? List.<String>of() : labels) {
                try {
                    var e = dev.baton.protocol.value.Labels.parse(l);
                    set.put(e.getKey(), e.getValue());
                } catch (IllegalArgumentException e) {
                    throw new ClientException(e.getMessage());
                }
            }
            return api.patch("/v0/runners/" + seg(runner), Map.of("labels", set));
        }
    }

    @Command(name = "archive", description = "Archive a runner (its key stops working).")
    static final class Archive extends ClientCommand {
        @Parameters(paramLabel = "RUNNER")
        String runner;

        @Override
        JsonNode call(ApiClient api) {
            return api.patch("/v0/runners/" + seg(runner), Map.of("archived", true));
        }
    }

    @Command(name = "restore", description = "Restore an archived runner.")
    static final class Restore extends ClientCommand {
        @Parameters(paramLabel = "RUNNER")
        String runner;

        @Override
        JsonNode call(ApiClient api) {
            return api.patch("/v0/runners/" + seg(runner), Map.of("archived", false));
        }
    }

    @Command(name = "specs", description = "List the specs a runner serves.")
    static final class Specs extends ClientCommand {
        @Parameters(paramLabel = "RUNNER")
        String runner;

        @Override
        JsonNode call(ApiClient api) {
            return api.get("/v0/runners/" + seg(runner) + "/specs");
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            SpecsCommand.table(answer, out);
        }
    }

    @Command(name = "add-spec", description = "Let a runner serve a spec.")
    static final class AddSpec extends ClientCommand {
        @Parameters(index = "0", paramLabel = "RUNNER")
        String runner;

        @Parameters(index = "1", paramLabel = "SPEC")
        String spec;

        @Override
        JsonNode call(ApiClient api) {
            return api.post("/v0/runners/" + seg(runner) + "/specs", Map.of("spec", spec));
        }
    }

    @Command(name = "remove-spec", description = "Stop a runner serving a spec.")
    static final class RemoveSpec extends ClientCommand {
        @Parameters(index = "0", paramLabel = "RUNNER")
        String runner;

        @Parameters(index = "1", paramLabel = "SPEC")
        String spec;

        @Override
        JsonNode call(ApiClient api) {
            api.delete("/v0/runners/" + seg(runner) + "/specs/" + seg(this.spec));
            return api.get("/v0/runners/" + seg(runner) + "/specs");
        }

        @Override
        void human(JsonNode answer, java.io.PrintWriter out) {
            SpecsCommand.table(answer, out);
        }
    }
}

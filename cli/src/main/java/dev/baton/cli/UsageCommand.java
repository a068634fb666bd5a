package dev.baton.cli;

import static dev.baton.cli.ApiClient.seg;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.baton.protocol.message.Wire;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code baton usage}: minutes of run time billed per organization and project in a period
 * (issue 41), read from {@code GET /v0/organizations/{o}/usage}; the server decides the default
 * period (this calendar month on its clock), so every client and the console agree.
 */
@Command(
        name = "usage",
        mixinStandardHelpOptions = true,
        description = {
            "Minutes of run time billed per organization and project in a period",
            "(this calendar month, UTC, by default); of every organization whose usage you may read unless --org names some."
        })
final class UsageCommand extends ClientCommand {
    @Option(names = "--org", paramLabel = "ORG", description = "an organization (UUID or slug); repeatable")
    List<String> orgs;

    @Option(
            names = "--from",
            paramLabel = "DATE",
            description = "start, inclusive: 2026-11-01 (midnight UTC) or 2026-11-01T12:00:00Z")
    String from;

    @Option(
            names = "--to",
            paramLabel = "DATE",
            description = "end, exclusive (default: a calendar month after --from)")
    String to;

    @Option(
            names = "--csv",
            description = "print organization,project,from,to,minutes rows (one per project with minutes)")
    boolean csv;

    @Override
    JsonNode call(ApiClient api) {
        if (csv && json) throw new ClientException("choose --csv or --json, not both");
        Map<String, Object> q = new LinkedHashMap<>();
        q.put("from", from);
        q.put("to", to);
        String query = ApiClient.query(q);
        ArrayNode all = Wire.mapper().createArrayNode();
        boolean named = orgs != null && !orgs.isEmpty();
        for (String org : named ? orgs : everyOrganization(api)) {
            try {
                all.add(api.get("/v0/organizations/" + seg(org) + "/usage" + query));
            } catch (ClientException e) {
                // Listing shows organizations whose usage only their owners may read: say so and go on.
                if (named || !("forbidden".equals(e.code()) || "organization_not_found".equals(e.code()))) throw e;
                note("skipped " + org + ": " + e.getMessage());
            }
        }
        return all;
    }

    private static List<String> everyOrganization(ApiClient api) {
        List<String> slugs = new ArrayList<>();
        for (JsonNode o : api.get("/v0/organizations")) slugs.add(o.path("slug").asText());
        return slugs;
    }

    @Override
    void human(JsonNode answer, PrintWriter out) {
        if (csv) {
            out.println("organization,project,from,to,minutes");
            for (JsonNode org : answer) {
                for (JsonNode p : org.path("projects")) {
                    out.println(String.join(
                            ",",
                            org.path("slug").asText(),
                            p.path("slug").asText(),
                            org.path("from").asText(),
                            org.path("to").asText(),
                            p.path("minutes").asText()));
                }
            }
            return;
        }
        if (answer.isEmpty()) {
            out.println("(no organization)");
            return;
        }
        out.println("From " + answer.get(0).path("from").asText() + " to "
                + answer.get(0).path("to").asText() + " (to excluded):");
        Table t = new Table("ORGANIZATION", "PROJECT", "MINUTES");
        for (JsonNode org : answer) {
            for (JsonNode p : org.path("projects"))
                t.row(
                        org.path("slug").asText(),
                        p.path("slug").asText(),
                        p.path("minutes").asText());
            t.row(org.path("slug").asText(), "(all)", org.path("minutes").asText());
        }
        t.print(out);
    }
}

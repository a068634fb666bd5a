package dev.baton.dispatch.channel;

import dev.baton.dispatch.RunnerSession;
import dev.baton.protocol.model.RunnerHost;
import dev.baton.store.KnownMachine;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The rows of {@code baton_runner_info}: each runner connected to this node with the machine it reported (issue 41). */
final class RunnerInfo {
    private RunnerInfo() {}

    static List<Map<String, String>> rows(Collection<RunnerSession> sessions) {
        List<Map<String, String>> rows = new ArrayList<>();
        for (RunnerSession s : sessions) {
            KnownMachine m = s.machine();
            RunnerHost h = m == null ? null : m.host();
            Map<String, String> row = new LinkedHashMap<>();
            row.put("runner", s.runner().slug().value());
            if (h != null) {
                if (h.os() != null) row.put("os", h.os());
                if (h.arch() != null) row.put("arch", h.arch());
                if (h.version() != null) row.put("version", h.version());
                if (h.host() != null) row.put("host", h.host());
            }
            rows.add(row);
        }
        return rows;
    }
}

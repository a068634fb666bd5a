package dev.baton.bench;

import static dev.baton.bench.Bench.log;
import static dev.baton.bench.Bench.row;
import static dev.baton.bench.Bench.summary;

import java.util.List;
import java.util.Map;

/** The dispatch rows beside row 1 (issue 46): the transport floor's, and both again once the JIT has compiled them. */
final class DispatchRows {
    private DispatchRows() {}

    /**
     * Rows 1w and 1fw: dispatch latency again after the lifecycle rounds, the server's and the
     * floor's, with their code compiled. Rows 1 and 1f run first, after a tenth of their samples
     * as warm-up: a request path taken 30 times a second is mostly interpreted or C1-compiled then
     * (C2 compiles a method after about 10,000 calls), so the two pairs say how much of the
     * latency is the JIT's warm-up.
     */
    static void warm(
            BenchServer server,
            FloorServer.Sample sample,
            BenchOptions o,
            Map<String, Object> json,
            List<String[]> table)
            throws Exception {
        log("dispatch latency after the lifecycle rounds: " + o.samples() + " samples");
        DispatchLatency.Result warm =
                DispatchLatency.run(server, server, "dispatch-warm", o.samples(), Math.max(3, o.samples() / 10));
        json.put("dispatch_latency_warm", warm);
        table.add(row(
                "1w dispatch latency after the lifecycle rounds (n="
                        + warm.submitToJob().count() + ")",
                summary(warm.submitToJob())));
        DispatchLatency.Result floor = TransportFloor.dispatch(sample, o.samples(), Math.max(3, o.samples() / 10));
        json.put("dispatch_latency_transport_floor_warm", floor);
        table.add(row(
                "1fw the same, transport floor (n=" + floor.submitToJob().count() + ")", summary(floor.submitToJob())));
    }

    /** Row 1f: the transport floor's dispatch latency, beside row 1's (issue 46: what the stack alone takes). */
    static void floor(FloorServer.Sample sample, BenchOptions o, Map<String, Object> json, List<String[]> table)
            throws Exception {
        log("dispatch latency, transport floor: " + o.samples() + " samples");
        DispatchLatency.Result floor = TransportFloor.dispatch(sample, o.samples(), Math.max(3, o.samples() / 10));
        json.put("dispatch_latency_transport_floor", floor);
        table.add(row(
                "1f dispatch latency, transport floor (n=" + floor.submitToJob().count() + ")",
                summary(floor.submitToJob())));
    }
}

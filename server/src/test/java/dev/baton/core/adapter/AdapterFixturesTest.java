package dev.baton.core.adapter;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every adapter on a fixture written here from its tool's documented output format (the fixtures
 * are in src/test/resources/adapters; the documentation each follows is cited on its test), on
 * malformed input, and {@code magic} telling each fixture's tool apart.
 */
class AdapterFixturesTest {
    private final Adapters adapters = new Adapters();

    static String fixture(String name) {
        try (InputStream in = AdapterFixturesTest.class.getResourceAsStream("/adapters/" + name)) {
            if (in == null) throw new IllegalStateException("no fixture " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Metrics parse(String adapter, String fixture) {
        return adapters.find(adapter).orElseThrow().parse(fixture(fixture));
    }

    private static void assertMetric(
            Metrics m, String bench, String measure, double value, Double lower, Double upper) {
        assertThat(m.benchmarks()).as("benchmarks").containsKey(bench);
        assertThat(m.benchmarks().get(bench)).as(bench + " measures").containsKey(measure);
        Metric metric = m.benchmarks().get(bench).get(measure);
        assertThat(metric.value())
                .as(bench + " " + measure + " value")
                .isCloseTo(value, within(Math.abs(value) * 1e-9));
        if (lower == null)
            assertThat(metric.lowerValue()).as(bench + " " + measure + " lower").isNull();
        else
            assertThat(metric.lowerValue())
                    .as(bench + " " + measure + " lower")
                    .isCloseTo(lower, within(Math.abs(lower) * 1e-9));
        if (upper == null)
            assertThat(metric.upperValue()).as(bench + " " + measure + " upper").isNull();
        else
            assertThat(metric.upperValue())
                    .as(bench + " " + measure + " upper")
                    .isCloseTo(upper, within(Math.abs(upper) * 1e-9));
    }

    /** Bencher Metric Format: https://bencher.dev/docs/reference/bencher-metric-format/ */
    @Test
    void jsonReadsBencherMetricFormat() {
        Metrics m = parse("json", "bmf.json");
        assertThat(m.benchmarks()).containsOnlyKeys("sort/quick", "sort/merge");
        assertMetric(m, "sort/quick", "latency", 1520.5, 1500.0, 1541.25);
        assertMetric(m, "sort/quick", "throughput", 657000, null, null);
        assertMetric(m, "sort/merge", "latency", 1811, null, null);
    }

    /**
     * JMH's JSON result format ({@code -rf json}; org.openjdk.jmh.results.format.ResultFormatType.JSON,
     * https://github.com/openjdk/jmh, jmh-core "results/format"): an array of runs with
     * benchmark, mode, params and primaryMetric {score, scoreError, scoreConfidence, scoreUnit}.
     */
    @Test
    void jmhTurnsScoresIntoLatencyAndThroughputInBaseUnits() {
        Metrics m = parse("java_jmh", "jmh.json");
        assertThat(m.benchmarks())
                .containsOnlyKeys(
                        "org.example.QueueBench.offer{size=10,kind=array}",
                        "org.example.QueueBench.poll",
                        "org.example.Startup.coldStart");
        // 1234.5 ops/ms = 1,234,500 ops/s; the confidence interval gives the bounds.
        assertMetric(
                m,
                "org.example.QueueBench.offer{size=10,kind=array}",
                "throughput",
                1_234_500,
                1_222_000.0,
                1_247_000.0);
        assertMetric(m, "org.example.QueueBench.poll", "latency", 2_500, 2_250.0, 2_750.0);
        // One fork, one iteration: JMH writes NaN for the error, so no bounds.
        assertMetric(m, "org.example.Startup.coldStart", "latency", 42e6, null, null);
    }

    /**
     * Go's benchmark data format: https://pkg.go.dev/testing#hdr-Benchmarks and
     * https://go.googlesource.com/proposal/+/master/design/14313-benchmark-format.md ("Benchmark"
     * name, iteration count, then value–unit pairs).
     */
    @Test
    void goBenchReadsResultLinesAndMergesRepeatedOnes() {
        Metrics m = parse("go_bench", "go_bench.txt");
        assertThat(m.benchmarks()).containsOnlyKeys("BenchmarkQuickSort-8", "BenchmarkCopy/size=1024-8");
        assertMetric(m, "BenchmarkQuickSort-8", "latency", 105_000, 104_877.0, 105_123.0);
        assertMetric(m, "BenchmarkQuickSort-8", "allocated-bytes", 8192, 8192.0, 8192.0);
        assertMetric(m, "BenchmarkQuickSort-8", "allocations", 1, 1.0, 1.0);
        assertMetric(m, "BenchmarkCopy/size=1024-8", "latency", 612.5, null, null);
        assertMetric(m, "BenchmarkCopy/size=1024-8", "bandwidth", 1671.84e6, null, null);
    }

    /**
     * Criterion.rs command-line output:
     * https://bheisler.github.io/criterion.rs/book/user_guide/command_line_output.html
     * ("time: [lower estimate upper]", optional "thrpt:" line, long names on their own line).
     */
    @Test
    void criterionReadsTimeAndThroughputLines() {
        Metrics m = parse("rust_criterion", "criterion.txt");
        assertThat(m.benchmarks())
                .containsOnlyKeys("fib 20", "checksum/crc32-of-a-rather-large-input-buffer", "parse/tiny");
        assertMetric(m, "fib 20", "latency", 18_312, 18_201.0, 18_437.0);
        assertMetric(m, "checksum/crc32-of-a-rather-large-input-buffer", "latency", 1.25e6, 1.2e6, 1.3e6);
        double mib = 1024.0 * 1024;
        assertMetric(
                m, "checksum/crc32-of-a-rather-large-input-buffer", "bandwidth", 800 * mib, 750 * mib, 833.33 * mib);
        // Criterion switched units inside one interval (998.12 ns, 1.0012 µs): all in ns.
        assertMetric(m, "parse/tiny", "latency", 1001.2, 998.12, 1004.3);
        assertMetric(m, "parse/tiny", "throughput", 2.497e6, 2.49e6, 2.5047e6);
    }

    /** hyperfine's --export-json: https://github.com/sharkdp/hyperfine#exporting-results (times in seconds). */
    @Test
    void hyperfineGivesTheMeanBoundedByMinAndMax() {
        Metrics m = parse("shell_hyperfine", "hyperfine.json");
        assertThat(m.benchmarks()).containsOnlyKeys("sleep 0.1", "gzip -1 data.bin");
        assertMetric(m, "sleep 0.1", "latency", 0.10231e9, 0.1009e9, 0.1048e9);
        assertMetric(m, "gzip -1 data.bin", "latency", 0.5e9, 0.5e9, 0.5e9);
    }

    /**
     * pytest-benchmark's --benchmark-json: https://pytest-benchmark.readthedocs.io/en/latest/usage.html
     * (benchmarks[] with fullname and stats {min, max, mean, …} in seconds).
     */
    @Test
    void pytestBenchmarkGivesTheMeanBoundedByMinAndMax() {
        Metrics m = parse("python_pytest", "pytest.json");
        assertThat(m.benchmarks())
                .containsOnlyKeys("tests/test_parser.py::test_parse_small", "tests/test_io.py::test_write[1024]");
        assertMetric(m, "tests/test_parser.py::test_parse_small", "latency", 15_500, 12_000.0, 31_000.0);
        assertMetric(m, "tests/test_io.py::test_write[1024]", "latency", 2.5e6, 2e6, 4e6);
    }

    /**
     * Google Benchmark's JSON output: https://github.com/google/benchmark/blob/main/docs/user_guide.md#output-formats
     * (context, benchmarks[] with run_type, real_time, cpu_time, time_unit, aggregates).
     */
    @Test
    void googleBenchmarkUsesIterationRunsAndSkipsAggregatesAndErrors() {
        Metrics m = parse("cpp_google", "google.json");
        assertThat(m.benchmarks()).containsOnlyKeys("BM_Sort/1024", "BM_Hash/64", "BM_Summary");
        assertMetric(m, "BM_Sort/1024", "latency", 1500, 1480.0, 1520.0);
        assertMetric(m, "BM_Hash/64", "latency", 1250, null, null);
        assertMetric(m, "BM_Hash/64", "throughput", 800_000, null, null);
        assertMetric(m, "BM_Hash/64", "bandwidth", 51_200_000, null, null);
        // Only aggregates were reported for it: the mean stands in.
        assertMetric(m, "BM_Summary", "latency", 2e6, null, null);
    }

    static Stream<Arguments> fixtures() {
        return Stream.of(
                Arguments.of("bmf.json", "json"),
                Arguments.of("jmh.json", "java_jmh"),
                Arguments.of("go_bench.txt", "go_bench"),
                Arguments.of("criterion.txt", "rust_criterion"),
                Arguments.of("hyperfine.json", "shell_hyperfine"),
                Arguments.of("pytest.json", "python_pytest"),
                Arguments.of("google.json", "cpp_google"));
    }

    @ParameterizedTest(name = "magic detects {1} in {0}")
    @MethodSource("fixtures")
    void magicDetectsEachFixturesToolAndParsesItTheSameWay(String fixture, String adapter) {
        MagicAdapter magic = new MagicAdapter();
        assertThat(magic.detect(fixture(fixture))).map(Adapter::name).contains(adapter);
        assertThat(magic.parse(fixture(fixture))).isEqualTo(parse(adapter, fixture));
    }

    static Stream<Arguments> malformed() {
        return Stream.of(
                Arguments.of("json", "not json at all", "not valid JSON"),
                Arguments.of("json", "{\"a\": {\"latency\": {\"value\": \"fast\"}}}", "'value' must be a number"),
                Arguments.of("json", "{\"a\": {\"latency\": {\"lower_value\": 1}}}", "'value' is missing"),
                // issue 44: a NaN is named as such, not as a missing value
                Arguments.of("json", "{\"a\": {\"latency\": {\"value\": \"NaN\"}}}", "'value' is NaN"),
                Arguments.of("json", "[1, 2]", "must be a JSON object"),
                Arguments.of(
                        "java_jmh",
                        "[{\"benchmark\": \"x\", \"primaryMetric\": {\"score\": 1, \"scoreUnit\": \"B/op\"}}]",
                        "unsupported score unit"),
                Arguments.of(
                        "java_jmh",
                        "[{\"benchmark\": \"x\", \"primaryMetric\": {\"score\": 1, \"scoreU",
                        "not valid JSON"),
                Arguments.of("java_jmh", "{\"benchmark\": \"x\"}", "must be an array"),
                Arguments.of("go_bench", "PASS\nok  \texample.com/x\t0.1s\n", "no Go benchmark result lines"),
                Arguments.of("go_bench", "BenchmarkX-8   100   fast ns/op\n", "line 1"),
                Arguments.of("go_bench", "BenchmarkX-8   100   12 ns/op  7\n", "do not pair up"),
                Arguments.of("rust_criterion", "running 0 tests\n", "no Criterion result lines"),
                Arguments.of("rust_criterion", "x                  time:   [1.0 ns 2.0 ns]\n", "line 1"),
                Arguments.of(
                        "rust_criterion", "x                  time:   [1.0 ns 2.0 ns 3.0 fortnights]\n", "unknown"),
                Arguments.of("shell_hyperfine", "{\"results\": [{\"command\": \"x\"}]}", "'mean' is missing"),
                Arguments.of(
                        "python_pytest", "{\"benchmarks\": [{\"name\": \"t\", \"stats\": {}}]}", "'mean' is missing"),
                Arguments.of(
                        "cpp_google",
                        "{\"context\": {}, \"benchmarks\": [{\"name\": \"BM\", \"run_type\": \"iteration\", \"real_time\": 1, \"time_unit\": \"fortnights\"}]}",
                        "unknown time unit"),
                Arguments.of("magic", "hello, world\n", "no adapter recognises this output"),
                Arguments.of("magic", "", "no adapter recognises this output"));
    }

    @ParameterizedTest(name = "{0} refuses {1}")
    @MethodSource("malformed")
    void malformedOutputIsAnAdapterErrorThatSaysWhy(String adapter, String text, String message) {
        assertThatThrownBy(() -> adapters.find(adapter).orElseThrow().parse(text))
                .isInstanceOf(AdapterException.class)
                .hasMessageContaining(message);
        // The processor's path: never an exception, an iteration error instead.
        IterationResults r = IterationResults.parse(3, adapters.find(adapter).orElseThrow(), text);
        assertThat(r.parsed()).isFalse();
        assertThat(r.iteration()).isEqualTo(3);
        assertThat(r.error()).contains(message);
    }

    @Test
    void rawParsesNothingAndNeverFails() {
        assertThat(adapters.find("raw").orElseThrow().parse("anything at all").isEmpty())
                .isTrue();
    }

    @Test
    void theDefaultIsJsonAndEveryDocumentedAdapterExists() {
        assertThat(adapters.find(null)).map(Adapter::name).contains("json");
        assertThat(Adapters.DEFAULT).isEqualTo("json");
        assertThat(adapters.names())
                .containsExactlyInAnyOrder(
                        "json",
                        "java_jmh",
                        "go_bench",
                        "rust_criterion",
                        "shell_hyperfine",
                        "python_pytest",
                        "cpp_google",
                        "magic",
                        "raw");
    }

    @Test
    void iterationsMergeAsTheMeanWithMinAndMaxAsBounds() {
        Metrics a = new JsonAdapter()
                .parse(
                        "{\"b\": {\"latency\": {\"value\": 10, \"lower_value\": 9, \"upper_value\": 12}}, \"only-a\": {\"latency\": {\"value\": 5}}}");
        Metrics b = new JsonAdapter().parse("{\"b\": {\"latency\": {\"value\": 20}}}");
        ReportResults r = ReportResults.of(java.util.List.of(
                new IterationResults(0, a, null),
                new IterationResults(1, b, null),
                IterationResults.failed(2, "not JSON")));
        assertMetric(r.results(), "b", "latency", 15, 9.0, 20.0);
        assertMetric(r.results(), "only-a", "latency", 5, null, null);
        assertThat(r.error()).contains("iteration 2: not JSON");
        ReportResults back = ReportResults.fromJson(r.toJson()).orElseThrow();
        assertThat(back).isEqualTo(r);
    }
}

package dev.baton.console;

import dev.baton.console.Views.Chart;
import dev.baton.console.Views.Point;
import dev.baton.core.adapter.IterationResults;
import dev.baton.core.adapter.ReportResults;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The job page's charts: one per benchmark and measure, its value in each iteration drawn as an
 * SVG polyline scaled into {@link Chart#WIDTH} by {@link Chart#HEIGHT}, so the page needs no
 * script to show how the iterations moved.
 */
final class IterationCharts {
    private IterationCharts() {}

    /** One chart per benchmark and measure with its value in each iteration that parsed. */
    static List<Chart> of(ReportResults parsed) {
        if (parsed == null || parsed.iterations() == null) return List.of();
        Map<String, Map<Integer, Double>> series = new LinkedHashMap<>();
        for (IterationResults it : parsed.iterations()) {
            if (it.results() == null) continue;
            it.results()
                    .benchmarks()
                    .forEach((b, measures) -> measures.forEach(
                            (m, metric) -> series.computeIfAbsent(b + "\u0000" + m, k -> new LinkedHashMap<>())
                                    .put(it.iteration(), metric.value())));
        }
        List<Chart> charts = new ArrayList<>();
        series.forEach((key, values) -> {
            String[] names = key.split("\u0000", 2);
            charts.add(chart(names[0], names[1], values));
        });
        return charts;
    }

    static Chart chart(String benchmark, String measure, Map<Integer, Double> values) {
        double min =
                values.values().stream().mapToDouble(Double::doubleValue).min().orElse(0);
        double max =
                values.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
        int last = values.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        double pad = 10;
        double w = Chart.WIDTH - 2 * pad;
        double h = Chart.HEIGHT - 2 * pad;
        List<Point> points = new ArrayList<>();
        StringBuilder polyline = new StringBuilder();
        values.forEach((iteration, value) -> {
            double x = pad + (last == 0 ? w / 2 : w * iteration / last);
            double y = pad + (max == min ? h / 2 : h * (max - value) / (max - min));
            points.add(new Point(round(x), round(y), iteration, value));
            if (!polyline.isEmpty()) polyline.append(' ');
            polyline.append(round(x)).append(',').append(round(y));
        });
        return new Chart(benchmark, measure, polyline.toString(), points, min, max);
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }
}

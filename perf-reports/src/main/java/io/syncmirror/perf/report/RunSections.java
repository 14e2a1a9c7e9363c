package io.syncmirror.perf.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.syncmirror.perf.data.BenchRun;
import io.syncmirror.perf.data.JmhResults;
import io.syncmirror.perf.data.PercentileFile;
import io.syncmirror.perf.data.ResultLine;

/**
 * The sections a report draws for each kind of results directory: a sync bench run, a JMH result file, a
 * produce-latency harness run. Stateless.
 */
public final class RunSections
{
    private static final Pattern HARNESS_FILE = Pattern.compile("(.+)-(ours|kafka)-round(\\d+)\\.hgrm");

    private RunSections()
    {
    }

    /** A sync bench run: its parameters, the RESULT table, the spectra, latency, throughput and CPU over time. */
    public static void syncBench(final HtmlPage page, final BenchRun run) throws IOException
    {
        page.heading("Sync bench: " + run.dir().getFileName());
        page.paragraph(String.format(Locale.ROOT, "%s partitions, %s+%s brokers, RF %s, %s records/s of %s B, %s s "
                + "warm-up and %s s measured per window; commit %s; %s cores (%s), %s.",
            run.property("option.partitions", "?"), run.property("option.brokers", "?"),
            run.property("option.brokers", "?"), run.property("option.replication-factor", "?"),
            run.property("option.rate", "?"), run.property("option.size", "?"), run.property("option.warmup-s", "?"),
            run.property("option.duration-s", "?"), run.property("commit", "unknown"),
            run.property("machine.cores", "?"), run.property("machine.cpu", "?"), run.property("jvm", "?")));
        page.table(resultTable(run.results()));
        final List<Figures.Spectrum> spectra = new ArrayList<>();
        final List<Figures.Series> latency = new ArrayList<>();
        final List<Figures.Series> throughput = new ArrayList<>();
        final List<Figures.Series> cpu = new ArrayList<>();
        for (final ResultLine result : run.results())
        {
            final BenchRun.Window window = run.window(result);
            spectra.add(new Figures.Spectrum(result.label() + " ack", window.ack().total()));
            latency.addAll(Figures.intervalPercentiles(result.label(), window.ack()));
            throughput.add(Figures.throughput(result.label() + " acked/s", window.ack()));
            cpu.addAll(Figures.cpu(result.label(), window.timeline()));
        }
        page.figure(Figures.spectrum("acks=all ack latency by percentile", spectra).render(), "Percentile spectrum "
            + "of each window's ack latency, from each record's intended send time (no coordinated omission).");
        page.figure(Figures.overTime("ack latency over time", "latency (ms)", latency, true).render(),
            "p99 (solid) and p50 (dashed) of each one-second interval of each window.");
        page.figure(Figures.overTime("throughput over time", "acknowledged records/s", throughput, true).render(),
            "Acknowledgements per second of each window (records due in the window).");
        page.figure(Figures.overTime("CPU over time", "CPU %", cpu, true).render(), "This process's CPU (solid, "
            + "100 per busy core) and the machine's (dashed, 100 when every core is busy) per second.");
        page.subheading("Run parameters and machine");
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("key", "value"));
        run.properties().forEach((k, v) -> rows.add(List.of(k, v)));
        page.table(rows);
    }

    static List<List<String>> resultTable(final List<ResultLine> results)
    {
        final List<String> columns = List.of("label", "mode", "p50_us", "p99_us", "p999_us", "max_us",
            "link_rtt_p50_us", "acked", "achieved_rate", "cpu_pct", "machine_cpu_pct", "cpu_us_per_record",
            "gc_pause_ms", "saturated");
        final List<List<String>> rows = new ArrayList<>();
        rows.add(columns);
        for (final ResultLine result : results)
        {
            final List<String> row = new ArrayList<>();
            for (final String column : columns)
            {
                row.add(column.equals("label") ? result.label() : result.fields().getOrDefault(column, "-"));
            }
            rows.add(row);
        }
        return rows;
    }

    /**
     * JMH results: one bar chart per benchmark class, a group of bars per parameter combination, one bar per method
     * (ours beside the Kafka baselines), with JMH's 99.9 % error as error bars.
     */
    public static void jmh(final HtmlPage page, final JmhResults results)
    {
        page.heading("JMH: " + results.file());
        final Map<String, List<JmhResults.Benchmark>> byClass = new TreeMap<>();
        for (final JmhResults.Benchmark b : results.benchmarks())
        {
            byClass.computeIfAbsent(b.className(), k -> new ArrayList<>()).add(b);
        }
        for (final Map.Entry<String, List<JmhResults.Benchmark>> entry : byClass.entrySet())
        {
            final List<String> combos = new ArrayList<>();
            final List<String> methods = new ArrayList<>();
            for (final JmhResults.Benchmark b : entry.getValue())
            {
                final String combo = b.params().isEmpty() ? "-" : b.params().toString();
                if (!combos.contains(combo))
                {
                    combos.add(combo);
                }
                if (!methods.contains(b.method()))
                {
                    methods.add(b.method());
                }
            }
            final io.syncmirror.perf.svg.Chart chart = new io.syncmirror.perf.svg.Chart(entry.getKey(),
                Figures.WIDTH, Figures.HEIGHT, "parameters", entry.getValue().get(0).unit(),
                io.syncmirror.perf.svg.Scale.LINEAR, io.syncmirror.perf.svg.Scale.LINEAR).categories(combos);
            for (int m = 0; m < methods.size(); m++)
            {
                final double[] values = new double[combos.size()];
                final double[] errors = new double[combos.size()];
                java.util.Arrays.fill(values, Double.NaN);
                java.util.Arrays.fill(errors, Double.NaN);
                for (final JmhResults.Benchmark b : entry.getValue())
                {
                    if (b.method().equals(methods.get(m)))
                    {
                        final int c = combos.indexOf(b.params().isEmpty() ? "-" : b.params().toString());
                        values[c] = b.score();
                        errors[c] = b.scoreError();
                    }
                }
                chart.bars(methods.get(m), Figures.color(m), values, errors);
            }
            page.figure(chart.render(), entry.getKey() + ": score per parameter combination; the baselines "
                + "(Kafka's own classes, or the load the method is compared with) beside ours. Error bars: JMH's "
                + "99.9 % confidence half-width.");
        }
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("benchmark", "score", "error", "unit", "alloc B/op"));
        for (final JmhResults.Benchmark b : results.benchmarks())
        {
            rows.add(List.of(b.key(), String.format(Locale.ROOT, "%.3f", b.score()),
                String.format(Locale.ROOT, "%.3f", b.scoreError()), b.unit(),
                String.format(Locale.ROOT, "%.1f", b.allocBytes())));
        }
        page.table(rows);
    }

    /** Whether {@code dir} holds the produce-latency harness's distributions. */
    public static boolean isProduceLatency(final Path dir) throws IOException
    {
        try (Stream<Path> files = Files.list(dir))
        {
            return files.anyMatch(f -> HARNESS_FILE.matcher(f.getFileName().toString()).matches());
        }
    }

    /** The produce-latency harness: one spectrum per topology, ours and Kafka's rounds side by side. */
    public static void produceLatency(final HtmlPage page, final Path dir) throws IOException
    {
        page.heading("Produce latency, ours against Kafka: " + dir.getFileName());
        final Map<String, Map<String, Path>> byTopology = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir))
        {
            files.sorted().forEach(f ->
            {
                final Matcher m = HARNESS_FILE.matcher(f.getFileName().toString());
                if (m.matches())
                {
                    byTopology.computeIfAbsent(m.group(1), k -> new TreeMap<>())
                        .put(m.group(2) + " round " + m.group(3), f);
                }
            });
        }
        for (final Map.Entry<String, Map<String, Path>> entry : byTopology.entrySet())
        {
            final List<String> names = new ArrayList<>(entry.getValue().keySet());
            final List<PercentileFile> files = new ArrayList<>();
            for (final Path file : entry.getValue().values())
            {
                files.add(PercentileFile.read(file));
            }
            page.figure(Figures.spectrumOfFiles("topology " + entry.getKey() + ": acks=all produce latency", names,
                files).render(), "Topology " + entry.getKey() + ": each round's percentile spectrum, ours and "
                + "Kafka 4.4's broker in the same run.");
        }
        final Path summary = dir.resolve("summary.txt");
        if (Files.isRegularFile(summary))
        {
            final List<List<String>> rows = new ArrayList<>();
            rows.add(List.of("summary line"));
            for (final String line : Files.readAllLines(summary))
            {
                if (line.startsWith("E2E"))
                {
                    rows.add(List.of(line));
                }
            }
            page.table(rows);
        }
    }
}

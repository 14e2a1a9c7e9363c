package io.syncmirror.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Function;

import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.BenchmarkResult;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * The entry point of {@code benchmarks.jar}: runs the hot-path micro-benchmarks beside their baselines in one
 * JMH run with the GC profiler, writes JMH's JSON, and prints one line per comparison and per absolute figure
 * for people and for CI gates to read. Single-threaded; the benchmarks run in forked JVMs.
 *
 * <pre>
 *   java -jar benchmarks/target/benchmarks.jar [--quick] [--out DIR] [--include REGEX]
 *
 *   COMPARE &lt;name&gt; ours_ns=&lt;x&gt; baseline_ns=&lt;y&gt; ratio=&lt;y/x&gt; ours_alloc_b=&lt;bytes/op&gt;
 *   FIGURE &lt;name&gt; ns=&lt;x&gt; alloc_b=&lt;bytes/op&gt;
 *   ROW_BYTES mirrors=&lt;m&gt; bytes=&lt;partition row size&gt;
 * </pre>
 *
 * <p>Every value is the median over forks of each fork's own score (its mean over measurement iterations) and
 * of each fork's {@code gc.alloc.rate.norm}: a fork whose JIT took an unlucky decision, or that shared the two
 * cores with something else, moves the median less than the mean. The default run is 3 forks of the
 * iterations each benchmark declares; {@code --quick} is 1 fork of short iterations, to check that everything
 * runs and to spot large regressions, not to publish numbers.
 */
public final class MicroBenchmarks
{
    /** The benchmarks this runner reports on. */
    public static final String DEFAULT_INCLUDE =
        "io\\.syncmirror\\.benchmarks\\.(HwRecompute|Purgatory|Timer)Benchmark\\.";
    /** The name of JMH's JSON result file in the output directory. */
    public static final String RESULT_FILE = "jmh-result.json";
    /** The name of the file that repeats the printed report lines in the output directory. */
    public static final String SUMMARY_FILE = "summary.txt";

    private static final String ALLOC_NORM = "gc.alloc.rate.norm";
    private static final int FULL_FORKS = 3;

    /** A comparison of one of our benchmarks with its baseline, for every parameter combination both ran. Immutable. */
    record Comparison(String benchmarkClass, String ours, String baseline, Function<BenchmarkParams, String> name)
    {
    }

    /** A benchmark's median time per operation and median allocation per operation over forks. Immutable. */
    record Figure(double nsPerOp, double allocBytesPerOp)
    {
    }

    static final List<Comparison> COMPARISONS = List.of(
        new Comparison("HwRecomputeBenchmark", "hwRecompute", "randomLoadBaseline",
            (params) -> "hw_recompute_" + count(params.getParam("partitions")) + "_m" + params.getParam("mirrors")),
        new Comparison("HwRecomputeBenchmark", "hwRecompute", "dependentLoadBaseline",
            (params) -> "hw_recompute_" + count(params.getParam("partitions")) + "_m" + params.getParam("mirrors") +
                "_vs_dependent_load"),
        new Comparison("HwRecomputeBenchmark", "hwRecomputeBatch", "hwRecomputeOne",
            (params) -> "hw_recompute_batch_" + count(params.getParam("partitions")) + "_m" +
                params.getParam("mirrors") + "_vs_one_at_a_time"),
        new Comparison("HwRecomputeBenchmark", "hwRecomputeBatch", "randomLoadBaseline",
            (params) -> "hw_recompute_batch_" + count(params.getParam("partitions")) + "_m" +
                params.getParam("mirrors") + "_vs_random_load"),
        new Comparison("PurgatoryBenchmark", "syncmirrorPurgatory", "kafkaPurgatory",
            (params) -> "purgatory_" + count(params.getParam("partitions")) + "_p" +
                params.getParam("partitionsPerRequest")),
        new Comparison("PurgatoryBenchmark", "syncmirrorPurgatoryBatched", "kafkaPurgatoryBatched",
            (params) -> "purgatory_batched_" + count(params.getParam("partitions")) + "_p" +
                params.getParam("partitionsPerRequest")),
        new Comparison("PurgatoryBenchmark", "syncmirrorWatchComplete", "kafkaWatchComplete",
            (params) -> "purgatory_watch_complete_" + count(params.getParam("partitions")) + "_p" +
                params.getParam("partitionsPerRequest")),
        new Comparison("TimerBenchmark", "hierarchicalWheel", "kafkaSystemTimer",
            (params) -> "timer_schedule_cancel_n" + count(params.getParam("pendingTimers"))));

    private MicroBenchmarks()
    {
    }

    public static void main(final String[] args) throws IOException, RunnerException
    {
        boolean quick = false;
        Path out = null;
        String include = DEFAULT_INCLUDE;
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--quick" -> quick = true;
                case "--out" -> out = Paths.get(requireValue(args, ++i, "--out"));
                case "--include" -> include = requireValue(args, ++i, "--include");
                default -> usage("unknown argument: " + args[i]);
            }
        }
        if (out == null)
        {
            out = Paths.get("benchmarks", "results",
                DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").format(ZonedDateTime.now(ZoneOffset.UTC)));
        }
        Files.createDirectories(out);

        final ChainedOptionsBuilder options = new OptionsBuilder()
            .include(include)
            .addProfiler(GCProfiler.class)
            .resultFormat(ResultFormatType.JSON)
            .result(out.resolve(RESULT_FILE).toString())
            .shouldFailOnError(true);
        if (quick)
        {
            options.forks(1)
                .warmupIterations(2).warmupTime(TimeValue.milliseconds(500))
                .measurementIterations(3).measurementTime(TimeValue.seconds(1));
        }
        else
        {
            options.forks(FULL_FORKS);
        }

        final Collection<RunResult> results = new Runner(options.build()).run();
        final List<String> lines = report(results);
        System.out.println();
        lines.forEach(System.out::println);
        Files.write(out.resolve(SUMMARY_FILE), lines);
        System.out.println("results in " + out.toAbsolutePath().normalize());
    }

    /** The report lines for {@code results}: comparisons, then absolute figures, then the row sizes. */
    static List<String> report(final Collection<RunResult> results)
    {
        final List<RunResult> sorted = new ArrayList<>(results);
        sorted.sort(Comparator.comparing((RunResult result) -> result.getParams().getBenchmark())
            .thenComparing(MicroBenchmarks::numericParamKey));
        final List<String> compares = new ArrayList<>();
        final List<String> figures = new ArrayList<>();
        final TreeSet<Integer> mirrors = new TreeSet<>();
        for (final Comparison comparison : COMPARISONS)
        {
            for (final RunResult ours : sorted)
            {
                final BenchmarkParams params = ours.getParams();
                if (!params.getBenchmark().endsWith("." + comparison.benchmarkClass() + "." + comparison.ours()))
                {
                    continue;
                }
                final String name = comparison.name().apply(params);
                final Figure oursFigure = figure(ours);
                final RunResult baseline = find(sorted, comparison.benchmarkClass(), comparison.baseline(), params);
                if (baseline != null)
                {
                    compares.add(compareLine(name, oursFigure, figure(baseline)));
                }
                if (comparison.baseline().equals("randomLoadBaseline"))
                {
                    figures.add(figureLine(name, oursFigure));
                    mirrors.add(Integer.parseInt(params.getParam("mirrors")));
                }
            }
        }
        final List<String> lines = new ArrayList<>(compares);
        lines.addAll(figures);
        for (final int m : mirrors)
        {
            lines.add("ROW_BYTES mirrors=" + m + " bytes=" + HwRecomputeBenchmark.rowBytes(m));
        }
        return lines;
    }

    static String compareLine(final String name, final Figure ours, final Figure baseline)
    {
        return String.format(Locale.ROOT, "COMPARE %s ours_ns=%.2f baseline_ns=%.2f ratio=%.2f ours_alloc_b=%.1f",
            name, ours.nsPerOp(), baseline.nsPerOp(), baseline.nsPerOp() / ours.nsPerOp(), ours.allocBytesPerOp());
    }

    static String figureLine(final String name, final Figure figure)
    {
        return String.format(Locale.ROOT, "FIGURE %s ns=%.2f alloc_b=%.1f", name, figure.nsPerOp(),
            figure.allocBytesPerOp());
    }

    /** The median over forks of the primary score and of the normalised allocation rate (NaN when not profiled). */
    static Figure figure(final RunResult result)
    {
        final Collection<BenchmarkResult> forks = result.getBenchmarkResults();
        final double[] scores = new double[forks.size()];
        final double[] allocs = new double[forks.size()];
        int i = 0;
        for (final BenchmarkResult fork : forks)
        {
            scores[i] = fork.getPrimaryResult().getScore();
            allocs[i] = allocNorm(fork.getSecondaryResults());
            i++;
        }
        return new Figure(median(scores), median(allocs));
    }

    /** JMH 1.37 labels it {@code gc.alloc.rate.norm}, older versions prefix a middle dot: match either. */
    static double allocNorm(final Map<String, Result> secondary)
    {
        for (final Map.Entry<String, Result> entry : secondary.entrySet())
        {
            if (entry.getKey().endsWith(ALLOC_NORM))
            {
                return entry.getValue().getScore();
            }
        }
        return Double.NaN;
    }

    /** The median of {@code values}: the middle one, or the mean of the two middle ones; NaN when empty. */
    static double median(final double[] values)
    {
        if (values.length == 0)
        {
            return Double.NaN;
        }
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int middle = sorted.length >> 1;
        return (sorted.length & 1) == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2.0;
    }

    /** A count as a short label: 1000 is "1k", 100000 is "100k", 1500 stays "1500". */
    static String count(final String value)
    {
        final long n = Long.parseLong(value);
        if (n >= 1_000_000 && n % 1_000_000 == 0)
        {
            return n / 1_000_000 + "m";
        }
        if (n >= 1000 && n % 1000 == 0)
        {
            return n / 1000 + "k";
        }
        return Long.toString(n);
    }

    private static RunResult find(
        final List<RunResult> results, final String benchmarkClass, final String method, final BenchmarkParams params)
    {
        for (final RunResult result : results)
        {
            final BenchmarkParams candidate = result.getParams();
            if (candidate.getBenchmark().endsWith("." + benchmarkClass + "." + method) && sameParams(candidate, params))
            {
                return result;
            }
        }
        return null;
    }

    private static boolean sameParams(final BenchmarkParams a, final BenchmarkParams b)
    {
        if (!a.getParamsKeys().equals(b.getParamsKeys()))
        {
            return false;
        }
        for (final Object key : a.getParamsKeys())
        {
            if (!a.getParam((String)key).equals(b.getParam((String)key)))
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Orders parameter combinations numerically (1000 before 100000): partition count first, then the other
     * parameters in name order, so that each size's lines stay together.
     */
    private static String numericParamKey(final RunResult result)
    {
        final BenchmarkParams params = result.getParams();
        final List<String> names = new ArrayList<>();
        for (final Object name : params.getParamsKeys())
        {
            names.add((String)name);
        }
        names.sort(Comparator.comparing((String name) -> !name.equals("partitions")).thenComparing(name -> name));
        final StringBuilder key = new StringBuilder();
        for (final String name : names)
        {
            final String value = params.getParam(name);
            key.append(name).append('=');
            try
            {
                key.append(String.format(Locale.ROOT, "%020d", Long.parseLong(value)));
            }
            catch (final NumberFormatException ex)
            {
                key.append(value);
            }
            key.append(';');
        }
        return key.toString();
    }

    private static String requireValue(final String[] args, final int index, final String option)
    {
        if (index >= args.length)
        {
            usage(option + " needs a value");
        }
        return args[index];
    }

    private static void usage(final String problem)
    {
        System.err.println(problem);
        System.err.println("usage: java -jar benchmarks.jar [--quick] [--out DIR] [--include REGEX]");
        System.exit(2);
    }
}

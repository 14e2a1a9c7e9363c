package io.syncmirror.perf.gate;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;

/**
 * What the gate measures: the sync bench at a load that does not saturate 2 cores (ASYNC and SYNC p50 and p99 per
 * round) and a few JMH micro-benchmarks of the hot path, and how many rounds of each. {@link #version} changes when
 * anything that makes two suites' numbers incomparable changes; a stored baseline of another version is refused.
 * Immutable.
 *
 * @param generations   how many times both sides' benches are started afresh; the rounds are shared among them
 * @param processSpread the log spread between two bench processes of one build over their whole life, measured
 *                      in A/A runs ({@link Calibration}); the rounds of one pair of processes cannot see it, so the
 *                      decision adds it to their spread ({@link DecisionRule#withFloor})
 * @param jmhInclude  JMH's benchmark regex
 * @param jmhParams   {@code name=value} for JMH's {@code -p}
 */
public record Suite(String name, int version, int partitions, int rate, int warmupSeconds, int durationSeconds,
    int warmAsyncSeconds, int warmSyncSeconds, String heap, int defaultRounds, int generations, double processSpread,
    String jmhInclude, List<String> jmhParams, int jmhWarmupIterations,
    String jmhIterationTime, int jmhIterations)
{
    /** The modes each round measures, in order (a promotion to SYNC is not undone). */
    public static final List<String> MODES = List.of("ASYNC", "SYNC");
    /**
     * The log spread of a sync bench metric between two processes of one build: the root mean square of A/A runs'
     * mean log ratios less their rounds' own share, pooled over the four latency metrics (docs/regression-gate.md).
     * JMH metrics have none: every round is a fresh fork.
     */
    public static final double PROCESS_SPREAD = 0.04;
    /** The latency percentiles each window gives, as RESULT fields. */
    public static final List<String> PERCENTILES = List.of("p50_us", "p99_us");

    /**
     * Under 5 minutes on 2 cores once both builds exist: 100 partitions at 300 records/s (about half the machine
     * once warm), 5 rounds of 7 s windows per mode and side, and 2 JMH benchmarks at 1k partitions (cache-resident:
     * at 100k, which rows share a cache line or a page differs from fork to fork, and so does the time).
     */
    public static Suite quick()
    {
        return new Suite("quick", 1, 100, 300, 1, 7, 10, 10, "4g", 5, 1, PROCESS_SPREAD,
            "io\\.syncmirror\\.benchmarks\\.(HwRecomputeBenchmark\\.hwRecompute|PurgatoryBenchmark\\."
                + "syncmirrorPurgatory)$", List.of("partitions=1000", "mirrors=1", "partitionsPerRequest=1"), 2,
            "300ms", 3);
    }

    /**
     * 1,000 partitions at 300 records/s, 12 rounds of 15 s windows in 4 generations (fresh processes, so the
     * process spread counts a quarter), 4 JMH benchmarks with longer iterations, at 1k partitions as in the quick
     * suite. Version 1 ran them at 100k: in its A/A run the hwRecompute rounds' log ratios spread 0.56, and that one
     * metric made most of the run's false alarms (1 % regressed and 24 % inconclusive when resampled).
     */
    public static Suite full()
    {
        return new Suite("full", 2, 1000, 300, 2, 15, 30, 15, "6g", 12, 4, PROCESS_SPREAD,
            "io\\.syncmirror\\.benchmarks\\.(HwRecomputeBenchmark\\.hwRecompute|PurgatoryBenchmark\\.syncmirror"
                + "(Purgatory|WatchComplete)|TimerBenchmark\\.hierarchicalWheel)$",
            List.of("partitions=1000", "mirrors=1", "partitionsPerRequest=1", "pendingTimers=10000"), 3, "1s", 5);
    }

    /** The suite called {@code name}. */
    public static Suite named(final String name)
    {
        return switch (name)
        {
            case "quick" -> quick();
            case "full" -> full();
            default -> throw new IllegalArgumentException("--suite takes quick or full: '" + name + "'");
        };
    }

    /**
     * The JVM options of the gate's benches (the bench script's {@code JAVA_OPTS}): the heap and a fixed young
     * generation, touched at start. G1 sizes its young generation by each JVM's own pause history, so two JVMs of
     * one build collected at different rates for their whole life; measured in 3 A/A quick runs with these options,
     * every run passed and the p50s' run means stayed within ±6 %, against 1 pass in 5 and up to +23 % without.
     */
    public String jvmOptions()
    {
        final int heapMb = heap.endsWith("g") ? Integer.parseInt(heap.substring(0, heap.length() - 1)) * 1024 :
            Integer.parseInt(heap.substring(0, heap.length() - 1));
        return "-Xms" + heap + " -Xmn" + heapMb / 4 + "m -XX:+AlwaysPreTouch";
    }

    /** The sync bench's flags for a served run writing to {@code resultsDir}. */
    public List<String> benchArgs(final Path resultsDir)
    {
        return List.of("--no-build", "--serve", "--quiet", "--partitions", Integer.toString(partitions), "--rate",
            Integer.toString(rate), "--warmup-s", Integer.toString(warmupSeconds), "--duration-s",
            Integer.toString(durationSeconds), "--heap", heap, "--results-dir", resultsDir.toString());
    }

    /** JMH's command line (after the main class) writing JSON to {@code resultFile}. */
    public List<String> jmhArgs(final Path resultFile)
    {
        final List<String> args = new ArrayList<>(List.of(jmhInclude, "-f", "1", "-wi",
            Integer.toString(jmhWarmupIterations), "-w", jmhIterationTime, "-i", Integer.toString(jmhIterations), "-r",
            jmhIterationTime, "-rf", "json", "-rff", resultFile.toString()));
        for (final String param : jmhParams)
        {
            args.add("-p");
            args.add(param);
        }
        return args;
    }

    /** Everything that must match for two runs' numbers to be compared, on one line. */
    public String describe()
    {
        return String.format(Locale.ROOT, "%s v%d: sync-bench %d partitions, %d records/s, %d s warm-up + %d s per "
                + "window, warm windows %d s ASYNC / %d s SYNC, heap %s (%s), %d generation(s); jmh %s %s, %d x %s "
                + "warm-up, %d x %s measured", name, version, partitions, rate, warmupSeconds, durationSeconds,
            warmAsyncSeconds, warmSyncSeconds, heap, jvmOptions(), generations, jmhInclude, jmhParams, jmhWarmupIterations, jmhIterationTime,
            jmhIterations, jmhIterationTime);
    }

    /** This suite with another process spread (to decide recorded rounds again under another floor). */
    public Suite withProcessSpread(final double spread)
    {
        return new Suite(name, version, partitions, rate, warmupSeconds, durationSeconds, warmAsyncSeconds,
            warmSyncSeconds, heap, defaultRounds, generations, spread, jmhInclude, jmhParams, jmhWarmupIterations,
            jmhIterationTime, jmhIterations);
    }

    /** The variance the decision adds to each metric: the process spread over the generations, for the bench. */
    public ToDoubleFunction<String> floorVariances()
    {
        return parseFloor(floorDescription());
    }

    /** The floor as {@code gate.properties} keeps it: {@code prefix=variance}. */
    public String floorDescription()
    {
        return String.format(Locale.ROOT, "sync-bench.=%.6f", processSpread * processSpread / generations);
    }

    /** Reads {@link #floorDescription}; an empty text is no floor (a gate run from before floors existed). */
    public static ToDoubleFunction<String> parseFloor(final String text)
    {
        if (text == null || text.isBlank())
        {
            return metric -> 0.0;
        }
        final int equals = text.indexOf('=');
        if (equals <= 0)
        {
            throw new IllegalArgumentException("not a floor: '" + text + "'");
        }
        final String prefix = text.substring(0, equals);
        final double variance = Double.parseDouble(text.substring(equals + 1));
        return metric -> metric.startsWith(prefix) ? variance : 0.0;
    }

    /** The name of the latency metric of {@code mode} and {@code percentile}. */
    public static String latencyMetric(final String mode, final String percentile)
    {
        return "sync-bench." + mode + "." + percentile;
    }
}

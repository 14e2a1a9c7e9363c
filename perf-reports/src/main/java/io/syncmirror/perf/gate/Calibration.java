package io.syncmirror.perf.gate;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.simple.RandomSource;

/**
 * How often the gate's rule cries wolf and how often it catches a real slowdown, measured on real rounds: every
 * round of every side of some A/A gate runs (one build against itself) is pooled per metric; then thousands of
 * synthetic gate runs draw baseline and candidate rounds from that pool (with replacement, seeded), the candidate
 * multiplied by a planted shift, and are decided as the gate decides them. A round is drawn whole, so that the
 * metrics of one window (its p50 and its p99) stay together as they are in a real run.
 *
 * <pre>
 *   java -cp perf-reports.jar io.syncmirror.perf.gate.Calibration [--trials N] [--seed S] [--rounds N]
 *       [--threshold-pct T] [--confidence C] [--process-spread S] GATE_RESULTS_DIR...
 * </pre>
 *
 * <p>It first estimates the process spread from the runs themselves ({@link #processSpread}); the synthetic runs
 * then draw their process effect from {@code --process-spread} when given, else from the floor the runs were
 * decided with.
 *
 * <p>Prints, per method, the false-alarm rate (exit 1 at no shift) per metric and per run, the inconclusive rate,
 * the detection rate of every metric at each shift (5 % steps), and the smallest of them it detects 95 % of the time.
 * Single-threaded; the same seed gives the same figures.
 */
public final class Calibration
{
    /** One pooled round: every metric's value in one side's round of one run. */
    record PooledRound(Map<String, Double> values)
    {
    }

    /** The outcome counts of a batch of synthetic runs. */
    record Rates(Map<String, double[]> perMetric, double runRegressed, double runInconclusive)
    {
    }

    private Calibration()
    {
    }

    public static void main(final String[] args) throws IOException
    {
        int trials = 2000;
        long seed = 42;
        int rounds = -1;
        double threshold = 10.0;
        double tailThreshold = GateOptions.DEFAULT_TAIL_THRESHOLD_PCT;
        double confidence = 0.99;
        Double spread = null;
        final List<Path> dirs = new ArrayList<>();
        for (int i = 0; i < args.length; i++)
        {
            switch (args[i])
            {
                case "--trials" -> trials = Integer.parseInt(args[++i]);
                case "--seed" -> seed = Long.parseLong(args[++i]);
                case "--rounds" -> rounds = Integer.parseInt(args[++i]);
                case "--threshold-pct" -> threshold = Double.parseDouble(args[++i]);
                case "--tail-threshold-pct" -> tailThreshold = Double.parseDouble(args[++i]);
                case "--confidence" -> confidence = Double.parseDouble(args[++i]);
                case "--process-spread" -> spread = Double.parseDouble(args[++i]);
                default -> dirs.add(Paths.get(args[i]));
            }
        }
        final List<PooledRound> pool = new ArrayList<>();
        final List<Rounds> runs = new ArrayList<>();
        int defaultRounds = 0;
        ToDoubleFunction<String> floor = metric -> 0.0;
        String suiteName = "quick";
        for (final Path dir : dirs)
        {
            final GateResults results = GateResults.read(dir);
            runs.add(results.rounds());
            pool.addAll(pool(results.rounds()));
            defaultRounds = Integer.parseInt(results.property("rounds", "5"));
            floor = Suite.parseFloor(results.property("floor", ""));
            suiteName = results.property("suite.name", suiteName);
        }
        printProcessSpread(runs);
        if (spread != null)
        {
            floor = Suite.parseFloor(Suite.named(suiteName).withProcessSpread(spread).floorDescription());
        }
        final int n = rounds > 0 ? rounds : defaultRounds;
        final List<String> metrics = new ArrayList<>(pool.get(0).values().keySet());
        System.out.printf(Locale.ROOT, "calibration: %d pooled rounds from %d run(s), %d rounds per synthetic run, "
            + "%d trials per shift, threshold %.1f %% (p99 %.1f %%), confidence %.3f, seed %d%n", pool.size(),
            dirs.size(), n, trials, threshold, tailThreshold, confidence, seed);
        final Map<String, DecisionRule> rules = new LinkedHashMap<>();
        rules.put("T", new DecisionRule(threshold, confidence, DecisionRule.Method.T, seed).withFloor(floor)
            .withTailThreshold(tailThreshold));
        rules.put("BOOTSTRAP", new DecisionRule(threshold, confidence, DecisionRule.Method.BOOTSTRAP, seed)
            .withFloor(floor).withTailThreshold(tailThreshold));
        // The same t rule blind to the process spread, to show what the floor is for.
        rules.put("T-without-floor", new DecisionRule(threshold, confidence, DecisionRule.Method.T, seed)
            .withTailThreshold(tailThreshold));
        for (final Map.Entry<String, DecisionRule> named : rules.entrySet())
        {
            final String method = named.getKey();
            final DecisionRule rule = named.getValue();
            final Rates aa = rates(pool, metrics, rule, n, trials, 0.0, seed, floor);
            System.out.printf(Locale.ROOT, "%s A/A: false alarms per run %.2f %%, inconclusive runs %.2f %%%n",
                method, 100 * aa.runRegressed(), 100 * aa.runInconclusive());
            for (final String metric : metrics)
            {
                final double[] r = aa.perMetric().get(metric);
                System.out.printf(Locale.ROOT, "%s A/A %s: regressed %.2f %%, inconclusive %.2f %%%n", method, metric,
                    100 * r[0], 100 * r[1]);
            }
            for (final String metric : metrics)
            {
                final StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%s power %s:", method,
                    metric));
                int smallest = -1;
                for (int shift = 5; shift <= 60; shift += 5)
                {
                    final double detected = rates(pool, List.of(metric), rule, n, trials / 4, shift / 100.0,
                        seed + shift, floor).perMetric().get(metric)[0];
                    line.append(String.format(Locale.ROOT, " +%d%%=%.1f%%", shift, 100 * detected));
                    if (smallest < 0 && detected >= 0.95)
                    {
                        smallest = shift;
                    }
                }
                line.append(smallest < 0 ? "; 95 % not reached by +60 %" : "; smallest shift detected 95 % (5 % "
                    + "steps): +" + smallest + " %");
                System.out.println(line);
            }
        }
    }

    /**
     * The process spread of each metric estimated from A/A runs: the variance of the runs' mean log ratios less
     * what their rounds' own spread explains, {@code mean(m_r^2) - mean(s_r^2 / n_r)} (both sides run one build,
     * so the true mean is 0), as a log standard deviation; 0 when the rounds explain all of it. Also pooled over
     * the sync bench's metrics, the figure {@link Suite#PROCESS_SPREAD} holds.
     */
    static Map<String, Double> processSpread(final List<Rounds> runs)
    {
        final Map<String, double[]> sums = new LinkedHashMap<>();
        for (final Rounds run : runs)
        {
            for (final String metric : run.metrics())
            {
                final double[] base = run.values("baseline", metric);
                final double[] cand = run.values("candidate", metric);
                final int n = Math.min(base.length, cand.length);
                if (n < 2)
                {
                    continue;
                }
                double mean = 0;
                final double[] d = new double[n];
                for (int i = 0; i < n; i++)
                {
                    d[i] = Math.log(cand[i] / base[i]);
                    mean += d[i] / n;
                }
                double variance = 0;
                for (final double x : d)
                {
                    variance += (x - mean) * (x - mean) / (n - 1);
                }
                final double[] s = sums.computeIfAbsent(metric, k -> new double[3]);
                s[0] += mean * mean;
                s[1] += variance / n;
                s[2]++;
            }
        }
        final Map<String, Double> spreads = new LinkedHashMap<>();
        double pooledExcess = 0;
        int pooledMetrics = 0;
        for (final Map.Entry<String, double[]> e : sums.entrySet())
        {
            final double[] s = e.getValue();
            final double excess = (s[0] - s[1]) / s[2];
            spreads.put(e.getKey(), Math.sqrt(Math.max(0, excess)));
            if (e.getKey().startsWith("sync-bench."))
            {
                pooledExcess += excess;
                pooledMetrics++;
            }
        }
        spreads.put("sync-bench (pooled)", pooledMetrics == 0 ? 0.0 : Math.sqrt(Math.max(0,
            pooledExcess / pooledMetrics)));
        return spreads;
    }

    private static void printProcessSpread(final List<Rounds> runs)
    {
        processSpread(runs).forEach((metric, spread) -> System.out.printf(Locale.ROOT,
            "process spread %s: %.4f (log) over %d run(s)%n", metric, spread, runs.size()));
    }

    /** A standard normal draw (Box-Muller) from {@code rng}. */
    static double gaussian(final UniformRandomProvider rng)
    {
        return Math.sqrt(-2.0 * Math.log(1.0 - rng.nextDouble())) * Math.cos(2.0 * Math.PI * rng.nextDouble());
    }

    /** Every side's every round of {@code rounds} as a pooled round (rounds missing a metric are left out). */
    static List<PooledRound> pool(final Rounds rounds)
    {
        final Map<String, Map<String, Double>> byRound = new LinkedHashMap<>();
        for (final Rounds.Sample s : rounds.samples())
        {
            byRound.computeIfAbsent(s.side() + "#" + s.round(), k -> new LinkedHashMap<>()).put(s.metric(),
                s.value());
        }
        final int metrics = rounds.metrics().size();
        final List<PooledRound> pooled = new ArrayList<>();
        byRound.values().stream().filter(m -> m.size() == metrics).forEach(m -> pooled.add(new PooledRound(m)));
        return pooled;
    }

    /**
     * Decides {@code trials} synthetic runs of {@code n} rounds each, the candidate shifted by {@code shift}
     * (0.15 = 15 % slower) in every metric, and returns per metric {regressed, inconclusive} rates and the runs'.
     *
     * @param processVariance per metric, the variance of the process effect each synthetic run draws once: a real
     *                        run's rounds share one pair of processes, so its candidate differs from its baseline by
     *                        one draw of that effect in every round, which rounds drawn independently from a pool
     *                        would not show (the gate's floor, {@link Suite#processSpread})
     */
    static Rates rates(final List<PooledRound> pool, final List<String> metrics, final DecisionRule rule, final int n,
        final int trials, final double shift, final long seed, final ToDoubleFunction<String> processVariance)
    {
        final UniformRandomProvider rng = RandomSource.SPLIT_MIX_64.create(seed);
        final Map<String, double[]> counts = new LinkedHashMap<>();
        metrics.forEach(m -> counts.put(m, new double[2]));
        int runRegressed = 0;
        int runInconclusive = 0;
        for (int t = 0; t < trials; t++)
        {
            final PooledRound[] a = new PooledRound[n];
            final PooledRound[] b = new PooledRound[n];
            for (int i = 0; i < n; i++)
            {
                a[i] = pool.get(rng.nextInt(pool.size()));
                b[i] = pool.get(rng.nextInt(pool.size()));
            }
            boolean regressed = false;
            boolean inconclusive = false;
            final double processDraw = gaussian(rng);
            for (final String metric : metrics)
            {
                final double effect = Math.exp(processDraw * Math.sqrt(processVariance.applyAsDouble(metric)));
                final double[] base = new double[n];
                final double[] cand = new double[n];
                for (int i = 0; i < n; i++)
                {
                    base[i] = a[i].values().get(metric);
                    cand[i] = b[i].values().get(metric) * (1.0 + shift) * effect;
                }
                final Verdict v = rule.paired(metric, base, cand);
                if (v.outcome() == Verdict.Outcome.REGRESSED)
                {
                    counts.get(metric)[0]++;
                    regressed = true;
                }
                else if (v.outcome() == Verdict.Outcome.INCONCLUSIVE)
                {
                    counts.get(metric)[1]++;
                    inconclusive = true;
                }
            }
            runRegressed += regressed ? 1 : 0;
            runInconclusive += !regressed && inconclusive ? 1 : 0;
        }
        counts.values().forEach(c ->
        {
            c[0] /= trials;
            c[1] /= trials;
        });
        return new Rates(counts, (double)runRegressed / trials, (double)runInconclusive / trials);
    }
}

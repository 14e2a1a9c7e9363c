package io.syncmirror.perf.gate;

import java.util.Arrays;
import java.util.function.ToDoubleFunction;

import org.apache.commons.rng.UniformRandomProvider;
import org.apache.commons.rng.simple.RandomSource;
import org.apache.commons.statistics.descriptive.Mean;
import org.apache.commons.statistics.descriptive.Quantile;
import org.apache.commons.statistics.descriptive.Variance;
import org.apache.commons.statistics.distribution.NormalDistribution;
import org.apache.commons.statistics.distribution.TDistribution;
import org.apache.commons.statistics.inference.AlternativeHypothesis;
import org.apache.commons.statistics.inference.TTest;

/**
 * How the gate decides one metric from its rounds: on the logs of the candidate/baseline ratios, a confidence
 * interval for their mean, turned back into a ratio. A metric REGRESSED when the estimated ratio is beyond
 * {@code 1 + threshold} and the interval's lower bound is above 1; it is INCONCLUSIVE when the estimate is beyond
 * the threshold but the interval reaches 1; else it passes. Immutable.
 *
 * <p>Why logs: latency and ns/op noise is multiplicative (a slower machine slows everything by a factor), and
 * the ratio of geometric means is symmetric (a 10 % slowdown and its undoing cancel). Why pairs: the gate runs
 * the builds A B B A ..., so round i's two windows are seconds apart; on a shared machine the load drifts over
 * minutes, and the difference within a pair cancels it. Why Student's t and not a bootstrap or Mann-Whitney:
 * with 5 to 10 rounds a percentile bootstrap's interval is too narrow (it cannot see spread it did not sample;
 * measured in {@link Calibration}), and rank tests cannot reach a 1 % level at all with 5 pairs (Wilcoxon's
 * smallest one-sided p-value is 1/32). The bootstrap is kept as an {@link Method option} for that comparison.
 * The unpaired form (a stored baseline) uses Welch's interval on the two sides' logs.
 */
public final class DecisionRule
{
    /** How the interval is computed. */
    public enum Method
    {
        /** Student's t on the paired log ratios (Welch's when unpaired). */
        T,
        /** Percentile bootstrap of the mean log ratio (paired) or of the difference of means (unpaired). */
        BOOTSTRAP
    }

    /** How the names of tail metrics end: the sync bench's p99. */
    public static final String TAIL_SUFFIX = ".p99_us";
    /** The fewest rounds the gate decides from: two give no useful estimate of spread. */
    public static final int MIN_ROUNDS = 3;
    private static final int BOOTSTRAP_RESAMPLES = 4000;

    private final double threshold;
    private final double alpha;
    private final Method method;
    private final long seed;
    private final ToDoubleFunction<String> floor;
    /** The threshold of tail metrics ({@link #TAIL_SUFFIX}), as a fraction. */
    private final double tailThreshold;

    /**
     * @param thresholdPct the slowdown, in percent, beyond which a metric regressed
     * @param confidence   the one-sided confidence of each bound, e.g. 0.99 (the interval is then 98 % two-sided)
     */
    public DecisionRule(final double thresholdPct, final double confidence, final Method method, final long seed)
    {
        if (!(thresholdPct > 0 && thresholdPct < 1000))
        {
            throw new IllegalArgumentException("the threshold must be a percentage above 0: " + thresholdPct);
        }
        if (!(confidence > 0.5 && confidence < 1))
        {
            throw new IllegalArgumentException("the confidence must be between 0.5 and 1: " + confidence);
        }
        this.threshold = thresholdPct / 100.0;
        this.alpha = 1.0 - confidence;
        this.method = method;
        this.seed = seed;
        this.floor = metric -> 0.0;
        this.tailThreshold = threshold;
    }

    private DecisionRule(final DecisionRule rule, final ToDoubleFunction<String> floor, final double tailThreshold)
    {
        this.threshold = rule.threshold;
        this.alpha = rule.alpha;
        this.method = rule.method;
        this.seed = rule.seed;
        this.floor = floor;
        this.tailThreshold = tailThreshold;
    }

    /**
     * This rule with its own threshold for tail metrics (names ending {@link #TAIL_SUFFIX}): a window's p99 is
     * its 1 % slowest records, some tens of them, and varies from round to round several times as much as its
     * median does; a threshold it can be decided against in minutes is wider.
     */
    public DecisionRule withTailThreshold(final double tailThresholdPct)
    {
        if (!(tailThresholdPct > 0 && tailThresholdPct < 1000))
        {
            throw new IllegalArgumentException("the tail threshold must be a percentage above 0: " + tailThresholdPct);
        }
        return new DecisionRule(this, floor, tailThresholdPct / 100.0);
    }

    /** The threshold, as a fraction, that {@code metric} is held to. */
    public double thresholdOf(final String metric)
    {
        return metric.endsWith(TAIL_SUFFIX) ? tailThreshold : threshold;
    }

    /**
     * This rule with a floor under each metric's variance of the mean log ratio: a variance the rounds cannot
     * show (two processes of one build differ for their whole life) and the interval must still include.
     */
    public DecisionRule withFloor(final ToDoubleFunction<String> floorVariance)
    {
        return new DecisionRule(this, floorVariance, tailThreshold);
    }

    /** The default rule: T method, 99 % one-sided bounds. */
    public static DecisionRule standard(final double thresholdPct)
    {
        return new DecisionRule(thresholdPct, 0.99, Method.T, 1L);
    }

    public double thresholdPct()
    {
        return threshold * 100.0;
    }

    public double tailThresholdPct()
    {
        return tailThreshold * 100.0;
    }

    public double confidence()
    {
        return 1.0 - alpha;
    }

    public Method method()
    {
        return method;
    }

    /**
     * Decides from paired rounds: {@code baseline[i]} and {@code candidate[i]} were measured next to each other.
     * Values must be positive (latencies, times per operation).
     */
    public Verdict paired(final String metric, final double[] baseline, final double[] candidate)
    {
        if (baseline.length != candidate.length)
        {
            throw new IllegalArgumentException(metric + ": " + baseline.length + " baseline rounds but "
                + candidate.length + " candidate rounds");
        }
        final int n = baseline.length;
        final double[] d = new double[n];
        for (int i = 0; i < n; i++)
        {
            d[i] = Math.log(positive(metric, candidate[i])) - Math.log(positive(metric, baseline[i]));
        }
        final double mean = mean(d);
        if (n < MIN_ROUNDS)
        {
            return new Verdict(metric, n, Math.exp(mean), 0.0, Double.POSITIVE_INFINITY, Verdict.Outcome.INCONCLUSIVE,
                MIN_ROUNDS, Double.NaN);
        }
        final double sd = Math.sqrt(variance(d));
        final double lowLog;
        final double highLog;
        final double floorVariance = floor.applyAsDouble(metric);
        if (method == Method.T)
        {
            final double half = halfWidth(tQuantile(n - 1) * sd / Math.sqrt(n), floorVariance);
            lowLog = mean - half;
            highLog = mean + half;
        }
        else
        {
            final double[] means = new double[BOOTSTRAP_RESAMPLES];
            final UniformRandomProvider rng = RandomSource.SPLIT_MIX_64.create(seed ^ metric.hashCode());
            for (int b = 0; b < BOOTSTRAP_RESAMPLES; b++)
            {
                means[b] = resampledMean(d, rng);
            }
            final double[] bounds = bootstrapBounds(means, floorVariance);
            lowLog = bounds[0];
            highLog = bounds[1];
        }
        final double p = sd == 0 ? (mean > 0 ? 0.0 : 1.0) :
            TTest.withDefaults().with(AlternativeHypothesis.GREATER_THAN).test(d).getPValue();
        return verdict(metric, n, mean, lowLog, highLog, roundsToDecide(mean, sd, n, floorVariance), p);
    }

    /** Decides from unpaired samples (a stored baseline measured at another time): Welch's interval. */
    public Verdict unpaired(final String metric, final double[] baseline, final double[] candidate)
    {
        final double[] a = logs(metric, baseline);
        final double[] b = logs(metric, candidate);
        final double meanA = mean(a);
        final double meanB = mean(b);
        final double diff = meanB - meanA;
        final int n = Math.min(a.length, b.length);
        if (n < MIN_ROUNDS)
        {
            return new Verdict(metric, n, Math.exp(diff), 0.0, Double.POSITIVE_INFINITY, Verdict.Outcome.INCONCLUSIVE,
                MIN_ROUNDS, Double.NaN);
        }
        final double va = variance(a) / a.length;
        final double vb = variance(b) / b.length;
        final double se = Math.sqrt(va + vb);
        final double lowLog;
        final double highLog;
        final double floorVariance = floor.applyAsDouble(metric);
        if (method == Method.T)
        {
            // Welch-Satterthwaite degrees of freedom.
            final double df = se == 0 ? a.length + b.length - 2 : (va + vb) * (va + vb) /
                (va * va / (a.length - 1) + vb * vb / (b.length - 1));
            final double half = halfWidth(tQuantile(df) * se, floorVariance);
            lowLog = diff - half;
            highLog = diff + half;
        }
        else
        {
            final UniformRandomProvider rng = RandomSource.SPLIT_MIX_64.create(seed ^ metric.hashCode());
            final double[] diffs = new double[BOOTSTRAP_RESAMPLES];
            for (int r = 0; r < BOOTSTRAP_RESAMPLES; r++)
            {
                diffs[r] = resampledMean(b, rng) - resampledMean(a, rng);
            }
            final double[] bounds = bootstrapBounds(diffs, floorVariance);
            lowLog = bounds[0];
            highLog = bounds[1];
        }
        final double p = se == 0 ? (diff > 0 ? 0.0 : 1.0) :
            TTest.withDefaults().with(AlternativeHypothesis.GREATER_THAN).test(b, a).getPValue();
        // Rounds per side that would decide, at the same spread on both sides.
        final double pooledSd = Math.sqrt((va * a.length + vb * b.length) / 2.0);
        return verdict(metric, n, diff, lowLog, highLog, roundsToDecide(diff, pooledSd * Math.sqrt(2.0), n,
            floorVariance), p);
    }

    private Verdict verdict(final String metric, final int n, final double meanLog, final double lowLog,
        final double highLog, final int roundsNeeded, final double p)
    {
        final double ratio = Math.exp(meanLog);
        final Verdict.Outcome outcome;
        if (ratio <= 1.0 + thresholdOf(metric))
        {
            outcome = Verdict.Outcome.PASS;
        }
        else if (lowLog > 0)
        {
            outcome = Verdict.Outcome.REGRESSED;
        }
        else
        {
            outcome = Verdict.Outcome.INCONCLUSIVE;
        }
        return new Verdict(metric, n, ratio, Math.exp(lowLog), Math.exp(highLog), outcome,
            outcome == Verdict.Outcome.INCONCLUSIVE ? roundsNeeded : 0, p);
    }

    /**
     * The smallest n whose t interval at spread {@code sd} would exclude 0 around {@code mean}, or 0 when no number
     * of rounds would: the floor alone keeps the interval wider than the estimate (more generations would).
     */
    private int roundsToDecide(final double mean, final double sd, final int n, final double floorVariance)
    {
        if (!(mean > 0))
        {
            return 0;
        }
        for (int k = Math.max(MIN_ROUNDS, n); k <= 1000; k++)
        {
            if (mean - halfWidth(tQuantile(k - 1) * sd / Math.sqrt(k), floorVariance) > 0)
            {
                return k;
            }
        }
        return 0;
    }

    /**
     * The half-width of an interval whose rounds give {@code roundsHalf} and whose floor adds {@code floorVariance}:
     * the two in quadrature, the floor at the normal quantile, since it is a constant measured beforehand over many
     * rounds (its spread is not estimated from these few, so it takes no t penalty).
     */
    private double halfWidth(final double roundsHalf, final double floorVariance)
    {
        final double z = NormalDistribution.of(0, 1).inverseSurvivalProbability(alpha);
        final double floorHalf = z * Math.sqrt(floorVariance);
        return Math.sqrt(roundsHalf * roundsHalf + floorHalf * floorHalf);
    }

    private double tQuantile(final double degreesOfFreedom)
    {
        return TDistribution.of(degreesOfFreedom).inverseSurvivalProbability(alpha);
    }

    /**
     * The bootstrap interval's {low, high} from its resampled statistics (sorted here), widened by the floor as the
     * t interval is: spread no round shows.
     */
    private double[] bootstrapBounds(final double[] resampled, final double floorVariance)
    {
        Arrays.sort(resampled);
        final double low = quantileSorted(resampled, alpha);
        final double high = quantileSorted(resampled, 1.0 - alpha);
        final double centre = (low + high) / 2.0;
        final double half = halfWidth((high - low) / 2.0, floorVariance);
        return new double[] {centre - half, centre + half};
    }

    private static double resampledMean(final double[] values, final UniformRandomProvider rng)
    {
        double sum = 0;
        for (int i = 0; i < values.length; i++)
        {
            sum += values[rng.nextInt(values.length)];
        }
        return sum / values.length;
    }

    private static double[] logs(final String metric, final double[] values)
    {
        final double[] logs = new double[values.length];
        for (int i = 0; i < values.length; i++)
        {
            logs[i] = Math.log(positive(metric, values[i]));
        }
        return logs;
    }

    private static double positive(final String metric, final double value)
    {
        if (!(value > 0) || Double.isInfinite(value))
        {
            throw new IllegalArgumentException(metric + ": a value the gate cannot take the log of: " + value);
        }
        return value;
    }

    static double mean(final double[] values)
    {
        return Mean.of(values).getAsDouble();
    }

    /** The unbiased sample variance (0 for fewer than two values). */
    static double variance(final double[] values)
    {
        return values.length < 2 ? 0.0 : Variance.of(values).getAsDouble();
    }

    /** The {@code q} quantile of sorted values (commons-statistics' default estimator). */
    static double quantileSorted(final double[] sorted, final double q)
    {
        return Quantile.withDefaults().evaluate(sorted, q);
    }
}

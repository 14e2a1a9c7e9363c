package io.syncmirror.perf.gate;

import java.util.Locale;

/**
 * The gate's decision on one metric. Immutable.
 *
 * @param metric       the metric's name, e.g. {@code sync-bench.SYNC.p99_us}
 * @param rounds       rounds (pairs, when paired) the decision used
 * @param ratio        the estimated candidate/baseline ratio (geometric mean of the rounds' ratios)
 * @param lower        the lower bound of its confidence interval
 * @param upper        the upper bound
 * @param outcome      what the gate makes of it
 * @param roundsNeeded for an inconclusive metric, the rounds that would decide it at the same spread; 0 when
 *                     none would (or the metric is decided)
 * @param pValue       the one-sided p-value of "the candidate is slower" (t-test on the log ratios)
 */
public record Verdict(String metric, int rounds, double ratio, double lower, double upper, Outcome outcome,
    int roundsNeeded, double pValue)
{
    /** A metric's outcome. The gate exits 1 if any metric regressed, else 3 if any is inconclusive, else 0. */
    public enum Outcome
    {
        /** The estimate is within the threshold. */
        PASS,
        /** The estimate is beyond the threshold and the interval excludes no change. */
        REGRESSED,
        /** The estimate is beyond the threshold, but the interval includes no change: too noisy to tell. */
        INCONCLUSIVE
    }

    /** The ratio as a signed percentage change, e.g. {@code +12.3%}. */
    public static String percent(final double ratio)
    {
        return String.format(Locale.ROOT, "%+.1f%%", (ratio - 1.0) * 100.0);
    }

    /** One line for people: the metric, its change, the interval and the outcome. */
    public String describe()
    {
        final String base = String.format(Locale.ROOT, "%s: %s (interval %s .. %s, %d rounds, p=%.4f) %s", metric,
            percent(ratio), percent(lower), percent(upper), rounds, pValue, outcome);
        if (outcome != Outcome.INCONCLUSIVE)
        {
            return base;
        }
        return roundsNeeded > 0 ? base + "; about " + roundsNeeded + " rounds would decide at this spread" :
            base + "; no number of rounds of one pair of processes would decide it: more generations would";
    }
}

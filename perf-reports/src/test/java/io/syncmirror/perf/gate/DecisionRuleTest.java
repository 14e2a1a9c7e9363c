package io.syncmirror.perf.gate;

import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DecisionRuleTest
{
    private final DecisionRule rule = DecisionRule.standard(10.0);

    /** {@code n} log-normal values around {@code median} with log spread {@code sigma}, seeded. */
    private static double[] noisy(final long seed, final int n, final double median, final double sigma)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final double[] values = new double[n];
        for (int i = 0; i < n; i++)
        {
            values[i] = median * Math.exp(sigma * gaussian(random));
        }
        return values;
    }

    private static double gaussian(final SplittableRandom random)
    {
        // Box-Muller: SplittableRandom has no nextGaussian on Java 17.
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    private static double[] scaled(final double[] values, final double factor)
    {
        final double[] out = values.clone();
        for (int i = 0; i < out.length; i++)
        {
            out[i] *= factor;
        }
        return out;
    }

    @Test
    void shouldPassIdenticalSidesWithARatioOfOne()
    {
        final double[] a = {100, 110, 95, 105, 102};
        final Verdict v = rule.paired("m", a, a.clone());
        assertEquals(Verdict.Outcome.PASS, v.outcome());
        assertEquals(1.0, v.ratio(), 1e-12);
        assertEquals(1.0, v.lower(), 1e-12);
        assertEquals(1.0, v.upper(), 1e-12);
    }

    @Test
    void shouldFindAConsistentTwentyPercentSlowdownARegression()
    {
        final double[] a = noisy(1, 6, 1000, 0.05);
        final double[] b = scaled(noisy(2, 6, 1000, 0.05), 1.20);
        final Verdict v = rule.paired("m", a, b);
        assertEquals(Verdict.Outcome.REGRESSED, v.outcome(), v.describe());
        assertTrue(v.lower() > 1.0 && v.ratio() > 1.1, v.describe());
        assertTrue(v.pValue() < 0.01, v.describe());
    }

    @Test
    void shouldCallABigButNoisyChangeInconclusiveAndSayHowManyRoundsWouldDecide()
    {
        final double[] a = {1000, 1000, 1000, 1000};
        final double[] b = {1000, 1900, 1000, 1500};
        final Verdict v = rule.paired("m", a, b);
        assertEquals(Verdict.Outcome.INCONCLUSIVE, v.outcome(), v.describe());
        assertTrue(v.ratio() > 1.1 && v.lower() <= 1.0, v.describe());
        assertTrue(v.roundsNeeded() > 4, v.describe());
        assertTrue(v.describe().contains("rounds would decide"), v.describe());
    }

    @Test
    void shouldPassASmallSignificantChangeBelowTheThreshold()
    {
        final double[] a = {1000, 1010, 990, 1005, 995};
        final double[] b = scaled(a, 1.05);
        final Verdict v = rule.paired("m", a, b);
        assertEquals(Verdict.Outcome.PASS, v.outcome(), v.describe());
        assertTrue(v.lower() > 1.0, "significant, but under the threshold: " + v.describe());
    }

    @Test
    void shouldNotDecideFromFewerThanThreeRounds()
    {
        final Verdict v = rule.paired("m", new double[] {1, 1}, new double[] {2, 2});
        assertEquals(Verdict.Outcome.INCONCLUSIVE, v.outcome());
        assertEquals(DecisionRule.MIN_ROUNDS, v.roundsNeeded());
    }

    @Test
    void shouldRefuseValuesItCannotTakeTheLogOf()
    {
        final IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, () ->
            rule.paired("sync-bench.SYNC.p99_us", new double[] {1, 0, 1}, new double[] {1, 1, 1}));
        assertEquals("sync-bench.SYNC.p99_us: a value the gate cannot take the log of: 0.0", ex.getMessage());
        assertThrows(IllegalArgumentException.class, () -> rule.paired("m", new double[] {1}, new double[] {1, 2}));
        assertThrows(IllegalArgumentException.class, () -> new DecisionRule(0, 0.99, DecisionRule.Method.T, 1));
        assertThrows(IllegalArgumentException.class, () -> new DecisionRule(10, 1.0, DecisionRule.Method.T, 1));
    }

    @Test
    void shouldDecideUnpairedSamplesWithWelchsInterval()
    {
        final double[] a = noisy(3, 8, 500, 0.04);
        final double[] b = scaled(noisy(4, 6, 500, 0.04), 1.25);
        assertEquals(Verdict.Outcome.REGRESSED, rule.unpaired("m", a, b).outcome());
        assertEquals(Verdict.Outcome.PASS, rule.unpaired("m", a, noisy(5, 6, 500, 0.04)).outcome());
    }

    /**
     * The rule's false-alarm rate on synthetic A/A runs and its power against a planted shift, seeded: at 5 % log
     * spread per round and 6 rounds, no more than 1 % of A/A runs regress, and a 20 % slowdown is caught in 95 %.
     */
    @Test
    void shouldKeepFalseAlarmsUnderOnePercentAndCatchATwentyPercentShiftOnSeededData()
    {
        final int trials = 2000;
        int falseAlarms = 0;
        int caught = 0;
        for (int t = 0; t < trials; t++)
        {
            final double[] a = noisy(10_000L + t, 6, 1000, 0.05);
            final double[] b = noisy(20_000L + t, 6, 1000, 0.05);
            falseAlarms += rule.paired("m", a, b).outcome() == Verdict.Outcome.REGRESSED ? 1 : 0;
            caught += rule.paired("m", a, scaled(b, 1.20)).outcome() == Verdict.Outcome.REGRESSED ? 1 : 0;
        }
        assertTrue(falseAlarms <= trials / 100, "false alarms " + falseAlarms + " of " + trials);
        assertTrue(caught >= trials * 95 / 100, "caught " + caught + " of " + trials);
    }

    @Test
    void shouldGiveTheBootstrapANarrowerIntervalThanTAtFewRounds()
    {
        // The reason the gate uses t: at 5 rounds the percentile bootstrap does not see the spread it did not draw.
        final double[] a = noisy(7, 5, 1000, 0.08);
        final double[] b = noisy(8, 5, 1000, 0.08);
        final Verdict t = rule.paired("m", a, b);
        final Verdict boot = new DecisionRule(10.0, 0.99, DecisionRule.Method.BOOTSTRAP, 1).paired("m", a, b);
        assertTrue(boot.upper() / boot.lower() < t.upper() / t.lower(), t.describe() + " / " + boot.describe());
    }
}

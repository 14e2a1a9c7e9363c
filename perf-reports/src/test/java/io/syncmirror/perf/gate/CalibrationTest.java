package io.syncmirror.perf.gate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CalibrationTest
{
    /** A pool of rounds whose metric has 5 % log-normal spread, seeded. */
    private static List<Calibration.PooledRound> pool(final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final List<Calibration.PooledRound> pool = new ArrayList<>();
        for (int i = 0; i < 40; i++)
        {
            final double z = Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI *
                random.nextDouble());
            pool.add(new Calibration.PooledRound(Map.of("m", 1000 * Math.exp(0.05 * z))));
        }
        return pool;
    }

    @Test
    void shouldFindFewFalseAlarmsWithoutAShiftAndMostRegressionsWithALargeOne()
    {
        final DecisionRule rule = DecisionRule.standard(10);
        final Calibration.Rates none = Calibration.rates(pool(1), List.of("m"), rule, 6, 1000, 0.0, 7, m -> 0.0);
        final Calibration.Rates large = Calibration.rates(pool(1), List.of("m"), rule, 6, 1000, 0.30, 7, m -> 0.0);
        assertTrue(none.perMetric().get("m")[0] <= 0.01, "false alarms " + none.perMetric().get("m")[0]);
        assertTrue(large.perMetric().get("m")[0] >= 0.95, "caught " + large.perMetric().get("m")[0]);
        assertEquals(large.perMetric().get("m")[0], large.runRegressed(), 1e-12, "one metric: the run is the metric");
    }

    @Test
    void shouldCountAProcessEffectTheRoundsCannotSeeAgainstAFloorlessRule()
    {
        // Every synthetic run draws one candidate-wide effect of 10 % log spread: a rule without a floor takes it
        // for a change; with the floor it keeps its false alarms down.
        final DecisionRule bare = DecisionRule.standard(10);
        final Calibration.Rates unfloored = Calibration.rates(pool(3), List.of("m"), bare, 6, 1000, 0.0, 9,
            m -> 0.01);
        final Calibration.Rates floored = Calibration.rates(pool(3), List.of("m"), bare.withFloor(m -> 0.01), 6,
            1000, 0.0, 9, m -> 0.01);
        assertTrue(unfloored.runRegressed() > 0.05, "without the floor " + unfloored.runRegressed());
        assertTrue(floored.runRegressed() <= 0.01, "with the floor " + floored.runRegressed());
    }

    @Test
    void shouldGiveTheSameFiguresForTheSameSeed()
    {
        final DecisionRule rule = DecisionRule.standard(10);
        assertEquals(Calibration.rates(pool(2), List.of("m"), rule, 5, 500, 0.12, 3, m -> 0.0).perMetric().get("m")[0],
            Calibration.rates(pool(2), List.of("m"), rule, 5, 500, 0.12, 3, m -> 0.0).perMetric().get("m")[0]);
    }

    /** {@code count} seeded A/A runs of 5 rounds, 5 % round noise per side, one process effect per run. */
    private static List<Rounds> runs(final int count, final double processSpread, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final List<Rounds> runs = new ArrayList<>();
        for (int r = 0; r < count; r++)
        {
            final double effect = processSpread * gaussian(random);
            final Rounds rounds = new Rounds();
            for (int i = 1; i <= 5; i++)
            {
                rounds.add(Rounds.BASELINE, i, "sync-bench.ASYNC.p50_us", 600 * Math.exp(0.05 * gaussian(random)),
                    false);
                rounds.add(Rounds.CANDIDATE, i, "sync-bench.ASYNC.p50_us",
                    600 * Math.exp(effect + 0.05 * gaussian(random)), false);
            }
            runs.add(rounds);
        }
        return runs;
    }

    private static double gaussian(final SplittableRandom random)
    {
        return Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    }

    @Test
    void shouldEstimateTheProcessSpreadTheRoundsCannotExplain()
    {
        final double withEffect = Calibration.processSpread(runs(400, 0.04, 11)).get("sync-bench (pooled)");
        final double without = Calibration.processSpread(runs(400, 0.0, 12)).get("sync-bench (pooled)");
        assertEquals(0.04, withEffect, 0.01, "a 4 % process effect per run");
        assertTrue(without < 0.015, "no process effect: the rounds explain the spread of the run means, " + without);
    }

    @Test
    void shouldPoolEveryCompleteRoundOfBothSides()
    {
        final Rounds rounds = new Rounds();
        rounds.add(Rounds.BASELINE, 1, "a", 1, false);
        rounds.add(Rounds.BASELINE, 1, "b", 2, false);
        rounds.add(Rounds.CANDIDATE, 1, "a", 3, false);
        rounds.add(Rounds.CANDIDATE, 1, "b", 4, false);
        rounds.add(Rounds.CANDIDATE, 2, "a", 5, false);
        final List<Calibration.PooledRound> pooled = Calibration.pool(rounds);
        assertEquals(2, pooled.size(), "the candidate's round 2 lacks b");
        assertEquals(Map.of("a", 3.0, "b", 4.0), pooled.get(1).values());
    }
}

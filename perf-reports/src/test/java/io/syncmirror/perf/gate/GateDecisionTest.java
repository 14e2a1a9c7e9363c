package io.syncmirror.perf.gate;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class GateDecisionTest
{
    private static Rounds rounds(final double candidateFactor, final boolean saturated)
    {
        final Rounds rounds = new Rounds();
        final double[] base = {1000, 1040, 980, 1010, 995};
        for (int r = 1; r <= base.length; r++)
        {
            rounds.add(Rounds.BASELINE, r, "sync-bench.ASYNC.p50_us", base[r - 1], false);
            rounds.add(Rounds.CANDIDATE, r, "sync-bench.ASYNC.p50_us", base[r - 1] * candidateFactor * (r % 2 == 0 ?
                1.01 : 0.99), saturated);
            rounds.add(Rounds.BASELINE, r, "jmh.X.y", 50, false);
            rounds.add(Rounds.CANDIDATE, r, "jmh.X.y", 50 * (r % 2 == 0 ? 1.01 : 0.99), false);
        }
        return rounds;
    }

    @Test
    void shouldPassWhenNothingMoved()
    {
        final GateDecision d = GateDecision.decide(rounds(1.0, false), DecisionRule.standard(10), true);
        assertEquals(Verdict.Outcome.PASS, d.overall());
        assertEquals(2, d.verdicts().size());
        assertTrue(d.notes().isEmpty(), d.notes().toString());
    }

    @Test
    void shouldFailTheRunWhenOneMetricRegressed()
    {
        final GateDecision d = GateDecision.decide(rounds(1.3, false), DecisionRule.standard(10), true);
        assertEquals(Verdict.Outcome.REGRESSED, d.overall());
        assertEquals(Verdict.Outcome.REGRESSED, d.verdicts().get(0).outcome());
        assertEquals(Verdict.Outcome.PASS, d.verdicts().get(1).outcome());
    }

    @Test
    void shouldNotDecideFromMostlySaturatedWindows()
    {
        final GateDecision d = GateDecision.decide(rounds(1.0, true), DecisionRule.standard(10), true);
        assertEquals(Verdict.Outcome.INCONCLUSIVE, d.overall());
        assertTrue(d.notes().stream().anyMatch(n -> n.contains("5 of 5 candidate windows were saturated")),
            d.notes().toString());
    }

    @Test
    void shouldNoteAMetricOnlyOneSideHas()
    {
        final Rounds rounds = rounds(1.0, false);
        rounds.add(Rounds.CANDIDATE, 1, "jmh.New.bench", 10, false);
        final GateDecision d = GateDecision.decide(rounds, DecisionRule.standard(10), true);
        assertEquals(Verdict.Outcome.PASS, d.overall());
        assertTrue(d.notes().get(0).startsWith("jmh.New.bench was measured on one side only"), d.notes().toString());
    }
}

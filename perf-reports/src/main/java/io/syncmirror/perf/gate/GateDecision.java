package io.syncmirror.perf.gate;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The whole gate's decision: a {@link Verdict} per metric, the overall outcome, and notes (saturated windows).
 * Immutable.
 */
public record GateDecision(List<Verdict> verdicts, Verdict.Outcome overall, List<String> notes)
{
    /** More than this share of a side's windows saturated makes the whole run inconclusive. */
    public static final double MAX_SATURATED_SHARE = 0.5;

    /** Decides every metric of {@code rounds} with {@code rule}, paired or not. */
    public static GateDecision decide(final Rounds rounds, final DecisionRule rule, final boolean paired)
    {
        final List<Verdict> verdicts = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        for (final String metric : rounds.metrics())
        {
            final double[] baseline = rounds.values(Rounds.BASELINE, metric);
            final double[] candidate = rounds.values(Rounds.CANDIDATE, metric);
            if (baseline.length == 0 || candidate.length == 0)
            {
                notes.add(metric + " was measured on one side only (" + baseline.length + " baseline, "
                    + candidate.length + " candidate rounds): not compared");
                continue;
            }
            if (paired && baseline.length != candidate.length)
            {
                notes.add(metric + " has " + baseline.length + " baseline and " + candidate.length + " candidate "
                    + "rounds: not compared");
                continue;
            }
            verdicts.add(paired ? rule.paired(metric, baseline, candidate) : rule.unpaired(metric, baseline,
                candidate));
        }
        Verdict.Outcome overall = Verdict.Outcome.PASS;
        for (final Verdict v : verdicts)
        {
            if (v.outcome() == Verdict.Outcome.REGRESSED)
            {
                overall = Verdict.Outcome.REGRESSED;
            }
            else if (v.outcome() == Verdict.Outcome.INCONCLUSIVE && overall == Verdict.Outcome.PASS)
            {
                overall = Verdict.Outcome.INCONCLUSIVE;
            }
        }
        for (final String side : List.of(Rounds.BASELINE, Rounds.CANDIDATE))
        {
            final int[] saturation = rounds.saturation(side);
            if (saturation[0] > 0)
            {
                notes.add(String.format(Locale.ROOT, "%d of %d %s windows were saturated (CPU over 80 %% of the "
                    + "machine, or the rate fell short): their latency measures the machine", saturation[0],
                    saturation[1], side));
            }
            if (saturation[1] > 0 && saturation[0] > saturation[1] * MAX_SATURATED_SHARE &&
                overall != Verdict.Outcome.REGRESSED)
            {
                overall = Verdict.Outcome.INCONCLUSIVE;
                notes.add("most " + side + " windows were saturated: the run cannot decide; run it on a quieter "
                    + "machine");
            }
        }
        if (verdicts.isEmpty())
        {
            overall = Verdict.Outcome.INCONCLUSIVE;
            notes.add("no metric was measured on both sides");
        }
        return new GateDecision(List.copyOf(verdicts), overall, List.copyOf(notes));
    }
}

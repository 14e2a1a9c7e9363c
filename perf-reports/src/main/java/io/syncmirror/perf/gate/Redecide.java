package io.syncmirror.perf.gate;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Decides a recorded gate run again from its {@code rounds.csv}, with the rule in its {@code gate.properties} or
 * the thresholds given: {@code java -cp perf-reports.jar io.syncmirror.perf.gate.Redecide DIR [--threshold-pct T]
 * [--tail-threshold-pct T]}. Prints the verdicts and exits as the gate would (0, 1, 3; 2 for a directory it cannot
 * read). A decision is a function of the rounds alone, so this is what the gate would have said under that rule.
 */
public final class Redecide
{
    private Redecide()
    {
    }

    public static void main(final String[] args)
    {
        try
        {
            Path dir = null;
            Double threshold = null;
            Double tail = null;
            Double spread = null;
            for (int i = 0; i < args.length; i++)
            {
                switch (args[i])
                {
                    case "--threshold-pct" -> threshold = Double.parseDouble(args[++i]);
                    case "--tail-threshold-pct" -> tail = Double.parseDouble(args[++i]);
                    case "--process-spread" -> spread = Double.parseDouble(args[++i]);
                    default -> dir = Paths.get(args[i]);
                }
            }
            if (dir == null)
            {
                throw new IllegalArgumentException("usage: Redecide GATE_RESULTS_DIR [--threshold-pct T] "
                    + "[--tail-threshold-pct T] [--process-spread S]");
            }
            final GateResults results = GateResults.read(dir);
            DecisionRule rule = GateReport.ruleOf(results);
            final String floor = spread == null ? results.property("floor", "")
                : Suite.named(results.property("suite.name", "quick")).withProcessSpread(spread).floorDescription();
            if (threshold != null || spread != null)
            {
                rule = new DecisionRule(threshold != null ? threshold : rule.thresholdPct(), rule.confidence(),
                    rule.method(), 1L).withFloor(Suite.parseFloor(floor))
                    .withTailThreshold(tail != null ? tail : rule.tailThresholdPct());
            }
            else if (tail != null)
            {
                rule = rule.withTailThreshold(tail);
            }
            final GateDecision decision = GateDecision.decide(results.rounds(), rule,
                results.property("stored-baseline", "").isEmpty());
            decision.verdicts().forEach(v -> System.out.println(v.describe()));
            decision.notes().forEach(n -> System.out.println("NOTE " + n));
            System.out.println(decision.overall());
            System.exit(switch (decision.overall())
            {
                case PASS -> Gate.EXIT_PASS;
                case REGRESSED -> Gate.EXIT_REGRESSED;
                case INCONCLUSIVE -> Gate.EXIT_INCONCLUSIVE;
            });
        }
        catch (final IOException | IllegalArgumentException ex)
        {
            System.err.println("error: " + ex.getMessage());
            System.exit(Gate.EXIT_ERROR);
        }
    }
}

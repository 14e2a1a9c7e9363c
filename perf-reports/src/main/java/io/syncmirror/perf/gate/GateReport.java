package io.syncmirror.perf.gate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

import org.HdrHistogram.Histogram;

import io.syncmirror.perf.data.LatencyLog;
import io.syncmirror.perf.report.Figures;
import io.syncmirror.perf.report.HtmlPage;

/**
 * A gate run in the HTML report: the verdicts, both sides' pooled latency spectra per mode, and every metric's
 * rounds side by side. Stateless.
 */
public final class GateReport
{
    private GateReport()
    {
    }

    public static void sections(final HtmlPage page, final GateResults results) throws IOException
    {
        final boolean paired = results.property("stored-baseline", "").isEmpty();
        final DecisionRule rule = ruleOf(results);
        final GateDecision decision = GateDecision.decide(results.rounds(), rule, paired);
        page.heading("Regression gate: " + decision.overall());
        page.paragraph("Candidate " + results.property("candidate", "?") + " (" + results.property("candidate.commit",
            "?") + ") against baseline " + results.property("baseline", "?") + " (" + results.property(
            "baseline.commit", "?") + "); " + results.property("suite", "?") + "; machine " + results.property(
            "machine", "?") + (paired ? "; rounds interleaved A B, B A, ..." : "; the baseline is a stored run, so "
            + "this compares two times (perhaps two machines), not two builds side by side") + ".");
        final List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("metric", "change", "interval", "rounds", "p (slower)", "outcome"));
        for (final Verdict v : decision.verdicts())
        {
            rows.add(List.of(v.metric(), Verdict.percent(v.ratio()), Verdict.percent(v.lower()) + " .. "
                + Verdict.percent(v.upper()), Integer.toString(v.rounds()), String.format(Locale.ROOT, "%.4f",
                v.pValue()), v.outcome() + (v.outcome() != Verdict.Outcome.INCONCLUSIVE ? "" : v.roundsNeeded() > 0 ?
                " (about " + v.roundsNeeded() + " rounds would decide)" : " (more generations would decide)")));
        }
        page.table(rows);
        decision.notes().forEach(page::paragraph);
        for (final String mode : Suite.MODES)
        {
            final List<Figures.Spectrum> spectra = new ArrayList<>();
            for (final String side : List.of(Rounds.BASELINE, Rounds.CANDIDATE))
            {
                final Histogram pooled = pooled(results.dir().resolve(side), mode);
                if (pooled != null)
                {
                    spectra.add(new Figures.Spectrum(side + " " + mode, pooled));
                }
            }
            if (!spectra.isEmpty())
            {
                page.figure(Figures.spectrum(mode + ": ack latency, every measured round pooled", spectra).render(),
                    mode + " ack latency of each side, all its measured rounds together (warm windows left out).");
            }
        }
        for (final String metric : results.rounds().metrics())
        {
            final List<Figures.Series> series = new ArrayList<>();
            for (final String side : List.of(Rounds.BASELINE, Rounds.CANDIDATE))
            {
                final double[] values = results.rounds().values(side, metric);
                if (values.length > 0)
                {
                    final double[] x = new double[values.length];
                    for (int i = 0; i < x.length; i++)
                    {
                        x[i] = i + 1;
                    }
                    series.add(new Figures.Series(side, x, values, false));
                }
            }
            page.figure(Figures.lines(metric + " by round", "round", metric.startsWith("jmh.") ? "ns/op" : "µs",
                series, true).render(), metric + " of each round, each side.");
        }
        final List<List<String>> props = new ArrayList<>();
        props.add(List.of("key", "value"));
        results.properties().forEach((k, v) -> props.add(List.of(k, v)));
        page.table(props);
    }

    /** The rule a gate run was decided with, from its {@code gate.properties}. */
    public static DecisionRule ruleOf(final GateResults results)
    {
        final double threshold = Double.parseDouble(results.property("threshold.pct", "10"));
        return new DecisionRule(threshold, Double.parseDouble(results.property("confidence", "0.99")),
            DecisionRule.Method.valueOf(results.property("method", "T")), 1L)
            .withFloor(Suite.parseFloor(results.property("floor", "")))
            .withTailThreshold(Double.parseDouble(results.property("tail-threshold.pct", Double.toString(threshold))));
    }

    /**
     * Every measured round's ack log of {@code mode} under {@code sideDir} (and its generations' directories),
     * added; null when there is none.
     */
    static Histogram pooled(final Path sideDir, final String mode) throws IOException
    {
        if (!Files.isDirectory(sideDir))
        {
            return null;
        }
        final List<Path> logs;
        try (Stream<Path> files = Files.walk(sideDir, 2))
        {
            logs = files.filter(f -> f.getFileName().toString().matches(mode + "-r\\d+-ack\\.hlog")).sorted().toList();
        }
        if (logs.isEmpty())
        {
            return null;
        }
        final Histogram pooled = new Histogram(3);
        for (final Path log : logs)
        {
            pooled.add(LatencyLog.read(log).total());
        }
        return pooled;
    }
}

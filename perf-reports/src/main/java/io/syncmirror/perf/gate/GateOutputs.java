package io.syncmirror.perf.gate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

import io.syncmirror.perf.svg.Html;

/**
 * The gate's machine- and people-readable outputs: {@code junit.xml} (one test case per metric, a failure per
 * regression, a skip per inconclusive metric, so CI systems show the gate as tests) and {@code summary.md} (for a
 * pull request comment). Stateless.
 */
public final class GateOutputs
{
    private GateOutputs()
    {
    }

    public static void write(final Path dir, final GateOptions options, final GateDecision decision,
        final double minutes, final boolean stored) throws IOException
    {
        Files.writeString(dir.resolve("junit.xml"), junit(decision, minutes), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("summary.md"), markdown(options, decision, minutes, stored),
            StandardCharsets.UTF_8);
    }

    static String junit(final GateDecision decision, final double minutes)
    {
        final StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        final long failures = decision.verdicts().stream().filter(v -> v.outcome() == Verdict.Outcome.REGRESSED)
            .count();
        final long skipped = decision.verdicts().stream().filter(v -> v.outcome() == Verdict.Outcome.INCONCLUSIVE)
            .count();
        xml.append(String.format(Locale.ROOT, "<testsuite name=\"syncmirror-regression-gate\" tests=\"%d\" "
            + "failures=\"%d\" errors=\"0\" skipped=\"%d\" time=\"%.1f\">%n", decision.verdicts().size(), failures,
            skipped, minutes * 60));
        for (final Verdict v : decision.verdicts())
        {
            xml.append(String.format(Locale.ROOT, "  <testcase classname=\"gate\" name=\"%s\">%n",
                Html.escape(v.metric())));
            if (v.outcome() == Verdict.Outcome.REGRESSED)
            {
                xml.append("    <failure message=\"").append(Html.escape(v.describe())).append("\"/>\n");
            }
            else if (v.outcome() == Verdict.Outcome.INCONCLUSIVE)
            {
                xml.append("    <skipped message=\"").append(Html.escape(v.describe())).append("\"/>\n");
            }
            xml.append("    <system-out>").append(Html.escape(v.describe())).append("</system-out>\n");
            xml.append("  </testcase>\n");
        }
        xml.append("</testsuite>\n");
        return xml.toString();
    }

    static String markdown(final GateOptions options, final GateDecision decision, final double minutes,
        final boolean stored)
    {
        final List<String> lines = new ArrayList<>();
        final String badge = switch (decision.overall())
        {
            case PASS -> "no regression";
            case REGRESSED -> "REGRESSION";
            case INCONCLUSIVE -> "inconclusive";
        };
        lines.add("## Latency regression gate: " + badge);
        lines.add("");
        lines.add(String.format(Locale.ROOT, "Candidate `%s` against baseline `%s`, suite %s, %d rounds, threshold "
                + "%.1f %% (p99: %.1f %%), %.0f %% one-sided confidence (%s), %.1f min.", options.candidateName(),
            options.baselineName(), options.suite().name(), options.rounds(), options.thresholdPct(),
            options.tailThresholdPct(),
            options.confidence() * 100, options.method() == DecisionRule.Method.T ? "Student's t on paired log "
                + "ratios" : "bootstrap", minutes));
        if (stored)
        {
            lines.add("");
            lines.add("**The baseline is a stored run**: this compares two times (and perhaps two machines), not two "
                + "builds measured side by side.");
        }
        lines.add("");
        lines.add("| metric | change | interval | rounds | outcome |");
        lines.add("|---|---|---|---|---|");
        for (final Verdict v : decision.verdicts())
        {
            final String outcome = v.outcome() != Verdict.Outcome.INCONCLUSIVE ? v.outcome().name() :
                v.roundsNeeded() > 0 ? "INCONCLUSIVE (about " + v.roundsNeeded() + " rounds would decide)" :
                "INCONCLUSIVE (more generations would decide, not more rounds)";
            lines.add(String.format(Locale.ROOT, "| `%s` | %s | %s .. %s | %d | %s |", v.metric(),
                Verdict.percent(v.ratio()), Verdict.percent(v.lower()), Verdict.percent(v.upper()), v.rounds(),
                outcome));
        }
        if (!decision.notes().isEmpty())
        {
            lines.add("");
            decision.notes().forEach(n -> lines.add("- " + n));
        }
        lines.add("");
        lines.add("A metric regressed when its estimated change exceeds the threshold and its interval excludes no "
            + "change; it is inconclusive when the estimate exceeds the threshold but the interval reaches no "
            + "change. Lower is better for every metric (latency in µs, JMH in ns/op).");
        return String.join("\n", lines) + "\n";
    }
}

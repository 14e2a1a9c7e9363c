package io.syncmirror.perf.gate;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The gate's command line as {@code bin/syncmirror-gate.sh} passes it, after the script has built both sides.
 * Immutable. Every bad value is an {@link IllegalArgumentException} naming the flag.
 *
 * @param baseline        a built checkout to measure, or null with {@code storedBaseline}
 * @param storedBaseline  an earlier gate run's results directory whose candidate rounds are the baseline, or null
 * @param baselineName    how the baseline is named in the outputs (its ref, or its directory)
 */
public record GateOptions(Path baseline, Path storedBaseline, String baselineName, String baselineCommit,
    Path candidate, String candidateName, String candidateCommit, Suite suite, double thresholdPct,
    double tailThresholdPct, double confidence, int rounds, Path out, DecisionRule.Method method)
{
    public static final String USAGE = String.join(System.lineSeparator(),
        "usage: bin/syncmirror-gate.sh --baseline <git-ref | built checkout dir | gate results dir>",
        "                              [--candidate <git-ref | checkout dir>] (default: the working tree)",
        "                              [--suite quick|full] [--threshold-pct 10] [--tail-threshold-pct 25]",
        "                              [--rounds N] [--confidence 0.99]",
        "                              [--out DIR] [--method t|bootstrap]",
        "Exit status: 0 no regression, 1 a metric regressed beyond the threshold with confidence, 2 could not",
        "run, 3 inconclusive (too noisy to decide; the summary says how many rounds would decide).");

    /**
     * The default threshold of the p99 metrics: in A/A runs of the quick suite a round's p99 ratio has a log
     * spread of about 0.3 against 0.1 for its p50 (docs/regression-gate.md), so at the p50's 10 % the tail would be
     * inconclusive in most runs.
     */
    public static final double DEFAULT_TAIL_THRESHOLD_PCT = 25.0;

    /** Parses the Java side's flags: {@code --baseline-dir|--stored-baseline}, {@code --candidate-dir}, ... */
    public static GateOptions parse(final String[] args)
    {
        Path baseline = null;
        Path stored = null;
        String baselineName = null;
        String baselineCommit = "unknown";
        Path candidate = null;
        String candidateName = null;
        String candidateCommit = "unknown";
        Suite suite = Suite.quick();
        double threshold = 10.0;
        double tailThreshold = DEFAULT_TAIL_THRESHOLD_PCT;
        double confidence = 0.99;
        int rounds = -1;
        Path out = null;
        DecisionRule.Method method = DecisionRule.Method.T;
        for (int i = 0; i < args.length; i++)
        {
            final String flag = args[i];
            switch (flag)
            {
                case "--baseline-dir" -> baseline = dir(value(args, ++i, flag), flag);
                case "--stored-baseline" -> stored = dir(value(args, ++i, flag), flag);
                case "--baseline-name" -> baselineName = value(args, ++i, flag);
                case "--candidate-dir" -> candidate = dir(value(args, ++i, flag), flag);
                case "--candidate-name" -> candidateName = value(args, ++i, flag);
                case "--baseline-commit" -> baselineCommit = value(args, ++i, flag);
                case "--candidate-commit" -> candidateCommit = value(args, ++i, flag);
                case "--suite" -> suite = Suite.named(value(args, ++i, flag));
                case "--threshold-pct" -> threshold = number(value(args, ++i, flag), flag, 0.1, 500);
                case "--tail-threshold-pct" -> tailThreshold = number(value(args, ++i, flag), flag, 0.1, 500);
                case "--confidence" -> confidence = number(value(args, ++i, flag), flag, 0.8, 0.9999);
                case "--rounds" -> rounds = (int)number(value(args, ++i, flag), flag, DecisionRule.MIN_ROUNDS, 200);
                case "--out" -> out = Paths.get(value(args, ++i, flag));
                case "--method" -> method = method(value(args, ++i, flag));
                default -> throw new IllegalArgumentException("unknown flag: " + flag);
            }
        }
        if ((baseline == null) == (stored == null))
        {
            throw new IllegalArgumentException("give exactly one of --baseline-dir and --stored-baseline");
        }
        if (candidate == null)
        {
            throw new IllegalArgumentException("--candidate-dir is missing");
        }
        if (out == null)
        {
            throw new IllegalArgumentException("--out is missing");
        }
        return new GateOptions(baseline, stored, baselineName != null ? baselineName :
            String.valueOf(baseline != null ? baseline : stored), baselineCommit, candidate,
            candidateName != null ? candidateName : candidate.toString(), candidateCommit, suite, threshold,
            tailThreshold, confidence, rounds > 0 ? rounds : suite.defaultRounds(), out, method);
    }

    private static String value(final String[] args, final int index, final String flag)
    {
        if (index >= args.length || args[index].startsWith("--"))
        {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }

    private static Path dir(final String text, final String flag)
    {
        final Path path = Paths.get(text);
        if (!Files.isDirectory(path))
        {
            throw new IllegalArgumentException(flag + ": no such directory: " + text);
        }
        return path;
    }

    private static double number(final String text, final String flag, final double min, final double max)
    {
        final double value;
        try
        {
            value = Double.parseDouble(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(flag + " needs a number: '" + text + "'", ex);
        }
        if (!(value >= min && value <= max))
        {
            throw new IllegalArgumentException(flag + " must be " + min + ".." + max + ": " + text);
        }
        return value;
    }

    private static DecisionRule.Method method(final String text)
    {
        return switch (text)
        {
            case "t" -> DecisionRule.Method.T;
            case "bootstrap" -> DecisionRule.Method.BOOTSTRAP;
            default -> throw new IllegalArgumentException("--method takes t or bootstrap: '" + text + "'");
        };
    }
}

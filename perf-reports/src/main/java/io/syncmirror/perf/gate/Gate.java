package io.syncmirror.perf.gate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

import io.syncmirror.perf.data.ResultLine;
import io.syncmirror.perf.report.HtmlPage;

/**
 * The latency regression gate, run by {@code bin/syncmirror-gate.sh} once both builds exist: measures the baseline
 * and the candidate in interleaved rounds (A B, then B A, ...: each pair seconds apart, neither side always first),
 * decides every metric with a {@link DecisionRule}, and writes {@code rounds.csv}, {@code summary.md},
 * {@code junit.xml} and {@code report.html} in its results directory. Against a stored baseline (an earlier gate
 * run's directory) only the candidate runs, and the decision is unpaired: that compares two times, perhaps two
 * machines, not two builds, and the summary says so.
 *
 * <p>Exit status: 0 no regression, 1 a regression, 2 could not run, 3 inconclusive. Single-threaded.
 */
public final class Gate
{
    public static final int EXIT_PASS = 0;
    public static final int EXIT_REGRESSED = 1;
    public static final int EXIT_ERROR = 2;
    public static final int EXIT_INCONCLUSIVE = 3;
    private static final long SETUP_TIMEOUT_S = 300;
    private static final long JMH_TIMEOUT_S = 600;
    /** The most windows a side settles alone after the shared warm-up. */
    private static final int MAX_SETTLE = 3;

    private final GateOptions options;
    private final Rounds rounds = new Rounds();
    /** The run's start second: with the generation, it decides which side is set up first. */
    private final long startSecond = Instant.now().getEpochSecond();

    private Gate(final GateOptions options)
    {
        this.options = options;
    }

    public static void main(final String[] args)
    {
        final GateOptions options;
        try
        {
            options = GateOptions.parse(args);
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("error: " + ex.getMessage());
            System.err.println(GateOptions.USAGE);
            System.exit(EXIT_ERROR);
            return;
        }
        int status;
        try
        {
            status = new Gate(options).run();
        }
        catch (final GateException | IOException ex)
        {
            System.err.println("error: the gate could not run: " + ex.getMessage());
            status = EXIT_ERROR;
        }
        System.exit(status);
    }

    private int run() throws GateException, IOException
    {
        final long startNs = System.nanoTime();
        final Path out = options.out();
        Files.createDirectories(out);
        final GateResults stored = options.storedBaseline() == null ? null : storedBaseline();
        writeProperties(stored);
        System.out.println("gate: " + options.suite().describe());
        System.out.println("gate: baseline " + options.baselineName() + ", candidate " + options.candidateName()
            + ", " + options.rounds() + " rounds, threshold " + options.thresholdPct() + " % (p99: "
            + options.tailThresholdPct() + " %), results in " + out);
        if (stored != null)
        {
            System.out.println("gate: NOTE the baseline is a stored run (" + options.storedBaseline() + "): this "
                + "compares two times" + (sameMachine(stored) ? "" : " and two machines") + ", not two builds "
                + "measured side by side");
        }
        final List<Side> sides = new ArrayList<>();
        if (stored == null)
        {
            sides.add(new Side(Rounds.BASELINE, options.baseline()));
        }
        sides.add(new Side(Rounds.CANDIDATE, options.candidate()));
        measureBench(sides);
        measureJmh(sides);
        if (stored != null)
        {
            stored.rounds().samples().stream().filter(s -> s.side().equals(Rounds.CANDIDATE)).forEach(s ->
                rounds.add(Rounds.BASELINE, s.round(), s.metric(), s.value(), s.saturated()));
        }
        rounds.write(out.resolve(GateResults.ROUNDS));
        final DecisionRule rule = new DecisionRule(options.thresholdPct(), options.confidence(), options.method(),
            1L).withFloor(options.suite().floorVariances()).withTailThreshold(options.tailThresholdPct());
        final GateDecision decision = GateDecision.decide(rounds, rule, stored == null);
        final double minutes = (System.nanoTime() - startNs) / 60e9;
        GateOutputs.write(out, options, decision, minutes, stored != null);
        final HtmlPage page = new HtmlPage("syncmirror regression gate: " + options.candidateName() + " against "
            + options.baselineName());
        GateReport.sections(page, GateResults.read(out));
        Files.writeString(out.resolve("report.html"), page.render(), StandardCharsets.UTF_8);
        decision.verdicts().forEach(v -> System.out.println("gate: " + v.describe()));
        decision.notes().forEach(n -> System.out.println("gate: NOTE " + n));
        System.out.printf(Locale.ROOT, "gate: %s after %.1f min; summary %s%n", decision.overall(), minutes,
            out.resolve("summary.md"));
        return switch (decision.overall())
        {
            case PASS -> EXIT_PASS;
            case REGRESSED -> EXIT_REGRESSED;
            case INCONCLUSIVE -> EXIT_INCONCLUSIVE;
        };
    }

    /** A side the gate runs: its name and its built checkout. */
    private record Side(String name, Path checkout)
    {
    }

    /**
     * The sync bench rounds, in the suite's generations: each generation starts both sides' benches afresh (one
     * process per side), warms them, and measures its share of the rounds of each mode, A B then B A. Two JVMs of
     * one build differ for their whole life (JIT decisions, heap sizing, hash layouts), by up to about 5-10 % on
     * this machine; rounds within one pair of processes cannot see that, more generations average it.
     */
    private void measureBench(final List<Side> sides) throws GateException, IOException
    {
        final int generations = Math.min(options.suite().generations(), options.rounds());
        int first = 1;
        for (int g = 1; g <= generations; g++)
        {
            final int last = options.rounds() * g / generations;
            measureGeneration(sides, g, first, last);
            first = last + 1;
        }
    }

    private void measureGeneration(final List<Side> sides, final int generation, final int firstRound,
        final int lastRound) throws GateException, IOException
    {
        final List<BenchServer> servers = new ArrayList<>();
        try
        {
            // One side is set up at a time, so that each JVM's JIT has the machine while its brokers start; which
            // side goes first alternates with the generation and the run's start second, so that no side always
            // starts first (an order that, repeated in every run, would be a bias the rounds cannot cancel).
            final boolean candidateFirst = ((generation + startSecond) & 1) == 1 && sides.size() > 1;
            final List<Integer> setupOrder = candidateFirst ? List.of(1, 0) : orderList(1, sides.size());
            final BenchServer[] started = new BenchServer[sides.size()];
            for (final int s : setupOrder)
            {
                final Side side = sides.get(s);
                System.out.println("gate: starting " + side.name() + "'s bench from " + side.checkout()
                    + " (generation " + generation + ")");
                started[s] = BenchServer.launch(side.name(), side.checkout(), options.suite(),
                    options.out().resolve(side.name()).resolve("g" + generation));
                servers.add(started[s]);
                started[s].awaitReady(SETUP_TIMEOUT_S);
            }
            servers.clear();
            servers.addAll(List.of(started));
            final long windowTimeout = 60L + 3L * (options.suite().warmupSeconds() + options.suite().durationSeconds());
            for (final String mode : Suite.MODES)
            {
                if (mode.equals("SYNC"))
                {
                    for (final BenchServer server : servers)
                    {
                        server.startPromote();
                    }
                    for (final BenchServer server : servers)
                    {
                        server.awaitPromote(SETUP_TIMEOUT_S);
                    }
                }
                // Both sides warm at once: the JIT and the clusters settle, and nothing of it is counted.
                final int warmSeconds = mode.equals("ASYNC") ? options.suite().warmAsyncSeconds() :
                    options.suite().warmSyncSeconds();
                for (final BenchServer server : servers)
                {
                    server.startMeasure(mode, mode + "-warm", warmSeconds);
                }
                for (final BenchServer server : servers)
                {
                    server.awaitMeasure(mode, mode + "-warm", windowTimeout + 2L * warmSeconds);
                }
                // That warm-up ran both at once on a saturated machine; then each side alone, until a window of it
                // no longer saturates the machine (the JIT is done), at most MAX_SETTLE windows.
                for (final BenchServer server : servers)
                {
                    for (int k = 1; k <= MAX_SETTLE; k++)
                    {
                        final ResultLine settle = server.measure(mode, mode + "-settle" + k, windowTimeout);
                        if (!Boolean.parseBoolean(settle.fields().getOrDefault("saturated", "false")))
                        {
                            break;
                        }
                    }
                }
                for (int round = firstRound; round <= lastRound; round++)
                {
                    for (final int s : orderList(round, servers.size()))
                    {
                        final ResultLine result = servers.get(s).measure(mode, mode + "-r" + round, windowTimeout);
                        record(sides.get(s).name(), round, mode, result);
                    }
                    System.out.printf(Locale.ROOT, "gate: %s round %d of %d done%n", mode, round, options.rounds());
                    rounds.write(options.out().resolve(GateResults.ROUNDS));
                }
            }
        }
        finally
        {
            servers.forEach(BenchServer::quit);
            servers.forEach(BenchServer::close);
        }
    }

    private void measureJmh(final List<Side> sides) throws GateException, IOException
    {
        for (int round = 1; round <= options.rounds(); round++)
        {
            for (final int s : orderList(round, sides.size()))
            {
                final Side side = sides.get(s);
                final int thisRound = round;
                final Map<String, Double> scores = JmhRun.run(side.name(), side.checkout(), options.suite(),
                    options.out().resolve(side.name()).resolve("jmh-r" + round + ".json"), JMH_TIMEOUT_S);
                scores.forEach((metric, score) -> rounds.add(side.name(), thisRound, metric, score, false));
            }
            System.out.printf(Locale.ROOT, "gate: JMH round %d of %d done%n", round, options.rounds());
            rounds.write(options.out().resolve(GateResults.ROUNDS));
        }
    }

    /** The order of the sides in {@code round}: A B in odd rounds, B A in even ones, so neither is always first. */
    static List<Integer> orderList(final int round, final int sides)
    {
        final List<Integer> order = new ArrayList<>();
        for (int i = 0; i < sides; i++)
        {
            order.add(round % 2 == 1 ? i : sides - 1 - i);
        }
        return order;
    }

    private void record(final String side, final int round, final String mode, final ResultLine result)
    {
        final boolean saturated = Boolean.parseBoolean(result.fields().getOrDefault("saturated", "false"));
        for (final String percentile : Suite.PERCENTILES)
        {
            rounds.add(side, round, Suite.latencyMetric(mode, percentile), result.number(percentile), saturated);
        }
    }

    private GateResults storedBaseline() throws GateException
    {
        final GateResults stored;
        try
        {
            stored = GateResults.read(options.storedBaseline());
        }
        catch (final IOException ex)
        {
            throw new GateException("the stored baseline cannot be read: " + ex.getMessage(), ex);
        }
        final String suite = stored.property("suite", "");
        if (!suite.equals(options.suite().describe()))
        {
            throw new GateException("the stored baseline " + options.storedBaseline() + " ran another suite or "
                + "benchmark version: '" + suite + "', this gate runs '" + options.suite().describe() + "'");
        }
        if (stored.rounds().samples().stream().noneMatch(s -> s.side().equals(Rounds.CANDIDATE)))
        {
            throw new GateException("the stored baseline " + options.storedBaseline() + " holds no candidate rounds");
        }
        return stored;
    }

    private boolean sameMachine(final GateResults stored)
    {
        return stored.property("machine", "").equals(machine());
    }

    private void writeProperties(final GateResults stored) throws IOException
    {
        final Map<String, String> values = new TreeMap<>();
        values.put("suite", options.suite().describe());
        values.put("suite.name", options.suite().name());
        values.put("baseline", options.baselineName());
        values.put("candidate", options.candidateName());
        values.put("baseline.commit", stored != null ? stored.property("candidate.commit", "unknown") :
            options.baselineCommit());
        values.put("candidate.commit", options.candidateCommit());
        values.put("stored-baseline", stored == null ? "" : options.storedBaseline().toString());
        values.put("threshold.pct", Double.toString(options.thresholdPct()));
        values.put("tail-threshold.pct", Double.toString(options.tailThresholdPct()));
        values.put("confidence", Double.toString(options.confidence()));
        values.put("method", options.method().name());
        values.put("rounds", Integer.toString(options.rounds()));
        values.put("floor", options.suite().floorDescription());
        values.put("machine", machine());
        values.put("started", Instant.ofEpochSecond(startSecond).toString());
        GateResults.writeProperties(options.out(), values);
    }

    /** The machine, as far as it decides whether two stored runs compare: cores, CPU model, OS, JVM. */
    static String machine()
    {
        String cpu = System.getProperty("os.arch");
        try
        {
            for (final String line : Files.readAllLines(Path.of("/proc/cpuinfo"), StandardCharsets.UTF_8))
            {
                if (line.startsWith("model name"))
                {
                    cpu = line.substring(line.indexOf(':') + 1).trim();
                    break;
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // Not Linux: the architecture stands in.
        }
        return Runtime.getRuntime().availableProcessors() + " cores, " + cpu + ", " + System.getProperty("os.name")
            + ", Java " + System.getProperty("java.runtime.version");
    }
}

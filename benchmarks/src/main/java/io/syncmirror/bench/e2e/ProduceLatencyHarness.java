package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

import org.HdrHistogram.Histogram;

/**
 * The end-to-end produce latency harness: for each topology, alternating rounds of the reference broker ("ours")
 * and real Kafka 4.4, each round on a freshly started cluster, measuring a real idempotent acks=all producer at a
 * fixed rate (see {@link PacedProducer}). Single-threaded; each round's cluster and producer are closed before
 * the next round starts.
 *
 * <pre>
 *   java -cp benchmarks.jar io.syncmirror.bench.e2e.ProduceLatencyHarness [flags]   (see {@link HarnessOptions#USAGE})
 *
 *   ROUND topo=&lt;t&gt; system=&lt;s&gt; round=&lt;r&gt; count=&lt;acks&gt; sent=&lt;n&gt; errors=&lt;n&gt; p50_us=.. p99_us=.. p999_us=.. max_us=.. cpu_pct=..
 *   E2E system=&lt;s&gt; topo=&lt;t&gt; rounds=&lt;r&gt; p50_us=&lt;median over rounds&gt; p99_us=.. p999_us=..
 *   E2E_RATIO topo=&lt;t&gt; p50=&lt;ours/kafka&gt; p99=.. p999=..
 * </pre>
 *
 * <p>Systems alternate round by round so that whatever else the shared machine does drifts over both alike, and
 * every round starts a fresh cluster so that no round inherits another's log segments, page cache or leader
 * placement. The summary takes each system's median over rounds of each percentile: one round disturbed by a
 * neighbour moves the median less than the mean. A ratio below 1 means ours is faster.
 *
 * <p>Exit status: 0 when every message was acknowledged, 2 for a bad flag (with the usage text), 3 when some
 * messages failed (the figures are still printed), 1 when a cluster failed to start or the run broke.
 */
public final class ProduceLatencyHarness
{
    /** The exit status for a bad command line. */
    public static final int EXIT_USAGE = 2;
    /** The exit status when some messages were not acknowledged. */
    public static final int EXIT_FAILED_MESSAGES = 3;
    /** The name of the file that repeats the printed ROUND and E2E lines in the output directory. */
    public static final String SUMMARY_FILE = "summary.txt";

    /**
     * One round's figures, in microseconds. Immutable.
     *
     * @param count acknowledged messages in the histogram
     */
    public record RoundFigures(String topology, String system, int round, long count, long sent, long errors,
        long p50Us, long p99Us, long p999Us, long maxUs, double cpuPercent)
    {
        static RoundFigures of(final String topology, final String system, final int round,
            final PacedProducer.PhaseResult result)
        {
            final Histogram histogram = result.histogram();
            return new RoundFigures(topology, system, round, histogram.getTotalCount(), result.sent(),
                result.errors(), histogram.getValueAtPercentile(50.0), histogram.getValueAtPercentile(99.0),
                histogram.getValueAtPercentile(99.9), histogram.getMaxValue(), result.cpuPercent());
        }
    }

    private static TlsSetup tlsSetup;

    private ProduceLatencyHarness()
    {
    }

    public static void main(final String[] args)
    {
        if (HarnessOptions.wantsHelp(args))
        {
            System.out.println(HarnessOptions.USAGE);
            System.exit(0);
        }
        final HarnessOptions options;
        try
        {
            options = HarnessOptions.parse(args, OursClusterFactory.isAvailable());
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("error: " + ex.getMessage());
            System.err.println(HarnessOptions.USAGE);
            System.exit(EXIT_USAGE);
            return;
        }
        int status;
        try
        {
            status = run(options, System.out);
        }
        catch (final Exception ex)
        {
            ex.printStackTrace();
            status = 1;
        }
        // Kafka leaves a few non-daemon threads of its own (metrics reporters, JMX) behind after a clean close.
        System.exit(status);
    }

    /** Runs every round of {@code options}, printing as it goes; returns the exit status. */
    public static int run(final HarnessOptions options, final PrintStream out) throws Exception
    {
        if (options.out() != null)
        {
            Files.createDirectories(options.out());
        }
        if (!options.systems().contains(OursClusterFactory.NAME))
        {
            out.println("note: measuring " + String.join(",", options.systems()) +
                " only; the reference broker is not among the systems");
        }
        final List<String> reportLines = new ArrayList<>();
        boolean anyFailed = false;
        for (final Topology topology : options.topologies())
        {
            out.printf(Locale.ROOT, "== %s: %s; %d partition(s), %d msg/s, %d B, %d s warm-up, %d s measured, %d " +
                    "round(s)%n", topology.name(), topology.describe(), options.partitions(), options.ratePerSecond(),
                options.messageBytes(), options.warmupSeconds(), options.measureSeconds(), options.rounds());
            final List<RoundFigures> rounds = new ArrayList<>();
            for (int round = 1; round <= options.rounds(); round++)
            {
                for (final String system : options.systems())
                {
                    final RoundFigures figures = runRound(options, topology, system, round, out);
                    anyFailed |= figures.errors() > 0 || figures.count() < figures.sent();
                    rounds.add(figures);
                    final String line = roundLine(figures);
                    out.println(line);
                    reportLines.add(line);
                }
            }
            final List<String> summary = summary(topology, options.systems(), rounds);
            summary.forEach(out::println);
            summary.stream().filter((line) -> line.startsWith("E2E")).forEach(reportLines::add);
        }
        if (options.out() != null)
        {
            Files.write(options.out().resolve(SUMMARY_FILE), reportLines, StandardCharsets.UTF_8);
            out.println("results in " + options.out().toAbsolutePath().normalize());
        }
        return anyFailed ? EXIT_FAILED_MESSAGES : 0;
    }

    private static RoundFigures runRound(final HarnessOptions options, final Topology topology, final String system,
        final int round, final PrintStream out) throws Exception
    {
        final long startNs = System.nanoTime();
        final PacedProducer.PhaseResult result;
        try (ClusterUnderTest cluster = factory(system).start(topology.brokers()))
        {
            cluster.createTopic(PacedProducer.TOPIC, options.partitions(), topology.replicationFactor(),
                Map.of("min.insync.replicas", Integer.toString(topology.minInsyncReplicas())));
            out.printf(Locale.ROOT, "  %s %s round %d: cluster up and topic ready in %.1f s%n", system,
                topology.name(), round, (System.nanoTime() - startNs) / 1e9);
            result = PacedProducer.run(cluster.bootstrapServers(),
                "e2e-" + system + "-" + topology.name() + "-r" + round, options, cluster.clientConfigs());
        }
        // Leave the next round a heap without this round's garbage, so a collection it did not cause does not land
        // in its measurement.
        System.gc();
        if (options.out() != null)
        {
            writeHistogram(options.out().resolve(topology.name() + "-" + system + "-round" + round + ".hgrm"),
                result.histogram());
        }
        return RoundFigures.of(topology.name(), system, round, result);
    }

    static ClusterFactory factory(final String system) throws IOException, InterruptedException
    {
        return switch (system)
        {
            case KafkaReferenceCluster.NAME -> KafkaReferenceCluster::start;
            case OursClusterFactory.NAME -> new OursClusterFactory();
            case KafkaReferenceCluster.TLS_NAME ->
            {
                final TlsSetup tls = tls();
                yield nodes -> KafkaReferenceCluster.startTls(nodes, tls);
            }
            case OursClusterFactory.TLS_NAME -> new OursClusterFactory(tls());
            default -> throw new IllegalArgumentException("unknown system: " + system);
        };
    }

    /** The run's one TLS certificate, made on first use: both systems' TLS rounds use the same stores. */
    private static synchronized TlsSetup tls() throws IOException, InterruptedException
    {
        if (tlsSetup == null)
        {
            tlsSetup = TlsSetup.create();
        }
        return tlsSetup;
    }

    static String roundLine(final RoundFigures figures)
    {
        return String.format(Locale.ROOT, "ROUND topo=%s system=%s round=%d count=%d sent=%d errors=%d p50_us=%d " +
                "p99_us=%d p999_us=%d max_us=%d cpu_pct=%.0f", figures.topology(), figures.system(), figures.round(),
            figures.count(), figures.sent(), figures.errors(), figures.p50Us(), figures.p99Us(), figures.p999Us(),
            figures.maxUs(), figures.cpuPercent());
    }

    /**
     * The summary of one topology: a table of each system's median over rounds of p50, p99 and p99.9, the ratio
     * ours/kafka when both ran, then one {@code E2E} line per system and an {@code E2E_RATIO} line.
     */
    static List<String> summary(final Topology topology, final List<String> systems, final List<RoundFigures> rounds)
    {
        final List<String> table = new ArrayList<>();
        final List<String> machine = new ArrayList<>();
        table.add(String.format(Locale.ROOT, "-- %s (%s): median over rounds, microseconds", topology.name(),
            topology.describe()));
        table.add(String.format(Locale.ROOT, "%-18s %10s %10s %10s %7s", "system", "p50", "p99", "p99.9", "rounds"));
        final Map<String, double[]> bySystem = new HashMap<>();
        for (final String system : systems)
        {
            final List<RoundFigures> own = rounds.stream()
                .filter((figures) -> figures.system().equals(system) && figures.topology().equals(topology.name()))
                .toList();
            final double[] medians = {
                median(own.stream().mapToDouble(RoundFigures::p50Us).toArray()),
                median(own.stream().mapToDouble(RoundFigures::p99Us).toArray()),
                median(own.stream().mapToDouble(RoundFigures::p999Us).toArray()) };
            table.add(String.format(Locale.ROOT, "%-18s %10.0f %10.0f %10.0f %7d", system, medians[0], medians[1],
                medians[2], own.size()));
            machine.add(String.format(Locale.ROOT, "E2E system=%s topo=%s rounds=%d p50_us=%.1f p99_us=%.1f " +
                "p999_us=%.1f", system, topology.name(), own.size(), medians[0], medians[1], medians[2]));
            bySystem.put(system, medians);
        }
        final double[] ours = bySystem.get(OursClusterFactory.NAME);
        final double[] kafka = bySystem.get(KafkaReferenceCluster.NAME);
        if (ours != null && kafka != null)
        {
            table.add(String.format(Locale.ROOT, "%-18s %10.2f %10.2f %10.2f", "ours/kafka", ours[0] / kafka[0],
                ours[1] / kafka[1], ours[2] / kafka[2]));
            machine.add(String.format(Locale.ROOT, "E2E_RATIO topo=%s p50=%.3f p99=%.3f p999=%.3f", topology.name(),
                ours[0] / kafka[0], ours[1] / kafka[1], ours[2] / kafka[2]));
        }
        // What TLS costs each system, and the two in TLS side by side.
        for (final String[] pair : new String[][] {
            {OursClusterFactory.TLS_NAME, OursClusterFactory.NAME},
            {KafkaReferenceCluster.TLS_NAME, KafkaReferenceCluster.NAME},
            {OursClusterFactory.TLS_NAME, KafkaReferenceCluster.TLS_NAME}})
        {
            final double[] a = bySystem.get(pair[0]);
            final double[] b = bySystem.get(pair[1]);
            if (a != null && b != null)
            {
                final String name = pair[0] + "/" + pair[1];
                table.add(String.format(Locale.ROOT, "%-18s %10.2f %10.2f %10.2f", name, a[0] / b[0], a[1] / b[1],
                    a[2] / b[2]));
                machine.add(String.format(Locale.ROOT, "E2E_RATIO_OF %s topo=%s p50=%.3f p99=%.3f p999=%.3f", name,
                    topology.name(), a[0] / b[0], a[1] / b[1], a[2] / b[2]));
            }
        }
        final List<String> lines = new ArrayList<>(table);
        lines.addAll(machine);
        return lines;
    }

    /** The median of {@code values}: the middle one, or the mean of the two middle ones; NaN when empty. */
    static double median(final double[] values)
    {
        if (values.length == 0)
        {
            return Double.NaN;
        }
        final double[] sorted = values.clone();
        Arrays.sort(sorted);
        final int middle = sorted.length / 2;
        return sorted.length % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2.0;
    }

    /** Writes HdrHistogram's percentile distribution of {@code histogram}, whose values are microseconds. */
    private static void writeHistogram(final Path file, final Histogram histogram) throws IOException
    {
        try (PrintStream stream = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8))
        {
            histogram.outputPercentileDistribution(stream, 1.0);
        }
    }
}

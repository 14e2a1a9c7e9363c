package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;

/**
 * The synchronous mirroring benchmark, run by {@code bin/syncmirror-bench.sh}: acks=all produce latency on a source
 * cluster whose topics are mirrored to one or more destination clusters, first with mirroring ASYNC, then after
 * promoting every topic to SYNC, with the mirror link's round trip measured in the same run. Single-threaded apart
 * from the producers' and loggers' own threads; everything it starts is closed before {@link #run} returns.
 *
 * <p>Per mode: {@code --warmup-s} of load, then {@code --duration-s} measured; each acknowledgement's latency from
 * its record's intended send time (see {@link SpreadLoad}) and each link round trip go to HdrHistogram logs in the
 * results directory ({@code <MODE>-ack.hlog}, {@code <MODE>-link-rtt.hlog}, microseconds, one interval a second),
 * and {@code summary.txt} repeats the printed results. The output ends with one line per mode:
 *
 * <pre>
 *   RESULT mode=&lt;ASYNC|SYNC&gt; partitions=&lt;n&gt; destinations=&lt;n&gt; p50_us=&lt;x&gt; p99_us=&lt;x&gt; p999_us=&lt;x&gt; max_us=&lt;x&gt; link_rtt_p50_us=&lt;x&gt; acked=&lt;n&gt;
 *          label=&lt;window&gt; rate=&lt;asked&gt; achieved_rate=&lt;x&gt; cpu_pct=&lt;x&gt; machine_cpu_pct=&lt;x&gt; cpu_us_per_record=&lt;x&gt; gc_pause_ms=&lt;n&gt; saturated=&lt;bool&gt;
 *          gc_max_pause_ms=&lt;n&gt;
 *   ERROR mode=SYNC not measured: &lt;why, on one line&gt;
 * </pre>
 *
 * <p>A window that saturated the machine (see {@link WindowMeter.Totals#saturated}) is announced by a WARNING line
 * and {@code saturated=true}. Under {@code --serve} the run takes commands instead ({@link SyncBenchServer}).
 *
 * <p>Exit status: 0 when every mode asked for was measured and every record acknowledged; 1 when a mode could not
 * be measured (its ERROR line says why: e.g. the promotion to SYNC did not finish) or setup failed; 2 for a bad
 * flag; 4 when every mode was measured but some records failed (a WARN line says how many). (The launcher's
 * {@code -XX:+ExitOnOutOfMemoryError} makes an out-of-memory error exit 3.)
 */
public final class SyncBench
{
    /** The exit status for a mode that could not be measured, or a run that broke. */
    public static final int EXIT_NOT_MEASURED = 1;
    /** The exit status for a bad command line. */
    public static final int EXIT_USAGE = 2;
    /** The exit status when every mode was measured but some records were not acknowledged. */
    public static final int EXIT_FAILED_RECORDS = 4;
    /** The file in the results directory that repeats the summary and the RESULT lines. */
    public static final String SUMMARY_FILE = "summary.txt";
    private static final long CLOSE_TIMEOUT_MS = 15_000;

    /**
     * One measured window's figures; {@code error} is null when it was measured.
     *
     * @param label        the window's name in the results directory: the mode, or a served round's label
     * @param askedRate    records per second asked for
     * @param achievedRate records per second the window achieved (see {@link SpreadLoad.Outcome#achievedRate})
     * @param meter        what the window cost the machine (null when not measured)
     */
    record ModeResult(MirrorType mode, String label, Histogram ack, Histogram linkRtt, long sent, long errors,
        double askedRate, double achievedRate, WindowMeter.Totals meter, double promotionSeconds, String error)
    {
        static ModeResult notMeasured(final MirrorType mode, final String error)
        {
            return new ModeResult(mode, mode.name(), null, null, 0, 0, Double.NaN, Double.NaN, null, Double.NaN,
                error);
        }

        boolean measured()
        {
            return error == null;
        }

        boolean saturated()
        {
            return meter != null && meter.saturated(askedRate, achievedRate);
        }

        /** CPU-microseconds of this process per acknowledged record (NaN when none was acknowledged). */
        double cpuMicrosPerRecord()
        {
            final long acked = ack.getTotalCount();
            return acked == 0 ? Double.NaN : meter.processCpuPct() / 100.0 * meter.seconds() * 1e6 / acked;
        }
    }

    private final SyncBenchOptions options;
    private final PrintStream out;
    private final Progress progress;
    /** The FOOTPRINT and IDLE lines, printed with the table and kept in the summary. */
    private final List<String> extraLines = new ArrayList<>();
    /** The current mode's link round-trip log, or null between measured windows; written by the link source. */
    private volatile IntervalHistogramLog linkLog;

    private SyncBench(final SyncBenchOptions options, final PrintStream out, final Progress progress)
    {
        this.options = options;
        this.out = out;
        this.progress = progress;
    }

    SyncBenchOptions options()
    {
        return options;
    }

    public static void main(final String[] args)
    {
        if (SyncBenchOptions.wantsHelp(args))
        {
            System.out.println(SyncBenchOptions.USAGE);
            System.exit(0);
        }
        final SyncBenchOptions options;
        try
        {
            options = SyncBenchOptions.parse(args, LocalDateTime.now());
        }
        catch (final IllegalArgumentException ex)
        {
            System.err.println("error: " + ex.getMessage() + " (--help lists the flags)");
            System.exit(EXIT_USAGE);
            return;
        }
        int status;
        try (Progress progress = Progress.start(System.err, Progress.plan(options), options.quiet()))
        {
            status = new SyncBench(options, System.out, progress).run();
        }
        catch (final Exception ex)
        {
            System.out.println("ERROR run failed: " + oneLine(ex.toString()));
            ex.printStackTrace();
            status = EXIT_NOT_MEASURED;
        }
        // Kafka's clients leave a few non-daemon threads of their own behind after a clean close.
        System.exit(status);
    }

    /**
     * Where the mirror link's round trips come from: each destination broker's sync report requests on its mirror
     * connections ({@code BrokerServer#mirrorLinkRoundTrips}), and an ApiVersions ping loop over a
     * {@link MirrorWireClient} through the same injected delay for the modes that send no reports.
     */
    LinkRoundTripSource linkRoundTripSource(final MirroredClusters clusters)
    {
        return new MirrorLinkRoundTrips(clusters.destinations(), new ApiVersionsLinkPinger(clusters.sourceBrokers(),
            clusters.destinations().size(), options.injectedDelayMs()));
    }

    private int run() throws Exception
    {
        final Path results = options.resultsDir();
        Files.createDirectories(results);
        RunProperties.write(results.resolve(RunProperties.FILE), options);
        out.println(String.format(Locale.ROOT, "sync-bench: %d partitions (%d topic(s) of up to %d), %d+%s brokers, "
                + "RF %d, min ISR %d, %d destination(s), %d records/s of %d B over %d producer(s), %d s warm-up + %d s "
                + "measured per mode, injected one-way link delay %.3f ms, %s storage, __mirror_state RF %d, max heap %d "
                + "MiB, %d core(s); results in %s",
            options.partitions(), options.topics(), options.partitionsPerTopic(), options.brokers(),
            destinationBrokers(), options.replicationFactor(), options.minInsyncReplicas(), options.destinations(),
            options.ratePerSecond(), options.messageBytes(), options.producers(), options.warmupSeconds(),
            options.durationSeconds(), options.injectedDelayMs(), options.storage(),
            options.mirrorStateReplicationFactor(), Runtime.getRuntime().maxMemory() >> 20,
            Runtime.getRuntime().availableProcessors(), results.toAbsolutePath().normalize()));
        if (options.loadedPartitions() < options.partitions())
        {
            out.printf(Locale.ROOT, "sync-bench: the load goes to the first %d partitions only (%d topic(s))%n",
                options.loadedPartitions(), options.loadedTopics());
        }
        final long setupStartNs = System.nanoTime();
        progress.enter("setup");
        final Map<MirrorType, ModeResult> byMode = new LinkedHashMap<>();
        final Footprint.Reading beforeClusters = Footprint.read();
        final MirroredClusters clusters = MirroredClusters.start(options, out);
        try
        {
            // Read before the load generator exists: the difference is the brokers' (and their clients') alone.
            final Footprint.Figures footprint = footprint(beforeClusters, Footprint.read());
            extraLines.add(footprint.line(options.partitions()));
            out.printf(Locale.ROOT, "setup: after full collections the brokers hold %.1f MiB of heap, %.0f B per "
                    + "hosted partition replica (%d replicas on %d brokers), and %.1f MiB of direct buffers (the "
                    + "off-heap rows), %.0f B per replica%n", footprint.heapBytes() / 1048576.0,
                footprint.heapBytesPerReplica(), footprint.replicas(), footprint.brokers(),
                footprint.directBytes() / 1048576.0, footprint.directBytesPerReplica());
            final long loadStartNs = System.nanoTime();
            try (SpreadLoad load = new SpreadLoad(clusters.source().bootstrapServers(),
                    clusters.topics().subList(0, options.loadedTopics()), options.partitionsPerTopic(),
                    options.loadedPartitions(), options.producers(), options.messageBytes());
                 LinkRoundTripSource link = linkRoundTripSource(clusters))
            {
                out.printf(Locale.ROOT, "setup: %d producer(s) have every topic's metadata after %.1f s; setup took "
                    + "%.1f s in all%n", options.producers(), (System.nanoTime() - loadStartNs) / 1e9,
                    (System.nanoTime() - setupStartNs) / 1e9);
                link.start(nanos ->
                {
                    final IntervalHistogramLog current = linkLog;
                    if (current != null)
                    {
                        current.recorder().recordValue(nanos / 1_000L);
                    }
                });
                if (options.serve())
                {
                    // The server's windows are the caller's to time: no progress lines past setup.
                    progress.close();
                    final int status = new SyncBenchServer(this, clusters, load).serve(System.in, out);
                    // A served run ends at its caller's word, and its caller waits for the exit: the clusters are
                    // the run's scratch, and closing six brokers cleanly takes up to 15 s.
                    out.flush();
                    System.exit(status);
                    return status;
                }
                for (final MirrorType mode : options.modes())
                {
                    double promotionSeconds = Double.NaN;
                    if (mode == MirrorType.SYNC)
                    {
                        progress.enter(mode + " promotion");
                        try
                        {
                            promotionSeconds = promote(clusters);
                        }
                        catch (final SyncPromotion.PromotionFailedException ex)
                        {
                            byMode.put(mode, ModeResult.notMeasured(mode, ex.getMessage()));
                            out.println("mode " + mode + " not measured: " + ex.getMessage());
                            continue;
                        }
                    }
                    byMode.put(mode, measure(mode, mode.name(), options.durationSeconds(), load, promotionSeconds));
                }
                out.println("link round trips: " + link.describe());
            }
            if (options.idleSeconds() > 0)
            {
                measureIdle(options.modes().get(options.modes().size() - 1).name());
            }
            // Printed before the clusters close: stopping some hundred thousand partitions takes a while.
            return report(byMode, results);
        }
        finally
        {
            closeBounded(clusters);
        }
    }

    /** What the brokers hold: {@code after} less {@code before}, over the partition replicas they host. */
    private Footprint.Figures footprint(final Footprint.Reading before, final Footprint.Reading after)
    {
        final long perCluster = (long)options.partitions() * options.replicationFactor();
        return new Footprint.Figures(before, after, perCluster * (1 + options.destinations()),
            perCluster * options.destinations(), options.brokers() * (1 + options.destinations()));
    }

    /**
     * Measures {@link SyncBenchOptions#idleSeconds} with no load (the producers and the link pinger closed): the
     * process's CPU, which should not grow with partitions that do not change, and which kinds of threads spend it.
     *
     * @param lastMode the last mode run (the topics are in it unless its promotion failed), for the printed line
     */
    private void measureIdle(final String lastMode) throws IOException, InterruptedException
    {
        progress.enter("idle");
        out.printf(Locale.ROOT, "IDLE: %d s without load, topics %s%n", options.idleSeconds(), lastMode);
        final WindowMeter meter = WindowMeter.start(options.resultsDir().resolve("IDLE-timeline.csv"));
        final ThreadCpu threads = ThreadCpu.start();
        Thread.sleep(TimeUnit.SECONDS.toMillis(options.idleSeconds()));
        final List<ThreadCpu.Kind> kinds = threads == null ? List.of() : threads.finish();
        final WindowMeter.Totals totals = meter.finish();
        extraLines.add(String.format(Locale.ROOT, "IDLE partitions=%d mode=%s seconds=%.1f cpu_pct=%.1f "
                + "machine_cpu_pct=%.1f gc_pause_ms=%d gc_max_pause_ms=%d", options.partitions(), lastMode,
            totals.seconds(), totals.processCpuPct(), totals.machineCpuPct(), totals.gcPauseMs(),
            totals.gcMaxPauseMs()));
        extraLines.add("IDLE threads (% of one core): " + ThreadCpu.describe(kinds, 10, totals.seconds()));
    }

    /** Closes the clusters, giving up (the JVM exits next) if that takes longer than {@link #CLOSE_TIMEOUT_MS}. */
    private static void closeBounded(final MirroredClusters clusters) throws InterruptedException
    {
        final Thread closer = new Thread(clusters::close, "sync-bench-close");
        closer.setDaemon(true);
        closer.start();
        closer.join(CLOSE_TIMEOUT_MS);
        if (closer.isAlive())
        {
            System.err.println("note: the clusters were still closing after " + CLOSE_TIMEOUT_MS / 1000
                + " s; exiting without waiting");
        }
    }

    private String destinationBrokers()
    {
        return options.destinations() == 1 ? Integer.toString(options.brokers()) :
            options.destinations() + "x" + options.brokers();
    }

    /**
     * Promotes every benchmark topic to SYNC on every destination and waits until each says so.
     *
     * @return how long the promotion took, in seconds
     */
    double promote(final MirroredClusters clusters) throws SyncPromotion.PromotionFailedException, InterruptedException
    {
        final List<MirrorWireClient.HostPort> controllers = new ArrayList<>();
        for (final EmbeddedCluster destination : clusters.destinations())
        {
            controllers.add(new MirrorWireClient.HostPort("127.0.0.1", destination.port(1)));
        }
        out.printf(Locale.ROOT, "SYNC: promoting %d topic(s) to SYNC on %d destination(s) (timeout %d s)%n",
            clusters.topics().size(), controllers.size(), options.syncTimeoutSeconds());
        final double seconds = SyncPromotion.promote(controllers, MirroredClusters.MIRROR_NAME, clusters.topics(),
            TimeUnit.SECONDS.toNanos(options.syncTimeoutSeconds())) / 1e9;
        out.printf(Locale.ROOT, "SYNC: every topic is SYNC on every destination after %.1f s%n", seconds);
        return seconds;
    }

    /**
     * Runs one warm-up and a measured window of {@code durationSeconds} of {@code mode}'s load, writing its logs
     * under {@code label} in the results directory.
     */
    ModeResult measure(final MirrorType mode, final String label, final int durationSeconds, final SpreadLoad load,
        final double promotionSeconds) throws IOException
    {
        // Every window starts on a heap without the garbage of what came before it (the setup, the other mode, the
        // promotion): at 100k partitions a young collection of that garbage pauses the brokers for 100+ ms.
        System.gc();
        final Path results = options.resultsDir();
        final IntervalHistogramLog ackLog = new IntervalHistogramLog(results.resolve(label + "-ack.hlog"),
            mode + " acks=all ack latency from each record's intended send time, microseconds");
        final IntervalHistogramLog rttLog = new IntervalHistogramLog(results.resolve(label + "-link-rtt.hlog"),
            mode + " mirror link round trip, microseconds");
        out.printf(Locale.ROOT, "%s: %d s warm-up, then %d s measured at %d records/s%n", label,
            options.warmupSeconds(), durationSeconds, options.ratePerSecond());
        progress.enter(mode + " warm-up");
        final WindowMeter[] meter = new WindowMeter[1];
        final ThreadCpu[] threads = new ThreadCpu[1];
        final IOException[] meterFailure = new IOException[1];
        final Recorder measured = ackLog.recorder();
        final SpreadLoad.Outcome outcome = load.run(options.ratePerSecond(), options.warmupSeconds(),
            durationSeconds, measured, () ->
            {
                progress.enter(mode + " measured");
                ackLog.start();
                rttLog.start();
                linkLog = rttLog;
                try
                {
                    meter[0] = WindowMeter.start(results.resolve(label + "-timeline.csv"));
                    threads[0] = ThreadCpu.start();
                }
                catch (final IOException ex)
                {
                    meterFailure[0] = ex;
                }
            });
        if (meterFailure[0] != null)
        {
            throw meterFailure[0];
        }
        final List<ThreadCpu.Kind> kinds = threads[0] == null ? List.of() : threads[0].finish();
        final WindowMeter.Totals totals = meter[0].finish();
        // Where the window's CPU went, by kind of thread: at 2 cores, what competes with the acknowledgements.
        extraLines.add(label + " threads (% of one core): " + ThreadCpu.describe(kinds, 12, totals.seconds()));
        linkLog = null;
        final Histogram ack = ackLog.finish();
        final Histogram rtt = rttLog.finish();
        writePercentiles(results.resolve(label + "-ack.hgrm"), ack);
        writePercentiles(results.resolve(label + "-link-rtt.hgrm"), rtt);
        out.printf(Locale.ROOT, "%s: sent %d, acked %d in the measured window (%d in warm-up), %d failed%n", label,
            outcome.sent(), ack.getTotalCount(), outcome.warmupAcked(), outcome.errors());
        final ModeResult result = new ModeResult(mode, label, ack, rtt, outcome.sent(), outcome.errors(),
            options.ratePerSecond(), outcome.achievedRate(), totals, promotionSeconds, null);
        if (result.saturated())
        {
            out.println(saturationWarning(result));
        }
        return result;
    }

    /** The WARNING printed for a window that measured a starved machine. */
    static String saturationWarning(final ModeResult result)
    {
        return String.format(Locale.ROOT, "WARNING %s saturated: machine CPU %.0f %% (this process %.0f %% of one "
                + "core, %d cores), %.1f records/s achieved of %.0f asked; its latency measures CPU starvation, not "
                + "the code: lower --rate or --partitions", result.label(), result.meter().machineCpuPct(),
            result.meter().processCpuPct(), result.meter().cores(), result.achievedRate(), result.askedRate());
    }

    /** Prints the side-by-side table, then the WARN and ERROR lines, then one RESULT line per measured mode. */
    private int report(final Map<MirrorType, ModeResult> byMode, final Path results) throws IOException
    {
        final List<String> lines = new ArrayList<>(table(byMode));
        final List<String> tail = new ArrayList<>();
        boolean allMeasured = true;
        boolean anyErrors = false;
        for (final ModeResult result : byMode.values())
        {
            if (!result.measured())
            {
                allMeasured = false;
            }
            else
            {
                if (result.errors() > 0 || result.ack().getTotalCount() == 0)
                {
                    anyErrors = true;
                    lines.add(String.format(Locale.ROOT, "WARN mode=%s failed=%d acked=%d: some records were not "
                        + "acknowledged", result.mode(), result.errors(), result.ack().getTotalCount()));
                }
                if (result.saturated())
                {
                    lines.add(saturationWarning(result));
                }
            }
        }
        for (final ModeResult result : byMode.values())
        {
            tail.add(result.measured() ? resultLine(result, options) :
                "ERROR mode=" + result.mode() + " not measured: " + oneLine(result.error()));
        }
        lines.addAll(extraLines);
        lines.addAll(tail);
        lines.forEach(out::println);
        Files.write(results.resolve(SUMMARY_FILE), lines, StandardCharsets.UTF_8);
        if (!allMeasured)
        {
            return EXIT_NOT_MEASURED;
        }
        return anyErrors ? EXIT_FAILED_RECORDS : 0;
    }

    private List<String> table(final Map<MirrorType, ModeResult> byMode)
    {
        final List<String> lines = new ArrayList<>();
        final StringBuilder header = new StringBuilder(String.format(Locale.ROOT, "%-22s", "microseconds"));
        byMode.keySet().forEach(mode -> header.append(String.format(Locale.ROOT, " %12s", mode)));
        lines.add(header.toString());
        addRow(lines, "ack p50", byMode, r -> r.ack().getValueAtPercentile(50.0));
        addRow(lines, "ack p99", byMode, r -> r.ack().getValueAtPercentile(99.0));
        addRow(lines, "ack p99.9", byMode, r -> r.ack().getValueAtPercentile(99.9));
        addRow(lines, "ack max", byMode, r -> r.ack().getMaxValue());
        addRow(lines, "link rtt p50", byMode, r -> linkP50(r));
        addRow(lines, "link rtt p99", byMode, r -> r.linkRtt().getTotalCount() == 0 ? -1 :
            r.linkRtt().getValueAtPercentile(99.0));
        addRow(lines, "link rtt samples", byMode, r -> r.linkRtt().getTotalCount());
        addRow(lines, "acked", byMode, r -> r.ack().getTotalCount());
        addRow(lines, "failed", byMode, ModeResult::errors);
        addRow(lines, "achieved records/s", byMode, r -> Math.round(r.achievedRate()));
        addRow(lines, "cpu % (100 per core)", byMode, r -> Math.round(r.meter().processCpuPct()));
        addRow(lines, "machine cpu %", byMode, r -> Math.round(r.meter().machineCpuPct()));
        addRow(lines, "cpu us per record", byMode, r -> Math.round(r.cpuMicrosPerRecord()));
        addRow(lines, "gc pause ms", byMode, r -> r.meter().gcPauseMs());
        addRow(lines, "gc longest pause ms", byMode, r -> r.meter().gcMaxPauseMs());
        final StringBuilder promotion = new StringBuilder(String.format(Locale.ROOT, "%-22s", "promotion s"));
        byMode.values().forEach(r -> promotion.append(String.format(Locale.ROOT, " %12s",
            Double.isNaN(r.promotionSeconds()) ? "-" : String.format(Locale.ROOT, "%.1f", r.promotionSeconds()))));
        lines.add(promotion.toString());
        return lines;
    }

    /** A long-valued column of the table. */
    @FunctionalInterface
    private interface Column
    {
        long of(ModeResult result);
    }

    private static void addRow(final List<String> lines, final String name, final Map<MirrorType, ModeResult> byMode,
        final Column column)
    {
        final StringBuilder row = new StringBuilder(String.format(Locale.ROOT, "%-22s", name));
        for (final ModeResult result : byMode.values())
        {
            row.append(String.format(Locale.ROOT, " %12s", result.measured() ? Long.toString(column.of(result)) :
                "-"));
        }
        lines.add(row.toString());
    }

    /** The link round trip's median in microseconds, or -1 when no round trip was seen in the window. */
    static long linkP50(final ModeResult result)
    {
        return result.linkRtt().getTotalCount() == 0 ? -1 : result.linkRtt().getValueAtPercentile(50.0);
    }

    /**
     * The RESULT line of a measured window. Its first fields are those of earlier versions, in the same order, so
     * that older readers keep working; the rest say what the window cost and whether it was saturated.
     */
    static String resultLine(final ModeResult result, final SyncBenchOptions options)
    {
        final Histogram ack = result.ack();
        final WindowMeter.Totals meter = result.meter();
        return String.format(Locale.ROOT, "RESULT mode=%s partitions=%d destinations=%d p50_us=%d p99_us=%d "
                + "p999_us=%d max_us=%d link_rtt_p50_us=%d acked=%d label=%s rate=%d achieved_rate=%.1f cpu_pct=%.1f "
                + "machine_cpu_pct=%.1f cpu_us_per_record=%.1f gc_pause_ms=%d saturated=%b gc_max_pause_ms=%d",
            result.mode(),
            options.partitions(), options.destinations(), ack.getValueAtPercentile(50.0),
            ack.getValueAtPercentile(99.0), ack.getValueAtPercentile(99.9), ack.getMaxValue(), linkP50(result), ack.getTotalCount(), result.label(),
            options.ratePerSecond(), result.achievedRate(), meter.processCpuPct(), meter.machineCpuPct(),
            result.cpuMicrosPerRecord(), meter.gcPauseMs(), result.saturated(), meter.gcMaxPauseMs());
    }

    private static void writePercentiles(final Path file, final Histogram histogram) throws IOException
    {
        try (PrintStream stream = new PrintStream(Files.newOutputStream(file), false, StandardCharsets.UTF_8))
        {
            histogram.outputPercentileDistribution(stream, 1.0);
        }
    }

    static String oneLine(final String text)
    {
        return text == null ? "(no message)" : text.replaceAll("\\s+", " ").trim();
    }
}

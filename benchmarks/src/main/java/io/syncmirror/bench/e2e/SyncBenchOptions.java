package io.syncmirror.bench.e2e;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

import io.syncmirror.protocol.MirrorType;

/**
 * The settings of one run of {@link SyncBench}, parsed from its command line. Immutable.
 *
 * <p>Every bad value is an {@link IllegalArgumentException} whose message is one line naming the flag, what it
 * takes and what it got; the launcher prints it and exits 2.
 *
 * @param partitions         partitions in all, over every topic
 * @param partitionsPerTopic partitions of each topic; the last topic takes the remainder
 * @param loadedPartitions   how many of the partitions, the first ones, the load is spread over (all by default):
 *                           with fewer than {@code partitions}, what the partitions hosted cost is told apart from
 *                           what the partitions written cost
 * @param brokers            brokers of the source cluster and of each destination cluster
 * @param destinations       destination clusters, each mirroring every benchmark topic of the source
 * @param ratePerSecond      records per second of all producers together
 * @param idleSeconds        after the modes, a window without load whose CPU is measured (0: none)
 * @param injectedDelayMs    one-way delay emulated on each destination's mirror connections
 * @param syncTimeoutSeconds how long the promotion to SYNC may take before the SYNC run is given up
 * @param mirrorStateReplicationFactor the replication factor of each destination's {@code __mirror_state}
 * @param brokerConfigs      broker settings ({@code --broker-config key=value}) every broker of every cluster gets,
 *                           over the benchmark's own
 * @param heap               the launcher's {@code -Xmx} (checked here so that both agree on what is valid)
 * @param quiet              no progress lines on stderr
 * @param serve              after setup, take commands on stdin (see {@link SyncBenchServer}) instead of running
 *                           the modes once
 */
public record SyncBenchOptions(
    int partitions,
    int partitionsPerTopic,
    int loadedPartitions,
    int brokers,
    int replicationFactor,
    int minInsyncReplicas,
    int destinations,
    int ratePerSecond,
    int producers,
    int messageBytes,
    int warmupSeconds,
    int durationSeconds,
    int idleSeconds,
    double injectedDelayMs,
    List<MirrorType> modes,
    int syncTimeoutSeconds,
    int setupTimeoutSeconds,
    int mirrorStateReplicationFactor,
    String storage,
    Path resultsDir,
    Map<String, String> brokerConfigs,
    String heap,
    boolean quiet,
    boolean serve)
{
    /**
     * The default rate: 200 records/s keeps the default run (100 partitions, 3+3 brokers in one JVM) near half of a
     * 2-core machine. Measured: 1,000/s saturated both cores (about 197 % CPU), 300/s took 112-132 %, 200/s about
     * 95 %, idle 20 %; a saturated run measures CPU starvation, not sync cost.
     */
    public static final int DEFAULT_RATE_PER_SECOND = 200;
    /** The most partitions a run may ask for: ten times the 100k the benchmark is built for. */
    public static final int MAX_PARTITIONS = 1_000_000;
    /** The most records per second the one pacing thread is asked for. */
    public static final int MAX_RATE_PER_SECOND = 200_000;
    /** Heap sizes the launcher passes to {@code -Xmx}: a whole number of mebibytes or gibibytes. */
    public static final Pattern HEAP_PATTERN = Pattern.compile("[1-9][0-9]{0,6}[mMgG]");
    /** The storage the brokers use unless told otherwise: the heap log, the only one that reaches 100k here. */
    public static final String STORAGE_MEMORY = "memory";
    /** Kafka's log engine on disk: for runs at a few thousand partitions per broker at most. */
    public static final String STORAGE_DURABLE = "durable";

    /** The usage text printed for {@code --help} and after a bad flag. */
    public static final String USAGE = String.join(System.lineSeparator(),
        "usage: bin/syncmirror-bench.sh [flags]",
        "Starts a source cluster and destination clusters in one JVM, mirrors every benchmark topic to each",
        "destination, and measures acks=all produce latency on the source with mirroring ASYNC, then after",
        "promoting every topic to SYNC; prints one RESULT line per mode.",
        "  --partitions N            partitions in all (default 100; up to " + MAX_PARTITIONS + ")",
        "  --partitions-per-topic N  partitions of each topic, the last takes the rest (default 100)",
        "  --loaded-partitions N     spread the load over the first N partitions only (default: all of them)",
        "  --brokers N               brokers of the source and of each destination cluster (default 3)",
        "  --replication-factor N    replication factor on both sides (default min(3, brokers))",
        "  --min-insync-replicas N   min.insync.replicas on both sides (default RF-1, at least 1)",
        "  --destinations N          destination clusters, each mirroring the same topics (default 1)",
        "  --rate N                  records per second of all producers together (default " + DEFAULT_RATE_PER_SECOND
            + "; more saturates a 2-core machine)",
        "  --producers N             KafkaProducers, each sending to a slice of the topics (default 1)",
        "  --size BYTES              value size of every record (default 100)",
        "  --warmup-s N              seconds of load before each mode's measured window (default 5)",
        "  --duration-s N            seconds of each mode's measured window (default 15)",
        "  --idle-s N                after the modes, seconds with no load whose CPU is measured (default 0: none)",
        "  --delay-ms X              one-way delay injected on each destination's mirror link, ms (default 0)",
        "  --modes LIST              ASYNC, SYNC or ASYNC,SYNC, run in that order (default ASYNC,SYNC)",
        "  --sync-timeout-s N        limit on the promotion to SYNC (default 30 + 1 per 1000 partitions)",
        "  --setup-timeout-s N       limit on topic creation and on mirroring reaching every partition (default 600)",
        "  --mirror-state-rf N       replication factor of the destinations' __mirror_state (default 1: setup",
        "                            writes it once per partition with acks=all; the runs never fail over)",
        "  --storage memory|durable  broker log storage (default memory; durable is Kafka's log engine)",
        "  --broker-config K=V       a broker setting for every broker of every cluster, over the benchmark's own",
        "                            (repeatable; e.g. replica.lag.time.max.ms=60000)",
        "  --results-dir DIR         where the HdrHistogram logs go (default results/sync-bench-<time>)",
        "  --heap SIZE               the JVM's -Xmx, e.g. 4g or 12g (default 4g)",
        "  --quiet                   no progress lines on stderr",
        "  --serve                   after setup, take commands on stdin (measure MODE LABEL, promote, quit);",
        "                            what bin/syncmirror-gate.sh drives its interleaved rounds with",
        "  --help                    print this text",
        "Exit status: 0 when every mode asked for was measured, 1 when one was not (an ERROR line says why)",
        "or the run broke, 2 for a bad flag, 3 when the heap ran out (raise --heap), 4 when every mode was",
        "measured but some records failed.");

    /** Parses {@code args}, filling defaults; {@code now} names the default results directory. */
    public static SyncBenchOptions parse(final String[] args, final LocalDateTime now)
    {
        int partitions = 100;
        int partitionsPerTopic = 100;
        int loadedPartitions = -1;
        int brokers = 3;
        int replicationFactor = -1;
        int minIsr = -1;
        int destinations = 1;
        int rate = DEFAULT_RATE_PER_SECOND;
        int producers = 1;
        int size = 100;
        int warmupS = 5;
        int durationS = 15;
        int idleS = 0;
        double delayMs = 0.0;
        List<MirrorType> modes = List.of(MirrorType.ASYNC, MirrorType.SYNC);
        int syncTimeoutS = -1;
        int setupTimeoutS = 600;
        int mirrorStateRf = 1;
        String storage = STORAGE_MEMORY;
        Path resultsDir = null;
        final Map<String, String> brokerConfigs = new LinkedHashMap<>();
        String heap = "4g";
        boolean quiet = false;
        boolean serve = false;
        for (int i = 0; i < args.length; i++)
        {
            final String flag = args[i];
            switch (flag)
            {
                case "--partitions" -> partitions = intValue(args, ++i, flag, 1, MAX_PARTITIONS);
                case "--partitions-per-topic" -> partitionsPerTopic = intValue(args, ++i, flag, 1, 100_000);
                case "--loaded-partitions" -> loadedPartitions = intValue(args, ++i, flag, 1, MAX_PARTITIONS);
                case "--brokers" -> brokers = intValue(args, ++i, flag, 1, 16);
                case "--replication-factor" -> replicationFactor = intValue(args, ++i, flag, 1, 16);
                case "--min-insync-replicas" -> minIsr = intValue(args, ++i, flag, 1, 16);
                case "--destinations" -> destinations = intValue(args, ++i, flag, 1, 8);
                case "--rate" -> rate = intValue(args, ++i, flag, 1, MAX_RATE_PER_SECOND);
                case "--producers" -> producers = intValue(args, ++i, flag, 1, 64);
                case "--size" -> size = intValue(args, ++i, flag, 0, 1_000_000);
                case "--warmup-s" -> warmupS = intValue(args, ++i, flag, 0, 3600);
                case "--duration-s" -> durationS = intValue(args, ++i, flag, 1, 3600);
                case "--idle-s" -> idleS = intValue(args, ++i, flag, 0, 3600);
                case "--delay-ms" -> delayMs = doubleValue(args, ++i, flag, 0.0, 10_000.0);
                case "--modes" -> modes = modes(value(args, ++i, flag));
                case "--sync-timeout-s" -> syncTimeoutS = intValue(args, ++i, flag, 1, 86_400);
                case "--setup-timeout-s" -> setupTimeoutS = intValue(args, ++i, flag, 1, 86_400);
                case "--mirror-state-rf" -> mirrorStateRf = intValue(args, ++i, flag, 1, 16);
                case "--storage" -> storage = storage(value(args, ++i, flag));
                case "--broker-config" -> brokerConfig(value(args, ++i, flag), brokerConfigs);
                case "--results-dir" -> resultsDir = path(value(args, ++i, flag), flag);
                case "--heap" -> heap = heap(value(args, ++i, flag));
                case "--quiet" -> quiet = true;
                case "--serve" -> serve = true;
                default -> throw new IllegalArgumentException("unknown flag: " + flag);
            }
        }
        if (replicationFactor == -1)
        {
            replicationFactor = Math.min(3, brokers);
        }
        if (replicationFactor > brokers)
        {
            throw new IllegalArgumentException("--replication-factor " + replicationFactor + " is more than --brokers "
                + brokers);
        }
        if (mirrorStateRf > brokers)
        {
            throw new IllegalArgumentException("--mirror-state-rf " + mirrorStateRf + " is more than --brokers "
                + brokers);
        }
        if (minIsr == -1)
        {
            minIsr = Math.max(1, replicationFactor - 1);
        }
        if (minIsr > replicationFactor)
        {
            throw new IllegalArgumentException("--min-insync-replicas " + minIsr + " is more than the replication "
                + "factor " + replicationFactor);
        }
        partitionsPerTopic = Math.min(partitionsPerTopic, partitions);
        if (loadedPartitions == -1)
        {
            loadedPartitions = partitions;
        }
        if (loadedPartitions > partitions)
        {
            throw new IllegalArgumentException("--loaded-partitions " + loadedPartitions + " is more than --partitions "
                + partitions);
        }
        if (syncTimeoutS == -1)
        {
            syncTimeoutS = 30 + partitions / 1000;
        }
        if (resultsDir == null)
        {
            resultsDir = Paths.get("results", "sync-bench-" + now.format(DateTimeFormatter.ofPattern(
                "yyyyMMdd-HHmmss", Locale.ROOT)));
        }
        return new SyncBenchOptions(partitions, partitionsPerTopic, loadedPartitions, brokers, replicationFactor,
            minIsr, destinations, rate, producers, size, warmupS, durationS, idleS, delayMs, modes, syncTimeoutS,
            setupTimeoutS, mirrorStateRf, storage, resultsDir, Map.copyOf(brokerConfigs), heap, quiet, serve);
    }

    /** Whether {@code args} asks for the usage text. */
    public static boolean wantsHelp(final String[] args)
    {
        for (final String arg : args)
        {
            if (arg.equals("--help") || arg.equals("-h"))
            {
                return true;
            }
        }
        return false;
    }

    /** How many topics the partitions are spread over. */
    public int topics()
    {
        return (partitions + partitionsPerTopic - 1) / partitionsPerTopic;
    }

    /** How many topics the load writes to: those holding the first {@link #loadedPartitions} partitions. */
    public int loadedTopics()
    {
        return (loadedPartitions + partitionsPerTopic - 1) / partitionsPerTopic;
    }

    /** How many partitions topic {@code index} (0-based) has: {@link #partitionsPerTopic}, or the rest for the last. */
    public int partitionsOfTopic(final int index)
    {
        final int before = index * partitionsPerTopic;
        return Math.min(partitionsPerTopic, partitions - before);
    }

    private static List<MirrorType> modes(final String list)
    {
        final List<MirrorType> modes = new ArrayList<>();
        for (final String item : list.split(",", -1))
        {
            final String name = item.trim().toUpperCase(Locale.ROOT);
            final MirrorType mode;
            switch (name)
            {
                case "ASYNC" -> mode = MirrorType.ASYNC;
                case "SYNC" -> mode = MirrorType.SYNC;
                default -> throw new IllegalArgumentException("--modes takes ASYNC and/or SYNC: '" + item.trim() + "'");
            }
            if (modes.contains(mode))
            {
                throw new IllegalArgumentException("--modes names " + mode + " twice");
            }
            modes.add(mode);
        }
        if (modes.size() == 2 && modes.get(0) == MirrorType.SYNC)
        {
            // A demotion back to ASYNC is not part of the benchmark: SYNC runs last.
            throw new IllegalArgumentException("--modes runs ASYNC before SYNC: write ASYNC,SYNC");
        }
        return List.copyOf(modes);
    }

    private static String storage(final String text)
    {
        if (!text.equals(STORAGE_MEMORY) && !text.equals(STORAGE_DURABLE))
        {
            throw new IllegalArgumentException("--storage takes memory or durable: '" + text + "'");
        }
        return text;
    }

    private static String heap(final String text)
    {
        if (!HEAP_PATTERN.matcher(text).matches())
        {
            throw new IllegalArgumentException("--heap takes a size like 4g or 512m: '" + text + "'");
        }
        return text;
    }

    private static Path path(final String text, final String flag)
    {
        try
        {
            return Paths.get(text);
        }
        catch (final RuntimeException ex)
        {
            throw new IllegalArgumentException(flag + " is not a usable path: '" + text + "'", ex);
        }
    }

    private static void brokerConfig(final String text, final Map<String, String> configs)
    {
        final int equals = text.indexOf('=');
        if (equals <= 0 || !text.substring(0, equals).strip().equals(text.substring(0, equals)))
        {
            throw new IllegalArgumentException("--broker-config takes key=value: '" + text + "'");
        }
        final String key = text.substring(0, equals);
        if (configs.put(key, text.substring(equals + 1)) != null)
        {
            throw new IllegalArgumentException("--broker-config names " + key + " twice");
        }
    }

    private static String value(final String[] args, final int index, final String flag)
    {
        if (index >= args.length || args[index].startsWith("--"))
        {
            throw new IllegalArgumentException(flag + " needs a value");
        }
        return args[index];
    }

    private static int intValue(final String[] args, final int index, final String flag, final int min,
        final int max)
    {
        final String text = value(args, index, flag);
        final int value;
        try
        {
            value = Integer.parseInt(text);
        }
        catch (final NumberFormatException ex)
        {
            throw new IllegalArgumentException(flag + " needs a whole number: '" + text + "'", ex);
        }
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(flag + " must be " + min + ".." + max + ": " + value);
        }
        return value;
    }

    private static double doubleValue(final String[] args, final int index, final String flag, final double min,
        final double max)
    {
        final String text = value(args, index, flag);
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
}

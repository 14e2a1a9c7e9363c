package io.syncmirror.bench.e2e;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The settings of one run of {@link ProduceLatencyHarness}, parsed from its command line. Immutable.
 *
 * @param out where to write the .hgrm files and the summary, or {@code null} to print only
 */
public record HarnessOptions(
    List<Topology> topologies,
    List<String> systems,
    int rounds,
    int ratePerSecond,
    int messageBytes,
    int warmupSeconds,
    int measureSeconds,
    int partitions,
    Path out)
{
    /** The most messages per second the single pacing thread is asked for: beyond it, pacing itself would lag. */
    public static final int MAX_RATE_PER_SECOND = 200_000;
    /** The largest message, below Kafka's default max.request.size of 1 MiB with room for the batch header. */
    public static final int MAX_MESSAGE_BYTES = 1_000_000;

    /** The usage text printed for {@code --help} and after a bad flag. */
    public static final String USAGE = String.join(System.lineSeparator(),
        "usage: ProduceLatencyHarness [flags]",
        "  --topologies LIST  comma-separated BROKERSxRF, e.g. 1x1,3x3 (default 1x1,3x3; min ISR is RF-1, at least 1)",
        "  --systems LIST     comma-separated from: ours, kafka, ours-tls, kafka-tls (the -tls ones serve clients and",
        "                     replicate in TLS; default: ours,kafka when ours is wired in, else kafka)",
        "  --rounds N         rounds per system and topology, alternating systems (default 3)",
        "  --rate N           target messages per second, paced (default 1000)",
        "  --size BYTES       value size of every message (default 100)",
        "  --warmup-s N       seconds of warm-up per round, not recorded (default 5)",
        "  --measure-s N      seconds of measurement per round (default 15)",
        "  --partitions N     partitions of the topic (default 1)",
        "  --out DIR          also write one .hgrm per round and summary.txt into DIR",
        "  --help             print this text");

    /** Parses {@code args}; {@code oursAvailable} says whether {@code ours} may be selected. */
    public static HarnessOptions parse(final String[] args, final boolean oursAvailable)
    {
        List<Topology> topologies = List.of(Topology.parse("1x1"), Topology.parse("3x3"));
        List<String> systems = oursAvailable ?
            List.of(OursClusterFactory.NAME, KafkaReferenceCluster.NAME) : List.of(KafkaReferenceCluster.NAME);
        int rounds = 3;
        int rate = 1000;
        int size = 100;
        int warmupS = 5;
        int measureS = 15;
        int partitions = 1;
        Path out = null;
        for (int i = 0; i < args.length; i++)
        {
            final String flag = args[i];
            switch (flag)
            {
                case "--topologies" -> topologies = topologies(value(args, ++i, flag));
                case "--systems" -> systems = systems(value(args, ++i, flag), oursAvailable);
                case "--rounds" -> rounds = intValue(args, ++i, flag, 1, 1000);
                case "--rate" -> rate = intValue(args, ++i, flag, 1, MAX_RATE_PER_SECOND);
                case "--size" -> size = intValue(args, ++i, flag, 0, MAX_MESSAGE_BYTES);
                case "--warmup-s" -> warmupS = intValue(args, ++i, flag, 0, 3600);
                case "--measure-s" -> measureS = intValue(args, ++i, flag, 1, 3600);
                case "--partitions" -> partitions = intValue(args, ++i, flag, 1, 10_000);
                case "--out" -> out = Paths.get(value(args, ++i, flag));
                default -> throw new IllegalArgumentException("unknown flag: " + flag);
            }
        }
        return new HarnessOptions(topologies, systems, rounds, rate, size, warmupS, measureS, partitions, out);
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

    private static List<Topology> topologies(final String list)
    {
        final List<Topology> topologies = new ArrayList<>();
        final Set<String> seen = new LinkedHashSet<>();
        for (final String item : items(list, "--topologies"))
        {
            final Topology topology = Topology.parse(item);
            if (!seen.add(topology.name()))
            {
                throw new IllegalArgumentException("--topologies names " + topology.name() + " twice");
            }
            topologies.add(topology);
        }
        return List.copyOf(topologies);
    }

    private static List<String> systems(final String list, final boolean oursAvailable)
    {
        final Set<String> systems = new LinkedHashSet<>();
        for (final String item : items(list, "--systems"))
        {
            if (item.equals(OursClusterFactory.NAME) || item.equals(OursClusterFactory.TLS_NAME))
            {
                if (!oursAvailable)
                {
                    throw new IllegalArgumentException(
                        "--systems ours: the reference broker's embedded cluster is not wired in yet; use kafka");
                }
            }
            else if (!item.equals(KafkaReferenceCluster.NAME) && !item.equals(KafkaReferenceCluster.TLS_NAME))
            {
                throw new IllegalArgumentException("--systems takes ours, kafka, ours-tls, kafka-tls: " + item);
            }
            if (!systems.add(item))
            {
                throw new IllegalArgumentException("--systems names " + item + " twice");
            }
        }
        return List.copyOf(systems);
    }

    private static List<String> items(final String list, final String flag)
    {
        final List<String> items = new ArrayList<>();
        for (final String item : list.split(",", -1))
        {
            final String trimmed = item.trim();
            if (trimmed.isEmpty())
            {
                throw new IllegalArgumentException(flag + " has an empty item: " + list);
            }
            items.add(trimmed);
        }
        return items;
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
            throw new IllegalArgumentException(flag + " needs a whole number: " + text, ex);
        }
        if (value < min || value > max)
        {
            throw new IllegalArgumentException(flag + " must be " + min + ".." + max + ": " + value);
        }
        return value;
    }
}

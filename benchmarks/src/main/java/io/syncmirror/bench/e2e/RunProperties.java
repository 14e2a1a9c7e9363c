package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.io.Writer;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * {@code run.properties} in a results directory: what was run (every option), on what (commit, JVM, machine) and
 * when, so that a report or a regression gate reading the directory later knows what it holds. The launcher
 * passes the commit as {@code -Dsyncmirror.commit} (the jar does not know which checkout built it). Stateless.
 */
final class RunProperties
{
    /** The file's name in a results directory. */
    static final String FILE = "run.properties";
    /**
     * The layout of a results directory, for readers to check: 2 added the timelines, the RESULT line's cost
     * fields and this file.
     */
    static final int FORMAT = 2;

    private RunProperties()
    {
    }

    /** Writes {@code options} and the machine's description to {@code file}, keys sorted. */
    static void write(final Path file, final SyncBenchOptions options) throws IOException
    {
        final Map<String, String> values = new TreeMap<>();
        values.put("bench", "sync-bench");
        values.put("bench.format", Integer.toString(FORMAT));
        values.put("started", Instant.now().toString());
        values.put("commit", System.getProperty("syncmirror.commit", "unknown"));
        values.put("option.partitions", Integer.toString(options.partitions()));
        values.put("option.partitions-per-topic", Integer.toString(options.partitionsPerTopic()));
        values.put("option.loaded-partitions", Integer.toString(options.loadedPartitions()));
        values.put("option.brokers", Integer.toString(options.brokers()));
        values.put("option.replication-factor", Integer.toString(options.replicationFactor()));
        values.put("option.min-insync-replicas", Integer.toString(options.minInsyncReplicas()));
        values.put("option.destinations", Integer.toString(options.destinations()));
        values.put("option.rate", Integer.toString(options.ratePerSecond()));
        values.put("option.producers", Integer.toString(options.producers()));
        values.put("option.size", Integer.toString(options.messageBytes()));
        values.put("option.warmup-s", Integer.toString(options.warmupSeconds()));
        values.put("option.duration-s", Integer.toString(options.durationSeconds()));
        values.put("option.delay-ms", Double.toString(options.injectedDelayMs()));
        values.put("option.modes", options.modes().stream().map(Enum::name).collect(Collectors.joining(",")));
        values.put("option.storage", options.storage());
        values.put("option.mirror-state-rf", Integer.toString(options.mirrorStateReplicationFactor()));
        values.put("option.heap", options.heap());
        new TreeMap<>(options.brokerConfigs()).forEach((key, value) ->
            values.put("option.broker-config." + key, value));
        values.put("option.serve", Boolean.toString(options.serve()));
        values.putAll(machine());
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            writer.write("# sync-bench run: options, build and machine\n");
            for (final Map.Entry<String, String> entry : values.entrySet())
            {
                writer.write(entry.getKey() + "=" + escape(entry.getValue()) + "\n");
            }
        }
    }

    /** The machine and JVM: cores, CPU model, memory, OS, JVM, collector. */
    static Map<String, String> machine()
    {
        final Map<String, String> values = new TreeMap<>();
        values.put("machine.cores", Integer.toString(Runtime.getRuntime().availableProcessors()));
        values.put("machine.cpu", cpuModel());
        values.put("machine.os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " " +
            System.getProperty("os.arch"));
        values.put("machine.host", hostName());
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
        {
            values.put("machine.memory-mib", Long.toString(os.getTotalMemorySize() >> 20));
        }
        values.put("jvm", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"));
        values.put("jvm.max-heap-mib", Long.toString(Runtime.getRuntime().maxMemory() >> 20));
        values.put("jvm.gc", ManagementFactory.getGarbageCollectorMXBeans().stream().map(b -> b.getName())
            .collect(Collectors.joining(", ")));
        return values;
    }

    private static String cpuModel()
    {
        try
        {
            final List<String> lines = Files.readAllLines(Paths.get("/proc/cpuinfo"), StandardCharsets.UTF_8);
            for (final String line : lines)
            {
                if (line.toLowerCase(Locale.ROOT).startsWith("model name"))
                {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        }
        catch (final IOException | RuntimeException ex)
        {
            // Not Linux: the architecture is all there is to say.
        }
        return System.getProperty("os.arch");
    }

    private static String hostName()
    {
        try
        {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (final IOException ex)
        {
            return "unknown";
        }
    }

    /** A properties value: backslashes and line breaks escaped, the rest as is (UTF-8). */
    static String escape(final String value)
    {
        return value.replace("\\", "\\\\").replace("\n", "\\n").replace("\r", "\\r");
    }
}

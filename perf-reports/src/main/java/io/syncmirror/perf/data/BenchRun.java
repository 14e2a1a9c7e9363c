package io.syncmirror.perf.data;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * A results directory of the sync bench ({@code bin/syncmirror-bench.sh --results-dir}): {@code run.properties},
 * the RESULT lines of {@code summary.txt}, and for each measured window (label) its ack and link logs and its
 * timeline. Immutable once read.
 */
public record BenchRun(Path dir, Map<String, String> properties, List<ResultLine> results)
{
    /** The results layout this reader knows; {@code bench.format} in {@code run.properties}. */
    public static final int FORMAT = 2;

    /** One measured window. */
    public record Window(ResultLine result, LatencyLog ack, LatencyLog linkRtt, Timeline timeline)
    {
    }

    /** Whether {@code dir} looks like a sync bench results directory. */
    public static boolean isOne(final Path dir)
    {
        return Files.isRegularFile(dir.resolve("run.properties")) && Files.isRegularFile(dir.resolve("summary.txt"));
    }

    /**
     * Reads {@code dir}. A directory without {@code run.properties} (a bench from before it was written), or of
     * another {@code bench.format}, is an {@link IOException} that says so.
     */
    public static BenchRun read(final Path dir) throws IOException
    {
        final Path propertiesFile = dir.resolve("run.properties");
        if (!Files.isRegularFile(propertiesFile))
        {
            throw new IOException(dir + " has no run.properties: not a sync bench results directory, or one of a "
                + "bench older than results format " + FORMAT);
        }
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(propertiesFile, StandardCharsets.UTF_8))
        {
            properties.load(reader);
        }
        final String format = properties.getProperty("bench.format");
        if (!Integer.toString(FORMAT).equals(format))
        {
            throw new IOException(dir + " is results format " + format + "; this reader knows format " + FORMAT);
        }
        final Map<String, String> values = new TreeMap<>();
        properties.stringPropertyNames().forEach(name -> values.put(name, properties.getProperty(name)));
        final List<ResultLine> results = new ArrayList<>();
        final Path summary = dir.resolve("summary.txt");
        if (Files.isRegularFile(summary))
        {
            for (final String line : Files.readAllLines(summary, StandardCharsets.UTF_8))
            {
                if (ResultLine.is(line))
                {
                    try
                    {
                        results.add(ResultLine.parse(line));
                    }
                    catch (final IllegalArgumentException ex)
                    {
                        throw new IOException(summary + ": " + ex.getMessage(), ex);
                    }
                }
            }
        }
        return new BenchRun(dir, Collections.unmodifiableMap(values), List.copyOf(results));
    }

    /** The window of {@code result}: its logs and timeline. */
    public Window window(final ResultLine result) throws IOException
    {
        final String label = result.label();
        final Path timeline = dir.resolve(label + "-timeline.csv");
        return new Window(result, LatencyLog.read(dir.resolve(label + "-ack.hlog")),
            LatencyLog.read(dir.resolve(label + "-link-rtt.hlog")),
            Files.isRegularFile(timeline) ? Timeline.read(timeline) : new Timeline(List.of()));
    }

    /** The property {@code name}, or {@code fallback}. */
    public String property(final String name, final String fallback)
    {
        return properties.getOrDefault(name, fallback);
    }
}

package io.syncmirror.perf.gate;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * A gate run's results directory: {@code gate.properties} (suite, rule, sides, machine), {@code rounds.csv}, and
 * {@code baseline/} and {@code candidate/} with each side's bench logs and JMH files. Immutable once read.
 */
public record GateResults(Path dir, Map<String, String> properties, Rounds rounds)
{
    public static final String PROPERTIES = "gate.properties";
    public static final String ROUNDS = "rounds.csv";
    /** The layout of the directory; a stored baseline of another format is refused. */
    public static final int FORMAT = 1;

    /** Whether {@code dir} is a gate run's results directory. */
    public static boolean isOne(final Path dir)
    {
        return Files.isRegularFile(dir.resolve(PROPERTIES)) && Files.isRegularFile(dir.resolve(ROUNDS));
    }

    public static GateResults read(final Path dir) throws IOException
    {
        if (!isOne(dir))
        {
            throw new IOException(dir + " is not a gate results directory (no " + PROPERTIES + " and " + ROUNDS + ")");
        }
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(dir.resolve(PROPERTIES), StandardCharsets.UTF_8))
        {
            properties.load(reader);
        }
        final Map<String, String> values = new TreeMap<>();
        properties.stringPropertyNames().forEach(name -> values.put(name, properties.getProperty(name)));
        if (!Integer.toString(FORMAT).equals(values.get("gate.format")))
        {
            throw new IOException(dir + " is gate results format " + values.get("gate.format") + "; this gate reads "
                + "format " + FORMAT);
        }
        return new GateResults(dir, values, Rounds.read(dir.resolve(ROUNDS)));
    }

    /** Writes {@code values} as {@code gate.properties} in {@code dir}. */
    public static void writeProperties(final Path dir, final Map<String, String> values) throws IOException
    {
        final Properties properties = new Properties();
        values.forEach(properties::setProperty);
        properties.setProperty("gate.format", Integer.toString(FORMAT));
        try (Writer writer = Files.newBufferedWriter(dir.resolve(PROPERTIES), StandardCharsets.UTF_8))
        {
            properties.store(writer, "syncmirror regression gate run");
        }
    }

    public String property(final String name, final String fallback)
    {
        return properties.getOrDefault(name, fallback);
    }
}

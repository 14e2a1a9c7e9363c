package io.syncmirror.perf.gate;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Every measured value of a gate run: which side, which round, which metric, the value, and whether its window
 * was saturated; kept as {@code rounds.csv}. Not thread-safe: the gate's one thread adds.
 */
public final class Rounds
{
    /** The file's header line. */
    public static final String HEADER = "side,round,metric,value,saturated";
    public static final String BASELINE = "baseline";
    public static final String CANDIDATE = "candidate";

    /** One value. */
    public record Sample(String side, int round, String metric, double value, boolean saturated)
    {
    }

    private final List<Sample> samples = new ArrayList<>();

    public void add(final String side, final int round, final String metric, final double value,
        final boolean saturated)
    {
        samples.add(new Sample(side, round, metric, value, saturated));
    }

    public List<Sample> samples()
    {
        return List.copyOf(samples);
    }

    /** The metrics in the order first seen. */
    public List<String> metrics()
    {
        final Set<String> metrics = new LinkedHashSet<>();
        samples.forEach(s -> metrics.add(s.metric()));
        return List.copyOf(metrics);
    }

    /** {@code side}'s values of {@code metric}, by round. */
    public double[] values(final String side, final String metric)
    {
        return samples.stream().filter(s -> s.side().equals(side) && s.metric().equals(metric))
            .sorted((a, b) -> Integer.compare(a.round(), b.round())).mapToDouble(Sample::value).toArray();
    }

    /** How many of {@code side}'s windows were saturated, and how many it had (latency metrics' p50 rows). */
    public int[] saturation(final String side)
    {
        int saturated = 0;
        int windows = 0;
        for (final Sample s : samples)
        {
            if (s.side().equals(side) && s.metric().startsWith("sync-bench.") && s.metric().endsWith(".p50_us"))
            {
                windows++;
                saturated += s.saturated() ? 1 : 0;
            }
        }
        return new int[] {saturated, windows};
    }

    public void write(final Path file) throws IOException
    {
        final List<String> lines = new ArrayList<>();
        lines.add(HEADER);
        for (final Sample s : samples)
        {
            lines.add(String.format(Locale.ROOT, "%s,%d,%s,%s,%b", s.side(), s.round(), quoted(s.metric()),
                Double.toString(s.value()), s.saturated()));
        }
        Files.write(file, lines, StandardCharsets.UTF_8);
    }

    /** A CSV field: quoted (RFC 4180) when it holds a comma or a quote, as JMH metric names with parameters do. */
    static String quoted(final String field)
    {
        return field.contains(",") || field.contains("\"") ? "\"" + field.replace("\"", "\"\"") + "\"" : field;
    }

    /** The fields of one CSV line, quotes undone. */
    static List<String> fields(final String line)
    {
        final List<String> fields = new ArrayList<>();
        final StringBuilder field = new StringBuilder();
        boolean inQuotes = false;
        for (int i = 0; i < line.length(); i++)
        {
            final char c = line.charAt(i);
            if (inQuotes)
            {
                if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"')
                {
                    field.append('"');
                    i++;
                }
                else if (c == '"')
                {
                    inQuotes = false;
                }
                else
                {
                    field.append(c);
                }
            }
            else if (c == '"')
            {
                inQuotes = true;
            }
            else if (c == ',')
            {
                fields.add(field.toString());
                field.setLength(0);
            }
            else
            {
                field.append(c);
            }
        }
        fields.add(field.toString());
        return fields;
    }

    /** Reads a {@code rounds.csv}; another header or a malformed row is an {@link IOException}. */
    public static Rounds read(final Path file) throws IOException
    {
        final List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        if (lines.isEmpty() || !lines.get(0).equals(HEADER))
        {
            throw new IOException(file + " does not start with '" + HEADER + "'");
        }
        final Rounds rounds = new Rounds();
        for (int i = 1; i < lines.size(); i++)
        {
            final List<String> fields = fields(lines.get(i));
            try
            {
                if (fields.size() != 5)
                {
                    throw new NumberFormatException(fields.size() + " fields");
                }
                rounds.add(fields.get(0), Integer.parseInt(fields.get(1)), fields.get(2),
                    Double.parseDouble(fields.get(3)), Boolean.parseBoolean(fields.get(4)));
            }
            catch (final NumberFormatException ex)
            {
                throw new IOException(file + " line " + (i + 1) + " is not a rounds row: '" + lines.get(i) + "'", ex);
            }
        }
        return rounds;
    }
}

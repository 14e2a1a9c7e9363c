package io.syncmirror.perf.data;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * HdrHistogram's percentile distribution as text ({@code Histogram.outputPercentileDistribution}, the {@code .hgrm}
 * files of the produce-latency harness and the sync bench): rows of value, percentile (0..1), total count and
 * 1/(1-percentile). Immutable once read.
 */
public record PercentileFile(Path file, List<Point> points)
{
    /** One row: the value (microseconds as the benchmarks write them) at a quantile (0..1). */
    public record Point(double value, double quantile)
    {
    }

    /** Reads {@code file}; a file with no rows is an {@link IOException}. */
    public static PercentileFile read(final Path file) throws IOException
    {
        final List<Point> points = new ArrayList<>();
        for (final String line : Files.readAllLines(file, StandardCharsets.UTF_8))
        {
            final String[] fields = line.trim().split("\\s+");
            if (fields.length < 3 || line.trim().startsWith("#") || !Character.isDigit(fields[0].charAt(0)))
            {
                continue;
            }
            try
            {
                points.add(new Point(Double.parseDouble(fields[0]), Double.parseDouble(fields[1])));
            }
            catch (final NumberFormatException ex)
            {
                // The header row ("Value Percentile TotalCount 1/(1-Percentile)") and the footer's figures.
            }
        }
        if (points.isEmpty())
        {
            throw new IOException(file + " has no percentile rows: not an HdrHistogram percentile distribution");
        }
        return new PercentileFile(file, List.copyOf(points));
    }
}

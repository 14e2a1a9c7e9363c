package io.syncmirror.perf.data;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

/**
 * An HdrHistogram interval log as the benchmarks write it ({@code <LABEL>-ack.hlog}: one interval a second,
 * values in microseconds), read with HdrHistogram's own {@link HistogramLogReader}. Immutable once read.
 *
 * @param intervals the intervals in the order logged, each with its start and end in seconds from the log's start
 */
public record LatencyLog(Path file, List<Interval> intervals)
{
    /** One interval: seconds from the log's start, and its histogram. */
    public record Interval(double startSeconds, double endSeconds, Histogram histogram)
    {
    }

    /** Reads {@code file}; an unreadable, malformed or empty log is an {@link IOException} naming it. */
    public static LatencyLog read(final Path file) throws IOException
    {
        if (!Files.isRegularFile(file))
        {
            throw new IOException("no histogram log " + file);
        }
        final List<Interval> intervals = new ArrayList<>();
        final HistogramLogReader reader;
        try
        {
            reader = new HistogramLogReader(file.toFile());
        }
        catch (final FileNotFoundException ex)
        {
            throw new IOException("cannot open histogram log " + file, ex);
        }
        try
        {
            double firstStart = Double.NaN;
            EncodableHistogram next;
            while ((next = reader.nextIntervalHistogram()) != null)
            {
                if (!(next instanceof Histogram histogram))
                {
                    throw new IOException(file + " holds a " + next.getClass().getSimpleName() + ", not an integer "
                        + "histogram of microseconds");
                }
                final double start = histogram.getStartTimeStamp() / 1000.0;
                if (Double.isNaN(firstStart))
                {
                    firstStart = start;
                }
                intervals.add(new Interval(start - firstStart, histogram.getEndTimeStamp() / 1000.0 - firstStart,
                    histogram));
            }
        }
        catch (final RuntimeException ex)
        {
            throw new IOException("malformed histogram log " + file + ": " + ex, ex);
        }
        finally
        {
            reader.close();
        }
        if (intervals.isEmpty())
        {
            // A window always logs at least its last interval: an empty log is not one of ours, or was cut short.
            throw new IOException(file + " holds no interval histogram: not an HdrHistogram interval log");
        }
        return new LatencyLog(file, List.copyOf(intervals));
    }

    /** Every interval added together. */
    public Histogram total()
    {
        final Histogram total = new Histogram(3);
        for (final Interval interval : intervals)
        {
            total.add(interval.histogram());
        }
        return total;
    }
}

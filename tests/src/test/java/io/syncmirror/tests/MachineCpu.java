package io.syncmirror.tests;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The whole machine's CPU use between two readings, from the first line of Linux's {@code /proc/stat}, so a latency
 * a test reports stands beside what the machine was doing (every broker process and the test's own JVM).
 */
final class MachineCpu
{
    private static final Path PROC_STAT = Path.of("/proc/stat");

    /** Busy and total jiffies summed over all cores; both -1 where /proc/stat cannot be read. */
    record Reading(long busy, long total)
    {
    }

    private MachineCpu()
    {
    }

    static Reading read()
    {
        try
        {
            final List<String> lines = Files.readAllLines(PROC_STAT, StandardCharsets.US_ASCII);
            // cpu user nice system idle iowait irq softirq steal [guest guest_nice, already in user and nice]
            final String[] fields = lines.get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i <= 8 && i < fields.length; i++)
            {
                total += Long.parseLong(fields[i]);
            }
            final long idle = Long.parseLong(fields[4]) + (fields.length > 5 ? Long.parseLong(fields[5]) : 0);
            return new Reading(total - idle, total);
        }
        catch (final IOException | RuntimeException e)
        {
            return new Reading(-1, -1);
        }
    }

    /** Percent of all cores busy between the two readings, or NaN where either could not be read. */
    static double busyPercent(final Reading from, final Reading to)
    {
        final long total = to.total() - from.total();
        if (from.total() < 0 || to.total() < 0 || total <= 0)
        {
            return Double.NaN;
        }
        return 100.0 * (to.busy() - from.busy()) / total;
    }
}

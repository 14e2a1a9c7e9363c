package io.syncmirror.bench.e2e;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * CPU time of this JVM's threads over a window, summed by the kind of thread: a thread's name with its numbers
 * replaced by {@code #} ({@code broker-4-mirror-coordinator} and {@code broker-5-mirror-coordinator} are one kind), so
 * that the idle window says which of the brokers' pieces spend what. Threads that start or end inside the window
 * count from their first sighting or until their last one.
 *
 * <p>Not thread-safe: one thread takes both snapshots.
 */
final class ThreadCpu
{
    private static final Pattern NUMBERS = Pattern.compile("[0-9]+");

    /** A kind of thread and its CPU over the window. */
    record Kind(String name, int threads, long cpuNs)
    {
    }

    private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    private final Map<Long, Long> startCpuNs = new HashMap<>();

    private ThreadCpu()
    {
    }

    /** Takes the window's first snapshot now; null when the JVM cannot measure thread CPU. */
    static ThreadCpu start()
    {
        final ThreadCpu cpu = new ThreadCpu();
        if (!cpu.threads.isThreadCpuTimeSupported())
        {
            return null;
        }
        if (!cpu.threads.isThreadCpuTimeEnabled())
        {
            cpu.threads.setThreadCpuTimeEnabled(true);
        }
        for (final long id : cpu.threads.getAllThreadIds())
        {
            final long ns = cpu.threads.getThreadCpuTime(id);
            if (ns >= 0)
            {
                cpu.startCpuNs.put(id, ns);
            }
        }
        return cpu;
    }

    /** The CPU each kind of thread used since {@link #start}, most first. */
    List<Kind> finish()
    {
        final Map<String, long[]> byKind = new HashMap<>();
        final long[] ids = threads.getAllThreadIds();
        final ThreadInfo[] infos = threads.getThreadInfo(ids);
        for (int i = 0; i < ids.length; i++)
        {
            final long ns = threads.getThreadCpuTime(ids[i]);
            if (ns < 0 || infos[i] == null)
            {
                continue;
            }
            final long[] kind = byKind.computeIfAbsent(kindOf(infos[i].getThreadName()), k -> new long[2]);
            kind[0]++;
            kind[1] += ns - startCpuNs.getOrDefault(ids[i], 0L);
        }
        final List<Kind> kinds = new ArrayList<>();
        byKind.forEach((name, counts) -> kinds.add(new Kind(name, (int)counts[0], counts[1])));
        kinds.sort((a, b) -> Long.compare(b.cpuNs, a.cpuNs));
        return kinds;
    }

    /** A thread's kind: its name with every run of digits replaced by {@code #}. */
    static String kindOf(final String threadName)
    {
        return NUMBERS.matcher(threadName).replaceAll("#");
    }

    /** {@code kinds}' first {@code top} as "name (threads) pct%" over a window of {@code seconds}, % of one core. */
    static String describe(final List<Kind> kinds, final int top, final double seconds)
    {
        final StringBuilder line = new StringBuilder();
        for (int i = 0; i < Math.min(top, kinds.size()); i++)
        {
            final Kind kind = kinds.get(i);
            if (i > 0)
            {
                line.append(", ");
            }
            line.append(String.format(Locale.ROOT, "%s (%d) %.1f %%", kind.name, kind.threads,
                kind.cpuNs / 1e7 / seconds));
        }
        return line.toString();
    }
}

package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What a measured window cost the machine: this process's CPU, the whole machine's CPU (Linux {@code /proc/stat}),
 * and the JVM's garbage-collection pause time, in total and per second into a CSV timeline
 * ({@code second,process_cpu_pct,machine_cpu_pct,gc_pause_ms}) that the report plots beside the latency. A run whose
 * window saturated the machine measures the machine, not the code: {@link Totals#saturated} says so.
 *
 * <p>Thread-safe for one controlling thread: {@link #start} and {@link #finish} are called by it; a daemon thread
 * samples once a second in between.
 */
public final class WindowMeter
{
    /** CPU above this share of the machine (all cores), in percent, makes a window saturated. */
    public static final double SATURATED_MACHINE_CPU_PCT = 80.0;
    /** An achieved rate this far (in percent) below the asked one makes a window saturated. */
    public static final double SATURATED_RATE_SHORTFALL_PCT = 2.0;
    /** The timeline file's header line. */
    public static final String TIMELINE_HEADER = "second,process_cpu_pct,machine_cpu_pct,gc_pause_ms";
    private static final Path PROC_STAT = Paths.get("/proc/stat");
    private static final long SAMPLE_NS = TimeUnit.SECONDS.toNanos(1);

    /** One reading of the three counters; a counter the platform does not give is -1. */
    record Reading(long wallNs, long processCpuNs, long machineBusyTicks, long machineTotalTicks, long gcPauseMs)
    {
    }

    /**
     * A whole window's figures.
     *
     * @param processCpuPct CPU of this process, 100 per busy core
     * @param machineCpuPct CPU of the whole machine, 100 when every core is busy (NaN off Linux)
     * @param gcPauseMs     garbage-collection pause time in the window
     * @param gcMaxPauseMs  the longest single pause in the window (-1 when the JVM does not report pauses)
     */
    public record Totals(double seconds, double processCpuPct, double machineCpuPct, long gcPauseMs, int cores,
        long gcMaxPauseMs)
    {
        /** A window without a record of its longest pause. */
        public Totals(final double seconds, final double processCpuPct, final double machineCpuPct,
            final long gcPauseMs, final int cores)
        {
            this(seconds, processCpuPct, machineCpuPct, gcPauseMs, cores, -1L);
        }

        /**
         * Whether the window measured a starved machine: CPU over {@link #SATURATED_MACHINE_CPU_PCT} of the machine
         * (this process alone when the machine's figure is missing), or an achieved rate short of the asked one.
         */
        public boolean saturated(final double askedRate, final double achievedRate)
        {
            final double machine = Double.isNaN(machineCpuPct) ? processCpuPct / cores : machineCpuPct;
            return machine > SATURATED_MACHINE_CPU_PCT ||
                achievedRate < askedRate * (1.0 - SATURATED_RATE_SHORTFALL_PCT / 100.0);
        }
    }

    private final PrintStream timeline;
    private final Thread sampler;
    private final Reading first;
    private final PauseListener pauses = new PauseListener();
    private volatile boolean running = true;

    private WindowMeter(final Path timelineCsv) throws IOException
    {
        this.timeline = new PrintStream(Files.newOutputStream(timelineCsv), false, StandardCharsets.UTF_8);
        timeline.println(TIMELINE_HEADER);
        pauses.start();
        this.first = read();
        this.sampler = new Thread(this::sample, "window-meter-" + timelineCsv.getFileName());
        sampler.setDaemon(true);
        sampler.start();
    }

    /** Starts measuring now, writing one timeline line a second to {@code timelineCsv}. */
    public static WindowMeter start(final Path timelineCsv) throws IOException
    {
        return new WindowMeter(timelineCsv);
    }

    /** Stops the sampler, closes the timeline and returns the window's figures since {@link #start}. */
    public Totals finish()
    {
        running = false;
        LockSupport.unpark(sampler);
        try
        {
            sampler.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        timeline.close();
        final Reading last = read();
        return new Totals((last.wallNs() - first.wallNs()) / 1e9, processCpuPct(first, last),
            machineCpuPct(first, last), last.gcPauseMs() - first.gcPauseMs(),
            Runtime.getRuntime().availableProcessors(), pauses.finish());
    }

    /**
     * The longest pause of the pausing collectors while it listens, from the JVM's GC notifications (HotSpot's
     * {@code com.sun.management} beans): a window's total pause time hides whether one pause took 100 ms or ten
     * took 10 each, and a latency tail cares which.
     */
    private static final class PauseListener implements javax.management.NotificationListener
    {
        private final java.util.concurrent.atomic.AtomicLong maxMs = new java.util.concurrent.atomic.AtomicLong();
        private final List<javax.management.NotificationEmitter> emitters = new ArrayList<>();

        void start()
        {
            for (final GarbageCollectorMXBean bean : pausingCollectors())
            {
                if (bean instanceof javax.management.NotificationEmitter emitter)
                {
                    emitter.addNotificationListener(this, null, null);
                    emitters.add(emitter);
                }
            }
        }

        @Override
        public void handleNotification(final javax.management.Notification notification, final Object handback)
        {
            if (notification.getType().equals(
                com.sun.management.GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION))
            {
                final com.sun.management.GarbageCollectionNotificationInfo info =
                    com.sun.management.GarbageCollectionNotificationInfo.from(
                        (javax.management.openmbean.CompositeData)notification.getUserData());
                maxMs.accumulateAndGet(info.getGcInfo().getDuration(), Math::max);
            }
        }

        /** Stops listening; the longest pause seen, or -1 when no collector could be listened to. */
        long finish()
        {
            for (final javax.management.NotificationEmitter emitter : emitters)
            {
                try
                {
                    emitter.removeNotificationListener(this);
                }
                catch (final javax.management.ListenerNotFoundException ignored)
                {
                    // not registered on this one
                }
            }
            return emitters.isEmpty() ? -1L : maxMs.get();
        }
    }

    private void sample()
    {
        Reading previous = first;
        long nextNs = first.wallNs() + SAMPLE_NS;
        int second = 0;
        while (running)
        {
            final long remainingNs = nextNs - System.nanoTime();
            if (remainingNs > 0)
            {
                LockSupport.parkNanos(remainingNs);
                continue;
            }
            final Reading now = read();
            second++;
            timeline.printf(Locale.ROOT, "%d,%.1f,%.1f,%d%n", second, processCpuPct(previous, now),
                machineCpuPct(previous, now), now.gcPauseMs() - previous.gcPauseMs());
            previous = now;
            nextNs += SAMPLE_NS;
        }
    }

    static double processCpuPct(final Reading from, final Reading to)
    {
        final long wallNs = to.wallNs() - from.wallNs();
        if (from.processCpuNs() < 0 || to.processCpuNs() < 0 || wallNs <= 0)
        {
            return Double.NaN;
        }
        return 100.0 * (to.processCpuNs() - from.processCpuNs()) / wallNs;
    }

    static double machineCpuPct(final Reading from, final Reading to)
    {
        final long total = to.machineTotalTicks() - from.machineTotalTicks();
        if (from.machineTotalTicks() < 0 || to.machineTotalTicks() < 0 || total <= 0)
        {
            return Double.NaN;
        }
        return 100.0 * (to.machineBusyTicks() - from.machineBusyTicks()) / total;
    }

    static Reading read()
    {
        final long[] machine = machineTicks();
        return new Reading(System.nanoTime(), processCpuTimeNs(), machine[0], machine[1], gcPauseMs());
    }

    /**
     * The machine's busy and total CPU ticks from the first line of {@code /proc/stat} (user nice system idle iowait
     * irq softirq steal ...; idle and iowait are not busy), or -1s when it cannot be read.
     */
    static long[] machineTicks()
    {
        try
        {
            final List<String> lines = Files.readAllLines(PROC_STAT, StandardCharsets.US_ASCII);
            return parseCpuLine(lines.isEmpty() ? "" : lines.get(0));
        }
        catch (final IOException | RuntimeException ex)
        {
            return new long[] {-1L, -1L};
        }
    }

    static long[] parseCpuLine(final String line)
    {
        final String[] fields = line.trim().split("\\s+");
        if (fields.length < 5 || !fields[0].equals("cpu"))
        {
            return new long[] {-1L, -1L};
        }
        long total = 0;
        long idle = 0;
        // Guest time (fields 9 and 10) is already counted in user and nice.
        for (int i = 1; i < Math.min(fields.length, 9); i++)
        {
            final long ticks = Long.parseLong(fields[i]);
            total += ticks;
            if (i == 4 || i == 5)
            {
                idle += ticks;
            }
        }
        return new long[] {total - idle, total};
    }

    /** This process's CPU time in nanoseconds, or -1 when the JVM does not say. */
    static long processCpuTimeNs()
    {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os)
        {
            return os.getProcessCpuTime();
        }
        return -1L;
    }

    /**
     * The JVM's collection time in milliseconds over the collectors that pause the application. G1's and
     * Parallel's beans count pauses; ZGC and Shenandoah have a bean for their concurrent cycles ("Cycles") beside
     * the one for pauses, and JDK 20+ G1 has a "Concurrent GC" bean: those time concurrent work, not pauses.
     */
    static long gcPauseMs()
    {
        long total = 0;
        for (final GarbageCollectorMXBean bean : pausingCollectors())
        {
            total += Math.max(0L, bean.getCollectionTime());
        }
        return total;
    }

    private static List<GarbageCollectorMXBean> pausingCollectors()
    {
        final List<GarbageCollectorMXBean> pausing = new ArrayList<>();
        for (final GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans())
        {
            final String name = bean.getName();
            if (!name.contains("Cycles") && !name.contains("Concurrent"))
            {
                pausing.add(bean);
            }
        }
        return pausing;
    }
}

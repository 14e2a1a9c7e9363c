package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogWriter;
import org.HdrHistogram.Recorder;

/**
 * One measured quantity of one mode: a {@link Recorder} any thread records into, and, from {@link #start}, a
 * daemon thread that every {@link #INTERVAL_NS} takes the interval histogram, appends it to an HdrHistogram log
 * file (readable by {@code HistogramLogProcessor} and {@code HistogramLogReader}) and adds it to the total. Values
 * recorded before {@link #start} are dropped. Thread-safe: any thread records; one controlling thread calls
 * {@link #start} and {@link #finish}.
 */
public final class IntervalHistogramLog
{
    /** How often an interval histogram is written. */
    public static final long INTERVAL_NS = TimeUnit.SECONDS.toNanos(1);
    /** The log's Interval_Max column is in milliseconds: values are microseconds. */
    private static final double MAX_VALUE_UNIT_RATIO = 1000.0;

    private final Recorder recorder = new Recorder(3);
    private final Histogram total = new Histogram(3);
    private final PrintStream file;
    private final HistogramLogWriter writer;
    private final Thread thread;
    private volatile boolean running;
    private Histogram recycled;
    private long baseTimeMs;
    /** Intervals logged so far; guarded by this object. */
    private int intervalsLogged;

    /**
     * Opens {@code path} and writes the log header with {@code comment}.
     *
     * @throws IOException when the file cannot be created
     */
    public IntervalHistogramLog(final Path path, final String comment) throws IOException
    {
        this.file = new PrintStream(path.toFile(), StandardCharsets.UTF_8);
        this.writer = new HistogramLogWriter(file);
        writer.outputComment(comment);
        writer.outputLogFormatVersion();
        this.thread = new Thread(this::loop, "hdr-log-" + path.getFileName());
        thread.setDaemon(true);
    }

    /** The recorder to record microseconds into. */
    public Recorder recorder()
    {
        return recorder;
    }

    /** Drops what was recorded so far (the warm-up's values) and starts logging intervals; called once. */
    public synchronized void start()
    {
        recorder.reset();
        baseTimeMs = System.currentTimeMillis();
        writer.outputStartTime(baseTimeMs);
        writer.setBaseTime(baseTimeMs);
        writer.outputLegend();
        running = true;
        thread.start();
    }

    /**
     * Logs the last interval, stops the thread, closes the file and returns everything logged since
     * {@link #start} (nothing when it was not started).
     */
    public Histogram finish()
    {
        if (!running)
        {
            synchronized (this)
            {
                file.close();
                return total.copy();
            }
        }
        running = false;
        LockSupport.unpark(thread);
        try
        {
            thread.join();
        }
        catch (final InterruptedException ex)
        {
            Thread.currentThread().interrupt();
        }
        synchronized (this)
        {
            logInterval();
            file.close();
            return total.copy();
        }
    }

    private void loop()
    {
        long nextNs = System.nanoTime() + INTERVAL_NS;
        while (running)
        {
            final long remainingNs = nextNs - System.nanoTime();
            if (remainingNs > 0)
            {
                LockSupport.parkNanos(remainingNs);
                continue;
            }
            synchronized (this)
            {
                logInterval();
            }
            nextNs += INTERVAL_NS;
        }
    }

    /** How many intervals were logged so far (for tests). */
    synchronized int intervalsLogged()
    {
        return intervalsLogged;
    }

    private void logInterval()
    {
        intervalsLogged++;
        final Histogram interval = recorder.getIntervalHistogram(recycled);
        total.add(interval);
        writer.outputIntervalHistogram((interval.getStartTimeStamp() - baseTimeMs) / 1000.0,
            (interval.getEndTimeStamp() - baseTimeMs) / 1000.0, interval, MAX_VALUE_UNIT_RATIO);
        recycled = interval;
    }
}

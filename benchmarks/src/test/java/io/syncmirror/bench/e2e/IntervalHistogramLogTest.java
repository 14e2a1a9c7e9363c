package io.syncmirror.bench.e2e;

import java.io.FileNotFoundException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class IntervalHistogramLogTest
{
    @TempDir
    Path dir;

    @Test
    void shouldLogWhatIsRecordedAfterStartAndReturnItAsTheTotal() throws Exception
    {
        final Path file = dir.resolve("x.hlog");
        final IntervalHistogramLog log = new IntervalHistogramLog(file, "test values, microseconds");
        log.recorder().recordValue(999_999L); // warm-up: dropped by start()
        log.start();
        for (long v = 1; v <= 1000; v++)
        {
            log.recorder().recordValue(v);
        }
        // At least one interval written by the logging thread (after about a second; longer on a loaded machine).
        final long deadlineNs = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
        while (log.intervalsLogged() == 0 && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(50);
        }
        log.recorder().recordValue(5_000L);
        final Histogram total = log.finish();

        assertEquals(1001, total.getTotalCount());
        assertEquals(5_000L, total.getMaxValue(), 5_000L / 1000);
        final Histogram fromFile = read(file);
        assertEquals(total.getTotalCount(), fromFile.getTotalCount());
        assertEquals(total.getValueAtPercentile(50.0), fromFile.getValueAtPercentile(50.0));
        final String text = Files.readString(file);
        assertTrue(text.startsWith("#test values, microseconds"), text);
        assertTrue(text.lines().filter(line -> line.matches("[0-9.]+,[0-9.]+,[0-9.]+,HIST.*")).count() >= 2, text);
        // The Interval_Max column is in milliseconds: the last interval's maximum of 5000 us is 5.000.
        assertTrue(text.contains(",5.000,") || text.contains(",5.001,") || text.contains(",5.003,"), text);
    }

    @Test
    void shouldCloseAnEmptyLogThatWasNeverStarted() throws Exception
    {
        final Path file = dir.resolve("empty.hlog");
        final IntervalHistogramLog log = new IntervalHistogramLog(file, "nothing");
        log.recorder().recordValue(10L);
        assertEquals(0, log.finish().getTotalCount());
        assertEquals(0, read(file).getTotalCount());
    }

    private static Histogram read(final Path file) throws FileNotFoundException
    {
        final Histogram sum = new Histogram(3);
        final HistogramLogReader reader = new HistogramLogReader(file.toFile());
        while (reader.hasNext())
        {
            final Histogram interval = (Histogram)reader.nextIntervalHistogram();
            if (interval != null)
            {
                sum.add(interval);
            }
        }
        return sum;
    }
}

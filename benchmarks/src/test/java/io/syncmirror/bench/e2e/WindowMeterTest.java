package io.syncmirror.bench.e2e;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(30)
class WindowMeterTest
{
    @Test
    void shouldCountIdleAndIowaitAsNotBusyAndLeaveGuestTimeOut()
    {
        // user nice system idle iowait irq softirq steal guest guest_nice
        assertArrayEquals(new long[] {10 + 2 + 5 + 1 + 1 + 0, 10 + 2 + 5 + 80 + 3 + 1 + 1 + 0},
            WindowMeter.parseCpuLine("cpu  10 2 5 80 3 1 1 0 7 7"));
        assertArrayEquals(new long[] {-1, -1}, WindowMeter.parseCpuLine("cpu0 1 2 3 4 5"));
        assertArrayEquals(new long[] {-1, -1}, WindowMeter.parseCpuLine(""));
    }

    @Test
    void shouldGiveTheShareOfTheMachineAndOfOneCoreBetweenTwoReadings()
    {
        final WindowMeter.Reading from = new WindowMeter.Reading(0, 0, 100, 1000, 5);
        final WindowMeter.Reading to = new WindowMeter.Reading(2_000_000_000L, 3_000_000_000L, 400, 1400, 9);
        assertEquals(150.0, WindowMeter.processCpuPct(from, to), 1e-9);
        assertEquals(75.0, WindowMeter.machineCpuPct(from, to), 1e-9);
        assertTrue(Double.isNaN(WindowMeter.machineCpuPct(new WindowMeter.Reading(0, 0, -1, -1, 0), to)));
        assertTrue(Double.isNaN(WindowMeter.processCpuPct(new WindowMeter.Reading(0, -1, 0, 0, 0), to)));
    }

    @Test
    void shouldMeasureABusyThreadAndWriteOneTimelineLineASecond(@TempDir final Path dir) throws Exception
    {
        final Path timeline = dir.resolve("ASYNC-timeline.csv");
        final WindowMeter meter = WindowMeter.start(timeline);
        final long endNs = System.nanoTime() + 2_300_000_000L;
        long spins = 0;
        while (System.nanoTime() < endNs)
        {
            spins++;
        }
        final WindowMeter.Totals totals = meter.finish();
        assertTrue(spins > 0);
        assertTrue(totals.seconds() >= 2.3, "seconds " + totals.seconds());
        // One thread spun the whole window: about one core, whatever else the machine does.
        assertTrue(totals.processCpuPct() > 60.0, "process CPU " + totals.processCpuPct());
        final List<String> lines = Files.readAllLines(timeline, StandardCharsets.UTF_8);
        assertEquals(WindowMeter.TIMELINE_HEADER, lines.get(0));
        assertEquals(3, lines.size(), "header and two whole seconds: " + lines);
        assertTrue(lines.get(1).matches("1,[0-9.]+,([0-9.]+|NaN),\\d+"), lines.get(1));
    }

    @Test
    void shouldReportTheLongestPauseOfTheWindow(@TempDir final Path dir) throws Exception
    {
        final WindowMeter meter = WindowMeter.start(dir.resolve("IDLE-timeline.csv"));
        System.gc(); // a full, stop-the-world collection: one pause, reported by notification
        Thread.sleep(1_000); // the notification comes on the JVM's own thread shortly after the collection
        final WindowMeter.Totals totals = meter.finish();
        assertTrue(totals.gcMaxPauseMs() >= 0, "listened to a pausing collector: " + totals);
        // The total is the beans' collection time and the longest pause a notification's start-to-end duration:
        // two clocks rounded to whole milliseconds separately, so the pause may read up to 2 ms over the total.
        assertTrue(totals.gcMaxPauseMs() <= totals.gcPauseMs() + 2, "the longest pause is part of the total: "
            + totals);
    }
}

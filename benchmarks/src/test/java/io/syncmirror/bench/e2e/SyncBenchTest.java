package io.syncmirror.bench.e2e;

import java.time.LocalDateTime;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class SyncBenchTest
{
    private static final String RESULT_FORMAT = "RESULT mode=(ASYNC|SYNC) partitions=\\d+ destinations=\\d+ "
        + "p50_us=-?\\d+ p99_us=-?\\d+ p999_us=-?\\d+ max_us=-?\\d+ link_rtt_p50_us=-?\\d+ acked=\\d+ label=\\S+ "
        + "rate=\\d+ achieved_rate=[0-9.]+ cpu_pct=[0-9.]+ machine_cpu_pct=[0-9.]+ cpu_us_per_record=[0-9.]+ "
        + "gc_pause_ms=\\d+ saturated=(true|false) gc_max_pause_ms=-?\\d+";

    @Test
    void shouldPrintTheResultLineInExactlyTheAgreedForm()
    {
        final SyncBenchOptions options = SyncBenchOptions.parse(new String[]{ "--partitions", "100000",
            "--destinations", "2" }, LocalDateTime.now());
        final Histogram ack = new Histogram(3);
        for (long v = 1; v <= 1000; v++)
        {
            ack.recordValue(v);
        }
        final Histogram rtt = new Histogram(3);
        rtt.recordValue(250);
        // 10 s at 50 % of one core of 2: 5 CPU-seconds for 1000 records is 5000 us each; 25 % of the machine.
        final WindowMeter.Totals meter = new WindowMeter.Totals(10.0, 50.0, 25.0, 12, 2, 7);
        final String line = SyncBench.resultLine(new SyncBench.ModeResult(MirrorType.SYNC, "SYNC", ack, rtt, 1000, 0,
            200, 199.5, meter, 1.5, null), options);
        assertTrue(line.matches(RESULT_FORMAT), line);
        assertEquals("RESULT mode=SYNC partitions=100000 destinations=2 p50_us=500 p99_us=990 p999_us=999 "
            + "max_us=1000 link_rtt_p50_us=250 acked=1000 label=SYNC rate=200 achieved_rate=199.5 cpu_pct=50.0 "
            + "machine_cpu_pct=25.0 cpu_us_per_record=5000.0 gc_pause_ms=12 saturated=false gc_max_pause_ms=7", line);
    }

    @Test
    void shouldCallAWindowSaturatedWhenTheMachineIsBusyOrTheRateFallsShort()
    {
        final WindowMeter.Totals calm = new WindowMeter.Totals(10.0, 120.0, 65.0, 0, 2);
        assertFalse(calm.saturated(200, 199.0));
        assertTrue(calm.saturated(200, 195.0), "2.5 % short of the asked rate");
        assertTrue(new WindowMeter.Totals(10.0, 120.0, 81.0, 0, 2).saturated(200, 200.0), "81 % of the machine");
        // Off Linux the machine's figure is missing: this process's share of all cores stands in.
        assertTrue(new WindowMeter.Totals(10.0, 170.0, Double.NaN, 0, 2).saturated(200, 200.0));
        assertFalse(new WindowMeter.Totals(10.0, 150.0, Double.NaN, 0, 2).saturated(200, 200.0));
        final SyncBench.ModeResult result = new SyncBench.ModeResult(MirrorType.ASYNC, "ASYNC", new Histogram(3),
            new Histogram(3), 0, 0, 1000, 900.0, new WindowMeter.Totals(10.0, 190.0, 97.0, 0, 2), Double.NaN, null);
        assertTrue(result.saturated());
        assertEquals("WARNING ASYNC saturated: machine CPU 97 % (this process 190 % of one core, 2 cores), 900.0 "
            + "records/s achieved of 1000 asked; its latency measures CPU starvation, not the code: lower --rate or "
            + "--partitions", SyncBench.saturationWarning(result));
    }

    @Test
    void shouldReportNoLinkRoundTripAsMinusOne()
    {
        final SyncBench.ModeResult result = new SyncBench.ModeResult(MirrorType.ASYNC, "ASYNC", new Histogram(3),
            new Histogram(3), 0, 0, 200, 200.0, null, Double.NaN, null);
        assertEquals(-1, SyncBench.linkP50(result));
    }

    @Test
    void shouldKeepErrorsOnOneLine()
    {
        assertEquals("a b c", SyncBench.oneLine(" a\n b\tc "));
    }
}

package io.syncmirror.bench.e2e;

import java.time.LocalDateTime;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(10)
class SyncBenchTest
{
    private static final String RESULT_FORMAT = "RESULT mode=(ASYNC|SYNC) partitions=\\d+ destinations=\\d+ "
        + "p50_us=-?\\d+ p99_us=-?\\d+ p999_us=-?\\d+ max_us=-?\\d+ link_rtt_p50_us=-?\\d+ acked=\\d+";

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
        final String line = SyncBench.resultLine(new SyncBench.ModeResult(MirrorType.SYNC, ack, rtt, 1000, 0, 50.0,
            1.5, null), options);
        assertTrue(line.matches(RESULT_FORMAT), line);
        assertEquals("RESULT mode=SYNC partitions=100000 destinations=2 p50_us=500 p99_us=990 p999_us=999 "
            + "max_us=1000 link_rtt_p50_us=250 acked=1000", line);
    }

    @Test
    void shouldReportNoLinkRoundTripAsMinusOne()
    {
        final SyncBench.ModeResult result = new SyncBench.ModeResult(MirrorType.ASYNC, new Histogram(3),
            new Histogram(3), 0, 0, Double.NaN, Double.NaN, null);
        assertEquals(-1, SyncBench.linkP50(result));
    }

    @Test
    void shouldKeepErrorsOnOneLine()
    {
        assertEquals("a b c", SyncBench.oneLine(" a\n b\tc "));
    }
}

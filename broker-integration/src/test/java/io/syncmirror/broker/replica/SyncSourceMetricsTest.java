package io.syncmirror.broker.replica;

import java.util.zip.DataFormatException;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class SyncSourceMetricsTest
{
    @Test
    @DisplayName("the encoded histogram decodes to what was recorded, and two readings subtract to the window between")
    void shouldGiveAWindowByDifferenceOfTwoEncodedReadings() throws DataFormatException
    {
        try (SyncSourceMetrics metrics = new SyncSourceMetrics())
        {
            for (int i = 0; i < 1_000; i++)
            {
                metrics.produceStarted();
                metrics.produceAnswered(900_000_000L); // a slow warm-up: 900 ms each
            }
            final Histogram before = Histogram.fromString(SyncSourceMetrics.encode(metrics.snapshot()));
            for (int i = 0; i < 2_000; i++)
            {
                metrics.produceStarted();
                metrics.produceAnswered(20_000_000L + i * 1_000L); // the window: 20-22 ms
            }
            final Histogram after = Histogram.fromString(SyncSourceMetrics.encode(metrics.snapshot()));
            assertEquals(1_000, before.getTotalCount());
            assertEquals(3_000, after.getTotalCount());
            assertEquals(900_000, after.getMaxValue(), 900_000 / 500.0, "the total still holds the warm-up");

            final Histogram window = after.copy();
            window.subtract(before);
            assertEquals(2_000, window.getTotalCount());
            assertEquals(21_980, window.getValueAtPercentile(99), 30, "p99 of the window alone, in µs");
            assertEquals(0, metrics.producesWaiting());
        }
    }
}

package io.syncmirror.benchmarks;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MicroBenchmarksTest
{
    @Test
    void shouldTakeTheMiddleValueOfAnOddCount()
    {
        assertEquals(5.0, MicroBenchmarks.median(new double[]{ 9.0, 1.0, 5.0 }));
        assertEquals(7.5, MicroBenchmarks.median(new double[]{ 7.5 }));
    }

    @Test
    void shouldAverageTheTwoMiddleValuesOfAnEvenCount()
    {
        assertEquals(4.0, MicroBenchmarks.median(new double[]{ 10.0, 3.0, 5.0, 1.0 }));
    }

    @Test
    void shouldNotReorderTheCallersValues()
    {
        final double[] values = { 3.0, 1.0, 2.0 };
        MicroBenchmarks.median(values);
        assertEquals(3.0, values[0]);
    }

    @Test
    void shouldReturnNaNForNoValues()
    {
        assertTrue(Double.isNaN(MicroBenchmarks.median(new double[0])));
    }

    @Test
    void shouldLabelRoundCountsShortly()
    {
        assertEquals("1k", MicroBenchmarks.count("1000"));
        assertEquals("100k", MicroBenchmarks.count("100000"));
        assertEquals("10k", MicroBenchmarks.count("10000"));
        assertEquals("0", MicroBenchmarks.count("0"));
        assertEquals("3", MicroBenchmarks.count("3"));
        assertEquals("1500", MicroBenchmarks.count("1500"));
        assertEquals("2m", MicroBenchmarks.count("2000000"));
    }

    @Test
    void shouldFormatComparisonsWithTheBaselineOverOursRatio()
    {
        assertEquals("COMPARE purgatory_100k_p1 ours_ns=50.00 baseline_ns=1234.57 ratio=24.69 ours_alloc_b=0.0",
            MicroBenchmarks.compareLine("purgatory_100k_p1",
                new MicroBenchmarks.Figure(50.0, 0.0001), new MicroBenchmarks.Figure(1234.5678, 312.0)));
    }

    @Test
    void shouldFormatAbsoluteFigures()
    {
        assertEquals("FIGURE hw_recompute_1k_m2 ns=12.35 alloc_b=0.0",
            MicroBenchmarks.figureLine("hw_recompute_1k_m2", new MicroBenchmarks.Figure(12.345678, 0.0)));
    }
}

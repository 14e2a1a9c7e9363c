package io.syncmirror.benchmarks;

import io.syncmirror.hwgate.HighWatermarkGate;
import io.syncmirror.offheap.PartitionTable;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HwRecomputeBenchmarkTest
{
    private static final int OPERATIONS = 200_000;

    @Test
    void shouldAdvanceTheHighWatermarkWithoutMirrors()
    {
        shouldKeepTheHighWatermarkAtTheMinimumLeo(0);
    }

    @Test
    void shouldAdvanceTheHighWatermarkWithTwoMirrors()
    {
        shouldKeepTheHighWatermarkAtTheMinimumLeo(2);
    }

    @Test
    void shouldLayOutRowsOfTheDocumentedSize()
    {
        assertEquals(48, HwRecomputeBenchmark.rowBytes(0));
        assertEquals(88, HwRecomputeBenchmark.rowBytes(1));
        assertEquals(128, HwRecomputeBenchmark.rowBytes(2));
    }

    @Test
    void shouldTouchTheSameRowsInTheBaseline()
    {
        final HwRecomputeBenchmark benchmark = benchmark(1);
        long sum = 0;
        for (int i = 0; i < OPERATIONS; i++)
        {
            sum += benchmark.randomLoadBaseline() > 0 ? 1 : 0;
        }
        assertEquals(OPERATIONS, sum);
    }

    @Test
    void shouldChaseThroughEveryRowOnceACycleInTheDependentBaseline()
    {
        final HwRecomputeBenchmark benchmark = benchmark(0);
        final int rows = benchmark.table().slotCapacity();
        final java.util.BitSet seen = new java.util.BitSet(rows);
        for (int i = 0; i < rows; i++)
        {
            seen.set((int)benchmark.dependentLoadBaseline());
        }
        assertEquals(rows, seen.cardinality(), "one cycle through all rows");
    }

    private static void shouldKeepTheHighWatermarkAtTheMinimumLeo(final int mirrors)
    {
        final HwRecomputeBenchmark benchmark = benchmark(mirrors);
        long advances = 0;
        for (int i = 0; i < OPERATIONS; i++)
        {
            if (benchmark.hwRecompute() != HighWatermarkGate.NO_ADVANCE)
            {
                advances++;
            }
        }

        final PartitionTable table = benchmark.table();
        long highWatermarks = 0;
        for (int slot = 0; slot < table.slotCapacity(); slot++)
        {
            final long min = minLeo(table, slot, mirrors);
            assertEquals(min, table.highWatermark(slot), "slot " + slot);
            highWatermarks += table.highWatermark(slot);
        }
        assertEquals(highWatermarks, advances, "every advance moves one HW by one");
        assertTrue(advances > OPERATIONS / (10L * (1 + mirrors)), "the HW advances often: " + advances);
    }

    @Test
    void shouldKeepTheHighWatermarkAtTheMinimumLeoInBatchesAndOneAtATime()
    {
        for (final boolean batched : new boolean[] {true, false})
        {
            final HwRecomputeBenchmark benchmark = benchmark(1);
            for (int i = 0; i < OPERATIONS / HwRecomputeBenchmark.BATCH; i++)
            {
                if (batched)
                {
                    benchmark.hwRecomputeBatch();
                }
                else
                {
                    for (int j = 0; j < HwRecomputeBenchmark.BATCH; j++)
                    {
                        benchmark.hwRecomputeOne();
                    }
                }
            }
            final PartitionTable table = benchmark.table();
            long advanced = 0;
            for (int slot = 0; slot < table.slotCapacity(); slot++)
            {
                final long min = minLeo(table, slot, 1);
                assertEquals(min, table.highWatermark(slot), "slot " + slot + (batched ? " batched" : ""));
                advanced += min > 0 ? 1 : 0;
            }
            assertTrue(advanced > table.slotCapacity() / 2, "most slots' HW moved: " + advanced);
        }
    }

    /** The lowest LEO over every replica of {@code slot}, local and of the first {@code mirrors} mirrors. */
    private static long minLeo(final PartitionTable table, final int slot, final int mirrors)
    {
        long min = Long.MAX_VALUE;
        for (int replica = 0; replica < HwRecomputeBenchmark.LOCAL_REPLICAS; replica++)
        {
            min = Math.min(min, table.localLeo(slot, replica));
        }
        for (int mirror = 0; mirror < mirrors; mirror++)
        {
            for (int replica = 0; replica < HwRecomputeBenchmark.REPLICAS_PER_MIRROR; replica++)
            {
                min = Math.min(min, table.mirrorLeo(slot, mirror, replica));
            }
        }
        return min;
    }

    private static HwRecomputeBenchmark benchmark(final int mirrors)
    {
        final HwRecomputeBenchmark benchmark = new HwRecomputeBenchmark();
        benchmark.partitions = 1000;
        benchmark.mirrors = mirrors;
        benchmark.setUp();
        return benchmark;
    }
}

package io.syncmirror.benchmarks;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class AtomicCostBenchmarkTest
{
    @Test
    void shouldWriteTheCellWithEveryKindOfStore()
    {
        final AtomicCostBenchmark benchmark = new AtomicCostBenchmark();

        assertEquals(1, benchmark.plainStore());
        assertEquals(2, benchmark.releaseStore());
        assertEquals(3, benchmark.volatileStore());

        assertEquals(3, benchmark.buffer.getLongVolatile(AtomicCostBenchmark.CELL));
    }

    @Test
    void shouldSucceedEveryCompareAndSetAndCountEveryAdd()
    {
        final AtomicCostBenchmark benchmark = new AtomicCostBenchmark();

        for (int i = 0; i < 100; i++)
        {
            assertTrue(benchmark.compareAndSet(), "the cell holds the value the last operation wrote");
        }
        assertEquals(100, benchmark.getAndAdd());
        assertEquals(101, benchmark.buffer.getLongVolatile(AtomicCostBenchmark.CELL));
    }
}

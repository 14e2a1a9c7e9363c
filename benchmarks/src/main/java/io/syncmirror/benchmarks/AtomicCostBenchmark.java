package io.syncmirror.benchmarks;

import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;

import org.agrona.concurrent.UnsafeBuffer;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH benchmark of what one ordering operation costs on the machine it runs on, uncontended, on a cache line the
 * thread already holds: a plain store (the floor), a release store, a volatile store (a store and a full fence),
 * a compare-and-set and a get-and-add, each through Agrona's {@link UnsafeBuffer} as the hot path makes them.
 * Per JMH thread state.
 *
 * <p>Why: in cache, a request's life in our purgatory ({@link PurgatoryBenchmark}) is mostly such operations, one
 * for each hand-off between the threads that production runs it on (the leader's appender, each follower's
 * fetch, the request's owner). Their count times this cost is the floor of the purgatory's figure at 1k
 * partitions, and at 100k the rows' cache misses come on top; docs/benchmarks.md adds them up.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 3, jvmArgsAppend = { BenchmarkFlags.ADD_EXPORTS, BenchmarkFlags.DISABLE_BOUNDS_CHECKS })
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@State(Scope.Thread)
public class AtomicCostBenchmark
{
    /** The cell every operation writes; the line is the thread's own. */
    static final int CELL = 64;

    final UnsafeBuffer buffer = new UnsafeBuffer(ByteBuffer.allocateDirect(256));
    private long value;

    @Benchmark
    public long plainStore()
    {
        buffer.putLong(CELL, ++value);
        return value;
    }

    @Benchmark
    public long releaseStore()
    {
        buffer.putLongRelease(CELL, ++value);
        return value;
    }

    @Benchmark
    public long volatileStore()
    {
        buffer.putLongVolatile(CELL, ++value);
        return value;
    }

    @Benchmark
    public boolean compareAndSet()
    {
        final long expected = value;
        return buffer.compareAndSetLong(CELL, expected, ++value);
    }

    @Benchmark
    public long getAndAdd()
    {
        return buffer.getAndAddLong(CELL, 1L);
    }
}

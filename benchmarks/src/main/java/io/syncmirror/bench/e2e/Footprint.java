package io.syncmirror.bench.e2e;

import java.lang.management.BufferPoolMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/**
 * What the brokers' partitions cost in memory: the JVM's heap after a full collection and its direct buffers (the
 * hot path's off-heap rows), read before the clusters start and again once every partition is set up and before
 * the load generator exists, so that the difference is the brokers' alone. Divided by the partition replicas the
 * brokers host, it is the heap per hosted replica, each broker's structures and its share of what every broker
 * holds once (its metadata image) included.
 *
 * <p>Not thread-safe: the run's thread reads it.
 */
final class Footprint
{
    /** Full collections in a row before a reading: a second one frees what the first one's finalization left. */
    private static final int COLLECTIONS = 2;

    /** Rounds of collections at most before a reading whose direct bytes still move is taken as it is. */
    private static final int MAX_ROUNDS = 10;

    /** How long each round lets the JDK's cleaner thread free the direct buffers its collections found. */
    private static final long CLEANER_PAUSE_NS = 20_000_000L;

    /** One reading after full collections: heap in use and direct buffer bytes in use. */
    record Reading(long heapBytes, long directBytes)
    {
    }

    /**
     * The difference between two readings over what the brokers host.
     *
     * @param replicas          partition replicas hosted by every broker of every cluster together
     * @param mirroredReplicas  of those, the replicas of mirror topics (each destination's)
     * @param brokers           brokers of every cluster together
     */
    record Figures(Reading before, Reading after, long replicas, long mirroredReplicas, int brokers)
    {
        long heapBytes()
        {
            return after.heapBytes - before.heapBytes;
        }

        long directBytes()
        {
            return after.directBytes - before.directBytes;
        }

        double heapBytesPerReplica()
        {
            return replicas == 0 ? Double.NaN : (double)heapBytes() / replicas;
        }

        double directBytesPerReplica()
        {
            return replicas == 0 ? Double.NaN : (double)directBytes() / replicas;
        }

        /** The line the run prints and keeps in its summary. */
        String line(final int partitions)
        {
            return String.format(Locale.ROOT, "FOOTPRINT partitions=%d brokers=%d replicas=%d mirrored_replicas=%d "
                    + "heap_bytes=%d heap_bytes_per_replica=%.0f direct_bytes=%d direct_bytes_per_replica=%.0f",
                partitions, brokers, replicas, mirroredReplicas, heapBytes(), heapBytesPerReplica(), directBytes(),
                directBytesPerReplica());
        }
    }

    private Footprint()
    {
    }

    /**
     * The heap in use and the direct buffer bytes in use after {@link #COLLECTIONS} full collections, repeated until
     * the direct bytes hold still: a collection only finds an unreachable direct buffer; the JDK's cleaner thread
     * frees its memory afterwards, so a reading taken right away can still count buffers already dropped.
     */
    static Reading read()
    {
        final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        long direct = collectAndReadDirect();
        for (int round = 1; round < MAX_ROUNDS; round++)
        {
            final long again = collectAndReadDirect();
            if (again == direct)
            {
                break;
            }
            direct = again;
        }
        return new Reading(memory.getHeapMemoryUsage().getUsed(), direct);
    }

    private static long collectAndReadDirect()
    {
        for (int i = 0; i < COLLECTIONS; i++)
        {
            // A full, stop-the-world collection unless -XX:+ExplicitGCInvokesConcurrent, which the run does not set.
            System.gc();
        }
        // The cleaner thread has no completion signal to wait on; give it a moment to run what the collections found.
        LockSupport.parkNanos(CLEANER_PAUSE_NS);
        return directBytes();
    }

    /** Bytes of the JVM's direct buffers: the off-heap rows are direct buffers (Agrona's aligned allocation). */
    static long directBytes()
    {
        for (final BufferPoolMXBean pool : ManagementFactory.getPlatformMXBeans(BufferPoolMXBean.class))
        {
            if (pool.getName().equals("direct"))
            {
                return pool.getMemoryUsed();
            }
        }
        return 0L;
    }
}

package io.syncmirror.bench.e2e;

import java.nio.ByteBuffer;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FootprintTest
{
    @Test
    void shouldDivideWhatTheBrokersHoldByTheReplicasTheyHost()
    {
        final Footprint.Figures figures = new Footprint.Figures(new Footprint.Reading(1_000, 10),
            new Footprint.Reading(601_000, 60_010), 600, 300, 6);
        assertEquals(600_000, figures.heapBytes());
        assertEquals(1_000.0, figures.heapBytesPerReplica());
        assertEquals(100.0, figures.directBytesPerReplica());
        assertEquals("FOOTPRINT partitions=100 brokers=6 replicas=600 mirrored_replicas=300 heap_bytes=600000 "
            + "heap_bytes_per_replica=1000 direct_bytes=60000 direct_bytes_per_replica=100", figures.line(100));
    }

    @Test
    void shouldSeeRetainedHeapAndDirectBuffersAfterFullCollections()
    {
        final Footprint.Reading before = Footprint.read();
        final byte[][] retained = new byte[64][];
        for (int i = 0; i < retained.length; i++)
        {
            retained[i] = new byte[256 * 1024];
        }
        final ByteBuffer direct = ByteBuffer.allocateDirect(8 * 1024 * 1024);
        final Footprint.Reading after = Footprint.read();
        // 16 MiB retained on the heap and 8 MiB direct; the rest of the JVM moves by far less after full GCs.
        final long heapGrowth = after.heapBytes() - before.heapBytes();
        assertTrue(heapGrowth > 12L * 1024 * 1024 && heapGrowth < 24L * 1024 * 1024, "heap grew " + heapGrowth);
        assertTrue(after.directBytes() - before.directBytes() >= 8L * 1024 * 1024, "direct grew "
            + (after.directBytes() - before.directBytes()));
        assertEquals(retained.length, retained.length);
        assertEquals(8 * 1024 * 1024, direct.capacity());
    }
}

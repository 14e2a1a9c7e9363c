package io.syncmirror.broker.adapter;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What syncmirror.sync.mirror.links costs in off-heap memory: each link is one block of every partition slot's
 * row, 16 bytes (its ISR word and the lowest LEO over that ISR) plus 8 per replica. Prints the table's bytes per slot at 1, 8, 16 and 31 links (the figures the
 * docs quote) and checks the step per link.
 */
class MirrorLinksCostTest
{
    private static final int SLOTS = 16_384;
    private static final int MAX_REPLICAS = 8;

    private static long bytesPerSlot(final int links)
    {
        return new HotPathAdapter(SLOTS, MAX_REPLICAS, 64, 256, links).allocatedBytes() / SLOTS;
    }

    @Test
    @DisplayName("each sync mirror link costs 80 bytes in every partition slot (8 replicas), registered or not")
    void shouldCostEightyBytesPerLinkPerSlot()
    {
        for (final int links : new int[] {1, 8, 16, 31})
        {
            System.out.println("mirror links " + links + ": " + bytesPerSlot(links) + " bytes per partition slot");
        }
        assertEquals(16 + 8 * MAX_REPLICAS, bytesPerSlot(2) - bytesPerSlot(1));
        assertEquals(30 * 80L, bytesPerSlot(31) - bytesPerSlot(1));
    }
}

package io.syncmirror.benchmarks;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SlotSequencesTest
{
    @Test
    void shouldDrawTheSameSlotsForTheSameSeed()
    {
        assertArrayEquals(SlotSequences.randomSlots(1000, 4096, 7L), SlotSequences.randomSlots(1000, 4096, 7L));
    }

    @Test
    void shouldStayWithinThePartitions()
    {
        for (final int slot : SlotSequences.randomSlots(10, 4096, 7L))
        {
            assertTrue(slot >= 0 && slot < 10);
        }
    }

    @Test
    void shouldDrawDistinctSlotsWithinEachGroup()
    {
        final int[] slots = SlotSequences.distinctGroups(4, 10_000, 3, 7L);
        for (int first = 0; first < slots.length; first += 3)
        {
            assertNotEquals(slots[first], slots[first + 1]);
            assertNotEquals(slots[first], slots[first + 2]);
            assertNotEquals(slots[first + 1], slots[first + 2]);
        }
    }

    @Test
    void shouldRefuseGroupsLargerThanThePartitions()
    {
        assertThrows(IllegalArgumentException.class, () -> SlotSequences.distinctGroups(2, 1, 3, 7L));
    }
}

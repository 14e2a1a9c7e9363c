package io.syncmirror.offheap;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PartitionSlotIndexTest
{
    @Test
    void shouldMapPartitionsToDenseSlotsAndBack()
    {
        final PartitionSlotIndex index = new PartitionSlotIndex(4);
        final int a = index.add(1, 2, 0);
        final int b = index.add(1, 2, 1);
        final int c = index.add(3, 4, 0);
        assertEquals(0, a);
        assertEquals(1, b);
        assertEquals(2, c);
        assertEquals(a, index.add(1, 2, 0), "adding twice returns the same slot");
        assertEquals(b, index.slotOf(1, 2, 1));
        assertEquals(PartitionSlotIndex.NO_SLOT, index.slotOf(1, 2, 2));
        assertEquals(3, index.topicIdMsb(c));
        assertEquals(4, index.topicIdLsb(c));
        assertEquals(1, index.partition(b));
        assertEquals(3, index.size());
    }

    @Test
    void shouldRefuseWhenFullAndReuseFreedSlots()
    {
        final PartitionSlotIndex index = new PartitionSlotIndex(2);
        index.add(9, 9, 0);
        final int second = index.add(9, 9, 1);
        assertEquals(PartitionSlotIndex.NO_SLOT, index.add(9, 9, 2));
        assertEquals(second, index.remove(9, 9, 1));
        assertFalse(index.isUsed(second));
        assertEquals(PartitionSlotIndex.NO_SLOT, index.remove(9, 9, 1));
        assertEquals(second, index.add(9, 9, 2));
        assertEquals(PartitionSlotIndex.NO_SLOT, index.slotOf(9, 9, 1));
    }

    @Test
    void shouldAgreeWithHashMapUnderRandomChurn()
    {
        final long seed = 20261130L;
        final Random random = new Random(seed);
        final int capacity = 1000;
        final PartitionSlotIndex index = new PartitionSlotIndex(capacity);
        final Map<List<Long>, Integer> model = new HashMap<>();
        for (int i = 0; i < 200_000; i++)
        {
            // a small key space so that adds, removes and long probe runs all happen often
            final long msb = random.nextInt(8);
            final long lsb = random.nextInt(8);
            final int partition = random.nextInt(40);
            final List<Long> key = List.of(msb, lsb, (long)partition);
            if (random.nextBoolean())
            {
                final int slot = index.add(msb, lsb, partition);
                if (model.containsKey(key))
                {
                    assertEquals(model.get(key), slot, "seed " + seed + " step " + i);
                }
                else if (model.size() == capacity)
                {
                    assertEquals(PartitionSlotIndex.NO_SLOT, slot);
                }
                else
                {
                    assertFalse(model.containsValue(slot), "slot handed out twice, seed " + seed + " step " + i);
                    model.put(key, slot);
                }
            }
            else
            {
                final Integer expected = model.remove(key);
                assertEquals(expected == null ? PartitionSlotIndex.NO_SLOT : expected,
                    index.remove(msb, lsb, partition), "seed " + seed + " step " + i);
            }
            if (i % 1000 == 0)
            {
                for (final Map.Entry<List<Long>, Integer> e : model.entrySet())
                {
                    final List<Long> k = e.getKey();
                    assertEquals(e.getValue(), index.slotOf(k.get(0), k.get(1), (int)(long)k.get(2)));
                }
            }
        }
        assertEquals(model.size(), index.size());
    }

    @Test
    @Timeout(60)
    void shouldNeverGiveReadersAWrongSlotWhileTheWriterChurns() throws Exception
    {
        final PartitionSlotIndex index = new PartitionSlotIndex(4096);
        final List<int[]> stable = new ArrayList<>();
        for (int p = 0; p < 512; p++)
        {
            stable.add(new int[] {p, index.add(7, 7, p)});
        }
        final AtomicBoolean running = new AtomicBoolean(true);
        final AtomicReference<String> failure = new AtomicReference<>();
        final Thread reader = new Thread(() ->
        {
            long lookups = 0;
            while (running.get() && failure.get() == null)
            {
                final int[] entry = stable.get((int)(lookups++ % stable.size()));
                final int slot = index.slotOf(7, 7, entry[0]);
                if (slot != entry[1])
                {
                    failure.set("partition " + entry[0] + " expected slot " + entry[1] + " got " + slot);
                }
            }
        });
        reader.start();
        final Random random = new Random(42);
        final long endNs = System.nanoTime() + 2_000_000_000L;
        while (System.nanoTime() < endNs && failure.get() == null)
        {
            final int partition = random.nextInt(3000);
            if (index.add(8, 8, partition) == PartitionSlotIndex.NO_SLOT || random.nextBoolean())
            {
                index.remove(8, 8, partition);
            }
        }
        running.set(false);
        reader.join();
        assertNull(failure.get());
        assertTrue(index.size() >= 512);
        assertNotEquals(PartitionSlotIndex.NO_SLOT, index.slotOf(7, 7, 0));
    }
}

package io.syncmirror.offheap;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Maps a partition, named by (topic id, partition), to its dense slot in a {@link PartitionTable} and back.
 * One thread mutates ({@link #add}, {@link #remove}); any thread looks up, lock-free and without allocation.
 *
 * <p>An open-addressing table with linear probing and backward-shift deletion (no tombstones, so probe
 * sequences never degrade under add/remove churn) holds {@code slot + 1} per bucket; the keys live in arrays
 * indexed by slot, which also answer the reverse lookup. Readers validate with a sequence lock: the writer
 * makes the sequence odd before a mutation and even after it, and a reader retries when it saw an odd value
 * or the value changed while it probed. Mutations are control-plane events (a partition created, deleted or
 * moved), so a reader retries rarely.
 *
 * <p>Slots are dense: a freed slot is handed out again before any never-used one (a stack), which keeps the
 * rows in use compact.
 */
public final class PartitionSlotIndex
{
    /** Returned when a partition has no slot, or when every slot is taken. */
    public static final int NO_SLOT = -1;

    private static final VarHandle SEQUENCE;

    static
    {
        try
        {
            SEQUENCE = MethodHandles.lookup().findVarHandle(PartitionSlotIndex.class, "sequence", long.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int slotCapacity;
    private final int bucketMask;
    private final int[] buckets;
    private final long[] topicIdMsb;
    private final long[] topicIdLsb;
    private final int[] partition;
    private final boolean[] used;
    private final int[] freeSlots;
    private int freeCount;
    private int size;
    @SuppressWarnings("unused") // accessed through SEQUENCE
    private volatile long sequence;

    public PartitionSlotIndex(final int slotCapacity)
    {
        if (slotCapacity < 1 || slotCapacity > (1 << 29))
        {
            throw new IllegalArgumentException("slotCapacity must be in [1, 2^29]: " + slotCapacity);
        }
        this.slotCapacity = slotCapacity;
        final int bucketCount = Integer.highestOneBit(slotCapacity * 2 - 1) << 1; // load factor <= 0.5
        this.bucketMask = bucketCount - 1;
        this.buckets = new int[bucketCount];
        this.topicIdMsb = new long[slotCapacity];
        this.topicIdLsb = new long[slotCapacity];
        this.partition = new int[slotCapacity];
        this.used = new boolean[slotCapacity];
        this.freeSlots = new int[slotCapacity];
        for (int i = 0; i < slotCapacity; i++)
        {
            freeSlots[i] = slotCapacity - 1 - i;
        }
        this.freeCount = slotCapacity;
    }

    public int slotCapacity()
    {
        return slotCapacity;
    }

    /** Number of partitions that hold a slot. Writer thread only. */
    public int size()
    {
        return size;
    }

    /**
     * Gives the partition a slot, or returns the one it already has.
     *
     * @return the slot, or {@link #NO_SLOT} when every slot is taken.
     */
    public int add(final long topicIdMsb, final long topicIdLsb, final int partition)
    {
        int bucket = hash(topicIdMsb, topicIdLsb, partition) & bucketMask;
        int entry;
        while ((entry = buckets[bucket]) != 0)
        {
            if (matches(entry - 1, topicIdMsb, topicIdLsb, partition))
            {
                return entry - 1;
            }
            bucket = (bucket + 1) & bucketMask;
        }
        if (freeCount == 0)
        {
            return NO_SLOT;
        }
        final int slot = freeSlots[--freeCount];
        final long seq = beginWrite();
        this.topicIdMsb[slot] = topicIdMsb;
        this.topicIdLsb[slot] = topicIdLsb;
        this.partition[slot] = partition;
        this.used[slot] = true;
        buckets[bucket] = slot + 1;
        endWrite(seq);
        size++;
        return slot;
    }

    /**
     * Takes the partition's slot away; the slot may be handed to another partition by a later {@link #add}.
     *
     * @return the slot it held, or {@link #NO_SLOT} when it held none.
     */
    public int remove(final long topicIdMsb, final long topicIdLsb, final int partition)
    {
        int bucket = hash(topicIdMsb, topicIdLsb, partition) & bucketMask;
        int entry;
        while ((entry = buckets[bucket]) != 0)
        {
            if (matches(entry - 1, topicIdMsb, topicIdLsb, partition))
            {
                final int slot = entry - 1;
                final long seq = beginWrite();
                deleteBucket(bucket);
                used[slot] = false;
                endWrite(seq);
                freeSlots[freeCount++] = slot;
                size--;
                return slot;
            }
            bucket = (bucket + 1) & bucketMask;
        }
        return NO_SLOT;
    }

    /** Any thread: the partition's slot, or {@link #NO_SLOT}. */
    public int slotOf(final long topicIdMsb, final long topicIdLsb, final int partition)
    {
        final int home = hash(topicIdMsb, topicIdLsb, partition) & bucketMask;
        while (true)
        {
            final long seq = (long)SEQUENCE.getAcquire(this);
            int result = NO_SLOT;
            if ((seq & 1) == 0)
            {
                int bucket = home;
                for (int probes = 0; probes <= bucketMask; probes++)
                {
                    final int entry = buckets[bucket];
                    if (entry == 0)
                    {
                        break;
                    }
                    if (matches(entry - 1, topicIdMsb, topicIdLsb, partition))
                    {
                        result = entry - 1;
                        break;
                    }
                    bucket = (bucket + 1) & bucketMask;
                }
                VarHandle.loadLoadFence(); // the probe's loads complete before the sequence is re-read
                if ((long)SEQUENCE.getAcquire(this) == seq)
                {
                    return result;
                }
            }
            Thread.onSpinWait();
        }
    }

    /** Writer thread: whether {@code slot} is held by a partition. */
    public boolean isUsed(final int slot)
    {
        return used[slot];
    }

    /** Writer thread (or any thread that obtained the slot from a lookup and holds it): the topic id's high bits. */
    public long topicIdMsb(final int slot)
    {
        return topicIdMsb[slot];
    }

    public long topicIdLsb(final int slot)
    {
        return topicIdLsb[slot];
    }

    public int partition(final int slot)
    {
        return partition[slot];
    }

    private boolean matches(final int slot, final long msb, final long lsb, final int partition)
    {
        return topicIdLsb[slot] == lsb && this.partition[slot] == partition && topicIdMsb[slot] == msb;
    }

    /** Backward-shift deletion: moves later members of the probe run up so no lookup meets a hole early. */
    private void deleteBucket(final int emptied)
    {
        int hole = emptied;
        int bucket = (emptied + 1) & bucketMask;
        int entry;
        while ((entry = buckets[bucket]) != 0)
        {
            final int slot = entry - 1;
            final int home = hash(topicIdMsb[slot], topicIdLsb[slot], partition[slot]) & bucketMask;
            // The entry may fill the hole when its home is not cyclically within (hole, bucket].
            if (((bucket - home) & bucketMask) >= ((bucket - hole) & bucketMask))
            {
                buckets[hole] = entry;
                hole = bucket;
            }
            bucket = (bucket + 1) & bucketMask;
        }
        buckets[hole] = 0;
    }

    private long beginWrite()
    {
        final long seq = sequence + 1;
        SEQUENCE.setVolatile(this, seq);
        VarHandle.storeStoreFence(); // the odd sequence is visible before any of the mutation's stores
        return seq;
    }

    private void endWrite(final long oddSequence)
    {
        SEQUENCE.setRelease(this, oddSequence + 1);
    }

    private static int hash(final long msb, final long lsb, final int partition)
    {
        long h = msb * 0x9E3779B97F4A7C15L ^ lsb;
        h = (h ^ partition) * 0xBF58476D1CE4E5B9L;
        h ^= h >>> 31;
        h *= 0x94D049BB133111EBL;
        return (int)(h ^ (h >>> 32));
    }
}

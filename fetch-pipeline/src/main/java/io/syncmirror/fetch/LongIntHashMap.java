package io.syncmirror.fetch;

import java.util.Arrays;

/**
 * An open-addressing hash map from non-negative {@code long} keys to {@code int} values, with linear probing and
 * backward-shift deletion, so lookups, inserts and removals allocate nothing and leave no tombstones. Not
 * thread-safe.
 *
 * <p>A fetch session keys its partitions by {@code (topicIndex << 32) | partition}; a boxed map would cost an
 * object per partition, which at 100k partitions per session is what this class exists to avoid.
 */
final class LongIntHashMap
{
    static final int MISSING = -1;

    private static final long EMPTY_KEY = -1L;
    private static final int MIN_CAPACITY = 16;

    private long[] keys;
    private int[] values;
    private int mask;
    private int size;
    private int resizeThreshold;

    LongIntHashMap(final int expectedSize)
    {
        allocate(capacityFor(expectedSize));
    }

    /** The key for a topic index (>= 0) and a partition; always >= 0. */
    static long key(final int topicIndex, final int partition)
    {
        return ((long)topicIndex << 32) | (partition & 0xFFFF_FFFFL);
    }

    int size()
    {
        return size;
    }

    int get(final long key)
    {
        int index = indexFor(key);
        while (true)
        {
            final long candidate = keys[index];
            if (candidate == key)
            {
                return values[index];
            }
            if (candidate == EMPTY_KEY)
            {
                return MISSING;
            }
            index = (index + 1) & mask;
        }
    }

    /** Inserts or replaces; returns the previous value or {@link #MISSING}. */
    int put(final long key, final int value)
    {
        int index = indexFor(key);
        while (true)
        {
            final long candidate = keys[index];
            if (candidate == key)
            {
                final int previous = values[index];
                values[index] = value;
                return previous;
            }
            if (candidate == EMPTY_KEY)
            {
                keys[index] = key;
                values[index] = value;
                if (++size > resizeThreshold)
                {
                    rehash(keys.length << 1);
                }
                return MISSING;
            }
            index = (index + 1) & mask;
        }
    }

    /** Removes the key; returns its value or {@link #MISSING}. */
    int remove(final long key)
    {
        int index = indexFor(key);
        while (true)
        {
            final long candidate = keys[index];
            if (candidate == EMPTY_KEY)
            {
                return MISSING;
            }
            if (candidate == key)
            {
                final int previous = values[index];
                deleteAt(index);
                size--;
                return previous;
            }
            index = (index + 1) & mask;
        }
    }

    private void deleteAt(final int deletedIndex)
    {
        // Backward shift: pull later members of the probe run into the hole so that lookups never stop early.
        int hole = deletedIndex;
        int index = (hole + 1) & mask;
        while (keys[index] != EMPTY_KEY)
        {
            final int home = indexFor(keys[index]);
            final boolean homeOutsideRun = hole <= index ? (home <= hole || home > index) : (home <= hole && home > index);
            if (homeOutsideRun)
            {
                keys[hole] = keys[index];
                values[hole] = values[index];
                hole = index;
            }
            index = (index + 1) & mask;
        }
        keys[hole] = EMPTY_KEY;
    }

    private int indexFor(final long key)
    {
        final long mixed = key * 0x9E37_79B9_7F4A_7C15L;
        return (int)(mixed ^ (mixed >>> 32)) & mask;
    }

    private void rehash(final int newCapacity)
    {
        final long[] oldKeys = keys;
        final int[] oldValues = values;
        allocate(newCapacity);
        for (int i = 0; i < oldKeys.length; i++)
        {
            if (oldKeys[i] != EMPTY_KEY)
            {
                int index = indexFor(oldKeys[i]);
                while (keys[index] != EMPTY_KEY)
                {
                    index = (index + 1) & mask;
                }
                keys[index] = oldKeys[i];
                values[index] = oldValues[i];
            }
        }
    }

    private void allocate(final int capacity)
    {
        keys = new long[capacity];
        Arrays.fill(keys, EMPTY_KEY);
        values = new int[capacity];
        mask = capacity - 1;
        resizeThreshold = (int)(capacity * 0.65f);
    }

    private static int capacityFor(final int expectedSize)
    {
        int capacity = MIN_CAPACITY;
        while (capacity * 0.65f < expectedSize)
        {
            capacity <<= 1;
        }
        return capacity;
    }
}

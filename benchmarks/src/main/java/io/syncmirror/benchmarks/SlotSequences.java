package io.syncmirror.benchmarks;

import java.util.SplittableRandom;

/**
 * Precomputed pseudo-random partition slot sequences, so that a benchmark operation picks its slots with one
 * sequential array load rather than a call into a random number generator. Stateless.
 *
 * <p>The sequences are seeded, so an operation and its baseline walk exactly the same slots, and long enough
 * ({@link #LENGTH}) to visit nearly every row of a 100k-slot table before repeating: a shorter cycle would keep
 * a subset of the table warm in cache and flatter both sides.
 */
public final class SlotSequences
{
    /** Entries in a sequence: 1 MiB of ints, read sequentially, so the prefetcher hides it. */
    public static final int LENGTH = 1 << 18;
    /** The seed every benchmark uses. */
    public static final long SEED = 0x5EED_1279L;

    private SlotSequences()
    {
    }

    /** {@code length} slots drawn uniformly from {@code [0, partitions)}. */
    public static int[] randomSlots(final int partitions, final int length, final long seed)
    {
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] slots = new int[length];
        for (int i = 0; i < length; i++)
        {
            slots[i] = random.nextInt(partitions);
        }
        return slots;
    }

    /**
     * {@code groups} consecutive groups of {@code groupSize} slots drawn uniformly from {@code [0, partitions)},
     * distinct within each group, as the partitions of one produce request are.
     */
    public static int[] distinctGroups(final int partitions, final int groups, final int groupSize, final long seed)
    {
        if (groupSize < 1 || groupSize > partitions)
        {
            throw new IllegalArgumentException("groupSize must be in [1, " + partitions + "]: " + groupSize);
        }
        final SplittableRandom random = new SplittableRandom(seed);
        final int[] slots = new int[groups * groupSize];
        for (int group = 0; group < groups; group++)
        {
            final int first = group * groupSize;
            for (int i = 0; i < groupSize; i++)
            {
                int slot;
                do
                {
                    slot = random.nextInt(partitions);
                }
                while (contains(slots, first, first + i, slot));
                slots[first + i] = slot;
            }
        }
        return slots;
    }

    private static boolean contains(final int[] values, final int from, final int to, final int value)
    {
        for (int i = from; i < to; i++)
        {
            if (values[i] == value)
            {
                return true;
            }
        }
        return false;
    }
}

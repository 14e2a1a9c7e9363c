package io.syncmirror.broker.replica;

import java.util.Arrays;

import io.syncmirror.broker.adapter.HotPathAdapter;

/**
 * One follower fetch's LEO credits, published together: the fetch handler adds each partition's credit while it
 * checks the fetch's partitions, then {@link #publish}es them before it reads any, so the response carries the HWs
 * they moved. The batch costs one store-load fence instead of one per partition, and touches every row before it
 * writes any, so that at many partitions the rows' cache misses overlap instead of following one another
 * ({@link HotPathAdapter#onLeos}).
 *
 * <p>No credit is announced while the batch fills: each is announced and checked against its row
 * ({@link Partition#beginCredit}) only inside {@link #publish}, and ended right after the stores, before any lock is
 * taken to follow a HW. So a credit in flight never waits for a lock, and a row change waits for it only as long as
 * the batch's stores take.
 *
 * <p>Owned by one thread (the fetch's); its arrays are taken on the first credit, grow as needed, and
 * {@link #publish} empties them.
 */
public final class FollowerCredits
{
    private static final Partition[] NO_PARTITIONS = {};
    private static final Partition.Role[] NO_ROLES = {};
    private static final int[] NO_INTS = {};
    private static final long[] NO_LONGS = {};

    /** Arrays of this size are taken on the first credit: most follower fetches credit nothing. */
    private final int capacity;
    private Partition[] partitions = NO_PARTITIONS;
    private Partition.Role[] roles = NO_ROLES;
    private int[] followerIds = NO_INTS;
    private int[] slots = NO_INTS;
    private int[] replicas = NO_INTS;
    private long[] leos = NO_LONGS;
    private int[] cells = NO_INTS;
    private long[] advanced = NO_LONGS;
    private int count;

    /** @param capacity credits expected: a fetch's partition count; more grow the arrays */
    public FollowerCredits(final int capacity)
    {
        this.capacity = Math.max(1, capacity);
    }

    /** Credits waiting for {@link #publish}. */
    public int size()
    {
        return count;
    }

    void add(final Partition partition, final Partition.Role role, final int replica, final int followerId,
        final long leo)
    {
        if (count == partitions.length)
        {
            grow();
        }
        partitions[count] = partition;
        roles[count] = role;
        replicas[count] = replica;
        followerIds[count] = followerId;
        leos[count] = leo;
        count++;
    }

    /**
     * Writes every credit whose leadership still holds its row, with one fence, recomputes their HWs, ends the
     * credits, then follows each HW that moved (the log's HW, the waits it reached, parked fetches) and the sync
     * reports. Leaves the batch empty.
     */
    public void publish(final HotPathAdapter hotPath)
    {
        if (count == 0)
        {
            return; // no fence for a fetch that moved no follower LEO
        }
        // Compact the admitted credits to the front: a credit whose role ended is dropped here, not written.
        int admitted = 0;
        try
        {
            for (int i = 0; i < count; i++)
            {
                if (partitions[i].beginCredit(roles[i]))
                {
                    moveTo(i, admitted++);
                }
            }
            if (admitted > 0)
            {
                hotPath.onLeos(slotsOf(admitted), replicas, leos, admitted, cells, advanced);
            }
        }
        finally
        {
            for (int i = 0; i < admitted; i++)
            {
                partitions[i].endCredit();
            }
        }
        try
        {
            for (int i = 0; i < admitted; i++)
            {
                partitions[i].afterCredit(roles[i], replicas[i], followerIds[i], advanced[i]);
            }
        }
        finally
        {
            Arrays.fill(partitions, 0, count, null);
            Arrays.fill(roles, 0, count, null);
            count = 0;
        }
    }

    private int[] slotsOf(final int admitted)
    {
        for (int i = 0; i < admitted; i++)
        {
            slots[i] = roles[i].slot();
        }
        return slots;
    }

    private void moveTo(final int from, final int to)
    {
        if (from != to)
        {
            partitions[to] = partitions[from];
            roles[to] = roles[from];
            replicas[to] = replicas[from];
            followerIds[to] = followerIds[from];
            leos[to] = leos[from];
        }
    }

    private void grow()
    {
        final int size = partitions.length == 0 ? capacity : partitions.length * 2;
        partitions = Arrays.copyOf(partitions, size);
        roles = Arrays.copyOf(roles, size);
        followerIds = Arrays.copyOf(followerIds, size);
        slots = Arrays.copyOf(slots, size);
        replicas = Arrays.copyOf(replicas, size);
        leos = Arrays.copyOf(leos, size);
        cells = Arrays.copyOf(cells, size);
        advanced = Arrays.copyOf(advanced, size);
    }
}

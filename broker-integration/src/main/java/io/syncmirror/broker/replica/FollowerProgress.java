package io.syncmirror.broker.replica;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * Follower progress as one leadership sees it, by replica index (Kafka's {@code Replica} state): each follower's
 * LEO, when it last caught up, and the leader's LEO and the time at its previous fetch. A new leadership (or a
 * mirror leader's truncation) starts a new one, so only partitions this broker leads hold one, sized by their
 * replica list: four arrays of the largest replication factor on every replica were about 380 bytes of heap each.
 *
 * <p>Each index is written by the thread serving that follower's fetches and read by the ISR upkeep; the cells are
 * read and written with volatile semantics, as an {@code AtomicLongArray}'s. A leader's {@link Partition.Role}
 * carries it, so its indices are always those of the role's replica list; an index outside that list reads as
 * never fetched and is not written. Public only as a component of that record: its methods are the package's.
 */
public final class FollowerProgress
{
    private static final VarHandle CELLS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int LEO = 0;
    private static final int CAUGHT_UP_MS = 1;
    private static final int FETCH_LEADER_LEO = 2;
    private static final int FETCH_MS = 3;
    private static final int FIELDS = 4;

    // One follower's four cells are adjacent: its fetch writes one cache line, not four.
    private final long[] cells;

    /**
     * Every follower not yet fetched (LEO -1), and given a full lag window from {@code nowMs}, as a new leader
     * gives each ISR member.
     */
    FollowerProgress(final int replicas, final long nowMs)
    {
        this.cells = new long[replicas * FIELDS];
        for (int i = 0; i < replicas; i++)
        {
            cells[i * FIELDS + LEO] = -1L;
            cells[i * FIELDS + CAUGHT_UP_MS] = nowMs;
            cells[i * FIELDS + FETCH_LEADER_LEO] = -1L;
            cells[i * FIELDS + FETCH_MS] = nowMs;
        }
        // Published through a volatile field of Partition: the plain stores above happen before its reads.
    }

    /** The replicas this was built for. */
    int replicas()
    {
        return cells.length / FIELDS;
    }

    /** The follower's LEO as of its last fetch, -1 before one (or for an index outside this leadership's list). */
    long leo(final int index)
    {
        return read(index, LEO, -1L);
    }

    /** When the follower last held the leader's whole log (Kafka's lastCaughtUpTimeMs). */
    long caughtUpMs(final int index)
    {
        return read(index, CAUGHT_UP_MS, 0L); // never: lagging by any bound
    }

    /**
     * A fetch at {@code fetchOffset} (already capped at the leader's LEO as {@code leo}), with the leader's LEO
     * {@code leaderLeo} at {@code nowMs}, as Kafka's {@code Replica.updateFetchStateOrThrow} records it: a fetch
     * at the leader's end catches up now, a fetch reaching the leader's LEO of the previous fetch caught up then.
     */
    void onFetch(final int index, final long fetchOffset, final long leo, final long leaderLeo, final long nowMs)
    {
        if (index < 0 || index >= replicas())
        {
            return;
        }
        final int base = index * FIELDS;
        if (fetchOffset >= leaderLeo)
        {
            CELLS.setVolatile(cells, base + CAUGHT_UP_MS, nowMs);
        }
        else if (fetchOffset >= (long)CELLS.getVolatile(cells, base + FETCH_LEADER_LEO))
        {
            CELLS.setVolatile(cells, base + CAUGHT_UP_MS, Math.max((long)CELLS.getVolatile(cells,
                base + CAUGHT_UP_MS), (long)CELLS.getVolatile(cells, base + FETCH_MS)));
        }
        CELLS.setVolatile(cells, base + FETCH_LEADER_LEO, leaderLeo);
        CELLS.setVolatile(cells, base + FETCH_MS, nowMs);
        CELLS.setVolatile(cells, base + LEO, leo);
    }

    /**
     * A copy for a new replica list of the same leadership (a reassignment): a follower in both keeps its cells,
     * a new one starts as in a new leadership.
     */
    FollowerProgress reindexed(final java.util.List<Integer> from, final java.util.List<Integer> to, final long nowMs)
    {
        final FollowerProgress next = new FollowerProgress(to.size(), nowMs);
        for (int i = 0; i < to.size(); i++)
        {
            final int old = from.indexOf(to.get(i));
            if (old >= 0 && old < replicas())
            {
                for (int field = 0; field < FIELDS; field++)
                {
                    next.cells[i * FIELDS + field] = (long)CELLS.getVolatile(cells, old * FIELDS + field);
                }
            }
        }
        return next;
    }

    private long read(final int index, final int field, final long absent)
    {
        return index < 0 || index >= replicas() ? absent : (long)CELLS.getVolatile(cells, index * FIELDS + field);
    }
}

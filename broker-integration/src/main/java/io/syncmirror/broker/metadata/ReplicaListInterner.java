package io.syncmirror.broker.metadata;

import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One immutable list per distinct replica (or ISR) list of a {@link PartitionState}. A cluster's partitions share
 * a few orderings of its brokers, so without this every partition's state held two lists of its own (an
 * unmodifiable view, an ArrayList and its array: about 80 B each) for a handful of distinct values.
 *
 * <p>Bounded: once {@code capacity} lists are known, new ones are copied and not kept (a cluster with that many
 * distinct orderings gains little from sharing). Thread-safe; lists are never removed, so a list handed out stays
 * the shared one however the cache grows.
 */
final class ReplicaListInterner
{
    /** The one every {@link PartitionState} uses: at most 4,096 lists, a few hundred kilobytes. */
    static final ReplicaListInterner SHARED = new ReplicaListInterner(4_096);

    private final ConcurrentHashMap<List<Integer>, List<Integer>> lists = new ConcurrentHashMap<>();
    private final int capacity;

    ReplicaListInterner(final int capacity)
    {
        this.capacity = capacity;
    }

    /**
     * The shared immutable list equal to {@code list}, or an immutable copy of it once {@code capacity} lists are
     * known; null for null. A caller may change {@code list} afterwards: what is returned never changes.
     */
    List<Integer> intern(final List<Integer> list)
    {
        if (list == null)
        {
            return null;
        }
        final List<Integer> known = lists.get(list);
        if (known != null)
        {
            return known;
        }
        final List<Integer> copy = List.copyOf(list);
        if (lists.size() >= capacity)
        {
            return copy;
        }
        final List<Integer> raced = lists.putIfAbsent(copy, copy);
        return raced == null ? copy : raced;
    }

    /** Distinct lists kept. */
    int size()
    {
        return lists.size();
    }
}

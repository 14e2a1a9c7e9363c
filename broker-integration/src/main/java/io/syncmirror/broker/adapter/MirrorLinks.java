package io.syncmirror.broker.adapter;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The sync mirror links a source broker knows: each destination's mirror name gets one index, its block in every
 * partition row of the hot path (the registered-mirror mask bit, the reported ISR and LEO cells) and the number an
 * ack outcome carries to name the mirror. Thread-safe: indexes are assigned once and never reused, so an outcome
 * decided on any thread names the right mirror.
 *
 * <p>A broker holds at most {@link #MAX_LINKS} distinct sync mirrors over its lifetime (one row block each). The
 * controller refuses a registration that would make a source cluster's registered sync mirrors more than that
 * (POLICY_VIOLATION); a mirror that still finds no link here (this broker gave its links to mirrors since
 * released) makes its topic's partitions gate on {@link #HOLD_LINK}, so they acknowledge nothing rather than
 * acknowledge without the mirror (see ReplicaManager).
 */
public final class MirrorLinks
{
    /** Mirror links a partition row has room for: the registered-mirror mask is one bit per link. */
    public static final int MAX_LINKS = 8;
    /**
     * The link a partition gates on when a mirror registered for its topic has no link here. It is never given to
     * a mirror, so it never reports, and a registered link without a report holds the HW (HighWatermarkGate).
     */
    public static final int HOLD_LINK = MAX_LINKS;
    /** Link blocks of a partition row: one per mirror link, and the hold. */
    public static final int ROW_LINK_BLOCKS = MAX_LINKS + 1;
    /** Returned when a name has no link (and, from {@link #indexOrAssign}, when every link is taken). */
    public static final int NO_LINK = -1;

    private final ConcurrentHashMap<String, Integer> indexes = new ConcurrentHashMap<>();
    private final AtomicReferenceArray<String> names = new AtomicReferenceArray<>(MAX_LINKS);

    /** The link of {@code mirrorName}, or {@link #NO_LINK} if it never had one. */
    public int indexOf(final String mirrorName)
    {
        final Integer index = indexes.get(mirrorName);
        return index == null ? NO_LINK : index;
    }

    /** The link of {@code mirrorName}, assigned now if it has none; {@link #NO_LINK} when every link is taken. */
    public synchronized int indexOrAssign(final String mirrorName)
    {
        final Integer index = indexes.get(mirrorName);
        if (index != null)
        {
            return index;
        }
        for (int i = 0; i < MAX_LINKS; i++)
        {
            if (names.get(i) == null)
            {
                names.set(i, mirrorName);
                indexes.put(mirrorName, i);
                return i;
            }
        }
        return NO_LINK;
    }

    /** The mirror name of link {@code index}, or null. */
    public String nameOf(final int index)
    {
        return index < 0 || index >= MAX_LINKS ? null : names.get(index);
    }
}

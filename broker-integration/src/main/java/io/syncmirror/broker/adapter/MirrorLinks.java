package io.syncmirror.broker.adapter;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.syncmirror.offheap.PartitionRowDescriptor;

/**
 * The sync mirror links a source broker knows: each destination's mirror name holds one link while any topic led
 * or followed here has it registered. A link is a block of every partition row of the hot path (the
 * registered-mirror mask bit, the reported ISR and LEO cells) and the number an ack outcome carries to name the
 * mirror. Assigning and releasing are for one thread (the metadata thread, under ReplicaManager's lock); lookups
 * are for any thread.
 *
 * <p>A released link goes to the next mirror that needs one, with its generation raised. A report resolves its
 * mirror's link and generation once, and a partition credits it only if the generation is still the link's
 * ({@link #isCurrent}): a late report of the link's previous holder is fenced. A link is released only after
 * every partition row stopped gating on it, and a partition clears a link's cells when it starts gating on it,
 * so no row carries one holder's report into another's.
 *
 * <p>The controller refuses a registration that would make a source cluster's registered sync mirrors more than
 * the limit ({@link #LINKS_CONFIG}); a mirror that still finds no link here (a broker configured with fewer)
 * makes its topic's partitions gate on {@link #holdLink()}, so they acknowledge nothing rather than acknowledge
 * without the mirror (see SyncLinkAssignments).
 */
public final class MirrorLinks
{
    /**
     * Sync mirrors one source cluster may register at once: each is a link here, one block of every partition
     * row. Set it alike on every broker and controller of a source cluster.
     */
    public static final String LINKS_CONFIG = "syncmirror.sync.mirror.links";
    public static final int LINKS_DEFAULT = 8;
    /** The hold link takes the last bit of the row's int mask of links. */
    public static final int LINKS_MAX = PartitionRowDescriptor.MAX_MEMBERS - 1;
    /** Returned when a name has no link (and, from {@link #assign}, when every link is taken). */
    public static final int NO_LINK = -1;
    /** Returned by {@link #handleOf} for a name without a link. */
    public static final long NO_HANDLE = -1L;

    private final int links;
    private final ConcurrentHashMap<String, Integer> indexes = new ConcurrentHashMap<>();
    private final AtomicReferenceArray<String> names;
    private final AtomicIntegerArray generations;

    public MirrorLinks(final int links)
    {
        if (links < 1 || links > LINKS_MAX)
        {
            throw new IllegalArgumentException(LINKS_CONFIG + " must be between 1 and " + LINKS_MAX + ", not " +
                links);
        }
        this.links = links;
        this.names = new AtomicReferenceArray<>(links);
        this.generations = new AtomicIntegerArray(links);
    }

    /** Links a mirror can hold. */
    public int links()
    {
        return links;
    }

    /**
     * The link a partition gates on when a mirror registered for its topic has no link here. It is never given to
     * a mirror, so it never reports, and a registered link without a report holds the HW (HighWatermarkGate).
     */
    public int holdLink()
    {
        return links;
    }

    /** Link blocks of a partition row: one per mirror link, and the hold. */
    public int rowLinkBlocks()
    {
        return links + 1;
    }

    /** The link of {@code mirrorName}, or {@link #NO_LINK}. */
    public int indexOf(final String mirrorName)
    {
        final Integer index = indexes.get(mirrorName);
        return index == null ? NO_LINK : index;
    }

    /**
     * The link of {@code mirrorName} with its generation ({@link #index} and {@link #generation} take them
     * apart), or {@link #NO_HANDLE}. Resolved once per report.
     */
    public long handleOf(final String mirrorName)
    {
        final Integer index = indexes.get(mirrorName);
        if (index == null)
        {
            return NO_HANDLE;
        }
        return ((long)generations.get(index) << 32) | index;
    }

    public static int index(final long handle)
    {
        return handle == NO_HANDLE ? NO_LINK : (int)handle;
    }

    public static int generation(final long handle)
    {
        return (int)(handle >>> 32);
    }

    /**
     * Whether {@code link} is still held by the mirror whose handle carried {@code generation}. Read after the
     * partition's registered-mask check: a new holder's bit in the mask is published after its generation.
     */
    public boolean isCurrent(final int link, final int generation)
    {
        return generations.get(link) == generation;
    }

    /** The generation of link {@code link}'s holder: raised at each new holder. */
    public int generationOf(final int link)
    {
        return generations.get(link);
    }

    /** The link of {@code mirrorName}, assigned now if it has none; {@link #NO_LINK} when every link is taken. */
    public int assign(final String mirrorName)
    {
        final Integer index = indexes.get(mirrorName);
        if (index != null)
        {
            return index;
        }
        for (int i = 0; i < links; i++)
        {
            if (names.get(i) == null)
            {
                // The generation first: a report that reads the new name's index must find the new generation.
                generations.incrementAndGet(i);
                names.set(i, mirrorName);
                indexes.put(mirrorName, i);
                return i;
            }
        }
        return NO_LINK;
    }

    /** Frees link {@code index}, which no partition row gates on any more; its holder has no link after this. */
    public void release(final int index)
    {
        final String name = names.get(index);
        if (name != null)
        {
            indexes.remove(name);
            names.set(index, null);
            generations.incrementAndGet(index);
        }
    }

    /** The mirror name of link {@code index}, or null. */
    public String nameOf(final int index)
    {
        return index < 0 || index >= links ? null : names.get(index);
    }
}

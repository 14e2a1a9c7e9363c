package io.syncmirror.offheap;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static io.syncmirror.offheap.PartitionRowDescriptor.HW_WORD_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.LOCAL_ISR_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.MAX_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.MIRROR_ISR_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.REGISTERED_MIRRORS_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.VERSION_MASK;

/**
 * Off-heap table of per-partition rows, one per dense slot, laid out by {@link PartitionRowDescriptor}.
 * Thread-safe under the single-writer rule: each cell has one writer at a time (a local replica's LEO cell is
 * written by whoever serves that replica's fetches, a mirror link's cells by that link's fetch connection, the
 * ISR and registration words by the control plane), every store is a release store, every load an acquire or
 * volatile load, and the HW word is only ever changed by CAS.
 *
 * <p>Membership writes (ISR, min ISR, registered mirrors, a mirror's reported ISR) publish their cell and then
 * bump the membership version in the HW word, so that a HW recompute that read the old membership fails its
 * CAS and re-reads (see {@link PartitionRowDescriptor}). LEO writes do not bump it: LEOs only grow while a
 * replica is a member, and a recompute over an older, lower LEO can only under-estimate the HW.
 *
 * <p>The memory is allocated once, aligned to a cache line, and never grows; capacities are fixed at creation.
 */
public final class PartitionTable
{
    private final PartitionRowDescriptor layout;
    private final int slotCapacity;
    private final int rowBytes;
    private final AtomicBuffer buffer;

    /**
     * @param slotCapacity      number of partition slots.
     * @param localReplicas     local replica LEO cells per row (leader included).
     * @param mirrorLinks       mirror links per row.
     * @param replicasPerMirror reported replica LEO cells per mirror link.
     */
    public PartitionTable(
        final int slotCapacity, final int localReplicas, final int mirrorLinks, final int replicasPerMirror)
    {
        this(slotCapacity, new PartitionRowDescriptor(localReplicas, mirrorLinks, replicasPerMirror));
    }

    public PartitionTable(final int slotCapacity, final PartitionRowDescriptor layout)
    {
        if (slotCapacity < 1)
        {
            throw new IllegalArgumentException("slotCapacity must be positive: " + slotCapacity);
        }
        final long bytes = (long)slotCapacity * layout.rowBytes();
        if (bytes > Integer.MAX_VALUE - BitUtil.CACHE_LINE_LENGTH)
        {
            throw new IllegalArgumentException(
                "table of " + slotCapacity + " rows of " + layout.rowBytes() + " bytes exceeds 2 GiB");
        }
        this.layout = layout;
        this.slotCapacity = slotCapacity;
        this.rowBytes = layout.rowBytes();
        this.buffer = new UnsafeBuffer(
            BufferUtil.allocateDirectAligned(alignedLength((int)bytes), BitUtil.CACHE_LINE_LENGTH));
    }

    private static int alignedLength(final int bytes)
    {
        return (bytes + BitUtil.CACHE_LINE_LENGTH - 1) & -BitUtil.CACHE_LINE_LENGTH;
    }

    public PartitionRowDescriptor layout()
    {
        return layout;
    }

    public int slotCapacity()
    {
        return slotCapacity;
    }

    /** Bytes of off-heap memory the table holds. */
    public long allocatedBytes()
    {
        return buffer.capacity();
    }

    /** The table's memory, for readers that compute over a row in place (the HW predicate). */
    public AtomicBuffer buffer()
    {
        return buffer;
    }

    /** Byte offset of {@code slot}'s row in {@link #buffer()}. */
    public int rowOffset(final int slot)
    {
        return slot * rowBytes;
    }

    // ------------------------------------------------------------------------------------------------------
    // Control plane: one writer per slot at a time (the thread applying metadata for that partition).
    // ------------------------------------------------------------------------------------------------------

    /**
     * Resets {@code slot}'s row for a new leadership: every LEO cell zero, no mirror registered, no mirror report,
     * the given ISR, and the HW set to {@code highWatermark} (the only way a HW moves backwards). The caller
     * then publishes the leader's LEO with {@link #localLeo(int, int, long)}.
     */
    public void initSlot(final int slot, final long highWatermark, final int localIsrMask, final int localMinIsr)
    {
        requireOffset(highWatermark);
        final int row = rowOffset(slot);
        for (int i = 0; i < layout.localReplicas(); i++)
        {
            buffer.putLongRelease(row + layout.localLeoOffset(i), 0L);
        }
        for (int m = 0; m < layout.mirrorLinks(); m++)
        {
            clearMirrorCells(row, m);
        }
        buffer.putIntRelease(row + REGISTERED_MIRRORS_OFFSET, 0);
        buffer.putLongRelease(row + LOCAL_ISR_OFFSET, PartitionRowDescriptor.isrWord(localIsrMask, localMinIsr));
        long word;
        do
        {
            word = buffer.getLongVolatile(row + HW_WORD_OFFSET);
        }
        while (!buffer.compareAndSetLong(
            row + HW_WORD_OFFSET, word, PartitionRowDescriptor.hwWord(highWatermark, word + 1)));
    }

    /** Publishes the local ISR and min.insync.replicas of {@code slot}, then bumps its membership version. */
    public void localIsr(final int slot, final int isrMask, final int minIsr)
    {
        final int row = rowOffset(slot);
        buffer.putLongRelease(row + LOCAL_ISR_OFFSET, PartitionRowDescriptor.isrWord(isrMask, minIsr));
        bumpMembershipVersion(row);
    }

    /** Publishes the set of mirror links that gate {@code slot}, then bumps its membership version. */
    public void registeredMirrors(final int slot, final int mirrorMask)
    {
        final int row = rowOffset(slot);
        buffer.putIntRelease(row + REGISTERED_MIRRORS_OFFSET, mirrorMask);
        bumpMembershipVersion(row);
    }

    // ------------------------------------------------------------------------------------------------------
    // Mirror link writer: the fetch connection of that mirror link.
    // ------------------------------------------------------------------------------------------------------

    /** Publishes mirror link {@code mirror}'s reported ISR and MinISR for {@code slot}, then bumps the version. */
    public void mirrorIsr(final int slot, final int mirror, final int isrMask, final int minIsr)
    {
        final int row = rowOffset(slot);
        buffer.putLongRelease(
            row + layout.mirrorBlockOffset(mirror) + MIRROR_ISR_OFFSET,
            PartitionRowDescriptor.isrWord(isrMask, minIsr));
        bumpMembershipVersion(row);
    }

    /**
     * Forgets everything mirror link {@code mirror} reported for {@code slot} (a new fetch session, a reconnect or
     * a destination leader change): an empty reported ISR freezes the HW until the next full report.
     */
    public void clearMirror(final int slot, final int mirror)
    {
        final int row = rowOffset(slot);
        clearMirrorCells(row, mirror);
        bumpMembershipVersion(row);
    }

    /** Publishes the LEO that replica {@code replica} of mirror link {@code mirror} reported for {@code slot}. */
    public void mirrorLeo(final int slot, final int mirror, final int replica, final long leo)
    {
        requireOffset(leo);
        buffer.putLongRelease(rowOffset(slot) + layout.mirrorLeoOffset(mirror, replica), leo);
    }

    // ------------------------------------------------------------------------------------------------------
    // Local replica writer: the leader's appender for replica 0's cell, each follower's fetch loop for its own.
    // ------------------------------------------------------------------------------------------------------

    /** Publishes local replica {@code replica}'s LEO for {@code slot}. */
    public void localLeo(final int slot, final int replica, final long leo)
    {
        requireOffset(leo);
        buffer.putLongRelease(rowOffset(slot) + layout.localLeoOffset(replica), leo);
    }

    // ------------------------------------------------------------------------------------------------------
    // Readers: any thread.
    // ------------------------------------------------------------------------------------------------------

    public long localLeo(final int slot, final int replica)
    {
        return buffer.getLongAcquire(rowOffset(slot) + layout.localLeoOffset(replica));
    }

    public long mirrorLeo(final int slot, final int mirror, final int replica)
    {
        return buffer.getLongAcquire(rowOffset(slot) + layout.mirrorLeoOffset(mirror, replica));
    }

    /** The local ISR word of {@code slot}; see {@link PartitionRowDescriptor#isrMask(long)}. */
    public long localIsrWord(final int slot)
    {
        return buffer.getLongAcquire(rowOffset(slot) + LOCAL_ISR_OFFSET);
    }

    /** The reported ISR word of mirror link {@code mirror} for {@code slot}. */
    public long mirrorIsrWord(final int slot, final int mirror)
    {
        return buffer.getLongAcquire(rowOffset(slot) + layout.mirrorBlockOffset(mirror) + MIRROR_ISR_OFFSET);
    }

    public int registeredMirrors(final int slot)
    {
        return buffer.getIntAcquire(rowOffset(slot) + REGISTERED_MIRRORS_OFFSET);
    }

    /** The HW word of {@code slot}: the high watermark and the membership version, read together. */
    public long hwWord(final int slot)
    {
        return buffer.getLongVolatile(rowOffset(slot) + HW_WORD_OFFSET);
    }

    public long highWatermark(final int slot)
    {
        return PartitionRowDescriptor.highWatermark(hwWord(slot));
    }

    public int membershipVersion(final int slot)
    {
        return PartitionRowDescriptor.membershipVersion(hwWord(slot));
    }

    private void clearMirrorCells(final int row, final int mirror)
    {
        buffer.putLongRelease(row + layout.mirrorBlockOffset(mirror) + MIRROR_ISR_OFFSET, 0L);
        for (int r = 0; r < layout.replicasPerMirror(); r++)
        {
            buffer.putLongRelease(row + layout.mirrorLeoOffset(mirror, r), 0L);
        }
    }

    private void bumpMembershipVersion(final int row)
    {
        final int offset = row + HW_WORD_OFFSET;
        long word;
        do
        {
            word = buffer.getLongVolatile(offset);
        }
        while (!buffer.compareAndSetLong(offset, word, (word & ~VERSION_MASK) | ((word + 1) & VERSION_MASK)));
    }

    private static void requireOffset(final long offset)
    {
        if (offset < 0 || offset > MAX_OFFSET)
        {
            throw new IllegalArgumentException("offset out of range [0, " + MAX_OFFSET + "]: " + offset);
        }
    }
}

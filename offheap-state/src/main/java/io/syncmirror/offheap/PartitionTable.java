package io.syncmirror.offheap;

import java.lang.invoke.VarHandle;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static io.syncmirror.offheap.PartitionRowDescriptor.HW_WORD_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.LOCAL_ISR_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.LOCAL_LEO_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.MAX_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.MIRROR_ISR_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.MIRROR_LEO_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.MIRROR_MIN_LEO_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.REGISTERED_MIRRORS_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.VERSION_MASK;

/**
 * Off-heap table of per-partition rows, one per dense slot, laid out by {@link PartitionRowDescriptor}.
 * Thread-safe under the single-writer rule: each cell has one writer at a time (a local replica's LEO cell is
 * written by whoever serves that replica's fetches, a mirror link's cells by that link's fetch connection, the
 * ISR and registration words by the control plane), membership cells take release stores, LEO cells volatile
 * stores (see {@link #localLeo(int, int, long)}), every load is an acquire or volatile load, and the HW word is
 * only ever changed by CAS.
 *
 * <p>Membership writes (ISR, min ISR, registered mirrors, a mirror's reported ISR) happen inside a membership
 * change: the version in the HW word turns odd, the cells are written, the version turns even (see
 * {@link PartitionRowDescriptor}). Changes to one slot from different writers (the control plane, a mirror
 * link) exclude each other by spinning on the odd version, which is held for a few stores. LEO writes are not
 * changes: LEOs only grow while a replica is a member, and a recompute over an older, lower LEO can only
 * under-estimate the HW. After a change the caller recomputes the HW (DelayedProducePurgatory does), since LEO
 * reports that arrive while a change is open leave the recompute to it.
 *
 * <p>Expansions have guarded forms ({@link #localIsrIfCaughtUp}, {@link #mirrorIsrIfCaughtUp},
 * {@link #registeredMirrorsIfCaughtUp}) that admit a joining member only if its LEO has reached the HW, checked
 * while the HW cannot move: so a HW once published is never above the LEO of any member of the membership it
 * was computed from, or of any member admitted later.
 *
 * <p>The memory is allocated once, aligned to a cache line, and never grows; capacities are fixed at creation.
 * Not final only so that a stress test can plant a batch without its fence ({@link #fenceAfterBatch}).
 */
public class PartitionTable
{
    private static final long KEEP_HIGH_WATERMARK = -1L;

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

    /**
     * A table whose rows carry {@code extensionBytes} after the predicate's cells for a higher layer's per-slot
     * state (see {@link PartitionRowDescriptor#extensionOffset()}).
     */
    public PartitionTable(
        final int slotCapacity,
        final int localReplicas,
        final int mirrorLinks,
        final int replicasPerMirror,
        final int extensionBytes)
    {
        this(slotCapacity, new PartitionRowDescriptor(localReplicas, mirrorLinks, replicasPerMirror, extensionBytes));
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
     * then publishes the leader's LEO with {@link #localLeo(int, int, long)}. The row's extension is left as it is:
     * its owner resets its own state first (the purgatory fails the slot's waits).
     */
    public void initSlot(final int slot, final long highWatermark, final int localIsrMask, final int localMinIsr)
    {
        requireOffset(highWatermark);
        final int row = rowOffset(slot);
        beginChange(row);
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
        endChange(row, highWatermark);
    }

    /** Publishes the local ISR and min.insync.replicas of {@code slot} as one membership change. */
    public void localIsr(final int slot, final int isrMask, final int minIsr)
    {
        final int row = rowOffset(slot);
        beginChange(row);
        buffer.putLongRelease(row + LOCAL_ISR_OFFSET, PartitionRowDescriptor.isrWord(isrMask, minIsr));
        endChange(row, KEEP_HIGH_WATERMARK);
    }

    /**
     * Publishes the local ISR of {@code slot} if every replica it adds has a LEO at or above the HW; otherwise
     * changes nothing. Shrinks always succeed.
     *
     * @return whether the ISR was published.
     */
    public boolean localIsrIfCaughtUp(final int slot, final int isrMask, final int minIsr)
    {
        final int row = rowOffset(slot);
        final long hw = PartitionRowDescriptor.highWatermark(beginChange(row));
        final int joining = isrMask & ~(int)buffer.getLongVolatile(row + LOCAL_ISR_OFFSET);
        final boolean caughtUp = minLeo(buffer, row + LOCAL_LEO_OFFSET, joining) >= hw;
        if (caughtUp)
        {
            buffer.putLongRelease(row + LOCAL_ISR_OFFSET, PartitionRowDescriptor.isrWord(isrMask, minIsr));
        }
        endChange(row, KEEP_HIGH_WATERMARK);
        return caughtUp;
    }

    /** Publishes the set of mirror links that gate {@code slot} as one membership change. */
    public void registeredMirrors(final int slot, final int mirrorMask)
    {
        final int row = rowOffset(slot);
        beginChange(row);
        buffer.putIntRelease(row + REGISTERED_MIRRORS_OFFSET, mirrorMask);
        endChange(row, KEEP_HIGH_WATERMARK);
    }

    /**
     * Publishes the set of mirror links that gate {@code slot} if every mirror it adds reports a non-empty ISR
     * whose lowest LEO is at or above the HW (the sync text's lag-zero condition); otherwise changes nothing.
     *
     * @return whether the set was published.
     */
    public boolean registeredMirrorsIfCaughtUp(final int slot, final int mirrorMask)
    {
        final int row = rowOffset(slot);
        final long hw = PartitionRowDescriptor.highWatermark(beginChange(row));
        boolean caughtUp = true;
        for (int joining = mirrorMask & ~buffer.getIntVolatile(row + REGISTERED_MIRRORS_OFFSET);
            joining != 0 && caughtUp; joining &= joining - 1)
        {
            final int block = row + layout.mirrorBlockOffset(Integer.numberOfTrailingZeros(joining));
            final int isr = (int)buffer.getLongVolatile(block + MIRROR_ISR_OFFSET);
            caughtUp = isr != 0 && minLeo(buffer, block + MIRROR_LEO_OFFSET, isr) >= hw;
        }
        if (caughtUp)
        {
            buffer.putIntRelease(row + REGISTERED_MIRRORS_OFFSET, mirrorMask);
        }
        endChange(row, KEEP_HIGH_WATERMARK);
        return caughtUp;
    }

    // ------------------------------------------------------------------------------------------------------
    // Mirror link writer: the fetch connection of that mirror link.
    // ------------------------------------------------------------------------------------------------------

    /** Publishes mirror link {@code mirror}'s reported ISR and MinISR for {@code slot} as one membership change. */
    public void mirrorIsr(final int slot, final int mirror, final int isrMask, final int minIsr)
    {
        final int row = rowOffset(slot);
        beginChange(row);
        buffer.putLongRelease(
            row + layout.mirrorBlockOffset(mirror) + MIRROR_ISR_OFFSET, PartitionRowDescriptor.isrWord(isrMask, minIsr));
        storeMirrorMinLeo(row, mirror);
        endChange(row, KEEP_HIGH_WATERMARK);
    }

    /**
     * Publishes mirror link {@code mirror}'s reported ISR for {@code slot} if every replica it adds reported a
     * LEO at or above the HW, or the mirror does not gate {@code slot}; otherwise changes nothing.
     *
     * @return whether the ISR was published.
     */
    public boolean mirrorIsrIfCaughtUp(final int slot, final int mirror, final int isrMask, final int minIsr)
    {
        final int row = rowOffset(slot);
        final long hw = PartitionRowDescriptor.highWatermark(beginChange(row));
        final int block = layout.mirrorBlockOffset(mirror);
        final boolean gating = (buffer.getIntVolatile(row + REGISTERED_MIRRORS_OFFSET) & (1 << mirror)) != 0;
        final int joining = isrMask & ~(int)buffer.getLongVolatile(row + block + MIRROR_ISR_OFFSET);
        final boolean caughtUp = !gating || minLeo(buffer, row + block + MIRROR_LEO_OFFSET, joining) >= hw;
        if (caughtUp)
        {
            buffer.putLongRelease(row + block + MIRROR_ISR_OFFSET, PartitionRowDescriptor.isrWord(isrMask, minIsr));
            storeMirrorMinLeo(row, mirror);
        }
        endChange(row, KEEP_HIGH_WATERMARK);
        return caughtUp;
    }

    /**
     * Forgets everything mirror link {@code mirror} reported for {@code slot} (a new fetch session, a reconnect or
     * a destination leader change): an empty reported ISR freezes the HW until the next full report.
     */
    public void clearMirror(final int slot, final int mirror)
    {
        final int row = rowOffset(slot);
        beginChange(row);
        clearMirrorCells(row, mirror);
        endChange(row, KEEP_HIGH_WATERMARK);
    }

    /**
     * Publishes the LEO that replica {@code replica} of mirror link {@code mirror} reported for {@code slot}. A
     * volatile store, as {@link #localLeo(int, int, long)} explains.
     */
    public void mirrorLeo(final int slot, final int mirror, final int replica, final long leo)
    {
        requireOffset(leo);
        final int row = rowOffset(slot);
        buffer.putLongRelease(row + layout.mirrorLeoOffset(mirror, replica), leo);
        storeMirrorMinLeo(row, mirror);
        VarHandle.fullFence();
    }

    /**
     * Publishes the LEOs that mirror link {@code mirror}'s replicas reported for {@code slot}: {@code leos[r]} for
     * replica cell {@code r < count}, then the block's min LEO, with one fence after them (as a volatile store).
     */
    public void mirrorLeos(final int slot, final int mirror, final long[] leos, final int count)
    {
        for (int r = 0; r < count; r++)
        {
            requireOffset(leos[r]); // all checked before any is stored: a bad one publishes none
        }
        final int row = rowOffset(slot);
        for (int r = 0; r < count; r++)
        {
            buffer.putLongRelease(row + layout.mirrorLeoOffset(mirror, r), leos[r]);
        }
        storeMirrorMinLeo(row, mirror);
        VarHandle.fullFence();
    }

    /**
     * The block's min LEO from its reported ISR and LEO cells, by the block's writer after it changed either (its
     * own stores, so it reads them back as it made them). A release store: the caller's fence or closing CAS
     * orders it before its recompute's loads.
     */
    private void storeMirrorMinLeo(final int row, final int mirror)
    {
        final int block = row + layout.mirrorBlockOffset(mirror);
        final int isr = (int)buffer.getLong(block + MIRROR_ISR_OFFSET);
        buffer.putLongRelease(block + MIRROR_MIN_LEO_OFFSET,
            isr == 0 ? 0L : minLeo(buffer, block + MIRROR_LEO_OFFSET, isr));
    }

    // ------------------------------------------------------------------------------------------------------
    // Local replica writer: the leader's appender for replica 0's cell, each follower's fetch loop for its own.
    // ------------------------------------------------------------------------------------------------------

    /**
     * Publishes local replica {@code replica}'s LEO for {@code slot}. A volatile store, not a release store: the
     * writer then recomputes the HW from the other cells, and with a release store its own store could still sit
     * in the store buffer while it loads the others (store-load reordering, which x86 does). Two writers whose
     * updates complete the same offset could then each miss the other's and neither advance the HW, leaving the
     * acks waiting for the next report; the stress test caught exactly that.
     */
    public void localLeo(final int slot, final int replica, final long leo)
    {
        requireOffset(leo);
        buffer.putLongVolatile(rowOffset(slot) + layout.localLeoOffset(replica), leo);
    }

    // ------------------------------------------------------------------------------------------------------
    // Batched LEO reports: one fetch response's partitions at once.
    // ------------------------------------------------------------------------------------------------------

    /** The offset within a row of local replica {@code replica}'s LEO cell, for {@link #publishLeos}. */
    public int localLeoCell(final int replica)
    {
        return layout.localLeoOffset(replica);
    }

    /** The offset within a row of mirror link {@code mirror}'s replica {@code replica} LEO cell. */
    public int mirrorLeoCell(final int mirror, final int replica)
    {
        return layout.mirrorLeoOffset(mirror, replica);
    }

    /**
     * Publishes {@code count} LEOs at once: {@code leos[i]} into cell {@code cells[i]} (a {@link #localLeoCell} or
     * {@link #mirrorLeoCell}) of {@code slots[i]}, each by that cell's single writer. Three passes instead of a
     * volatile store each: a touch pass loads each row's HW word, so that the rows' cache misses overlap instead of
     * being taken one after another; a pass of release stores; then one full fence. The fence gives every store
     * what the volatile store of {@link #localLeo(int, int, long)} gives one: it is visible before any load of the
     * recomputes that follow (store-load order), so two writers completing the same offset cannot both miss the
     * other's LEO. Call the HW recompute of each slot after it.
     *
     * @return a value of the touched words, for callers (benchmarks) that must keep the touch pass alive
     */
    public long publishLeos(final int[] slots, final int[] cells, final long[] leos, final int count)
    {
        final AtomicBuffer buffer = this.buffer;
        long touched = 0;
        for (int i = 0; i < count; i++)
        {
            requireOffset(leos[i]); // all checked before any is stored: a bad one publishes none
            touched ^= buffer.getLong(rowOffset(slots[i]) + HW_WORD_OFFSET);
        }
        for (int i = 0; i < count; i++)
        {
            final int row = rowOffset(slots[i]);
            buffer.putLongRelease(row + cells[i], leos[i]);
            final int mirror = layout.mirrorOfCell(cells[i]);
            if (mirror >= 0)
            {
                storeMirrorMinLeo(row, mirror);
            }
        }
        fenceAfterBatch();
        return touched;
    }

    /**
     * The store-load fence that ends {@link #publishLeos}' stores. Overridden only by tests that prove the stress
     * test catches a batch without it.
     */
    protected void fenceAfterBatch()
    {
        VarHandle.fullFence();
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

    /** The lowest LEO over mirror link {@code mirror}'s reported ISR for {@code slot}, as its writer keeps it. */
    public long mirrorMinLeo(final int slot, final int mirror)
    {
        return buffer.getLongAcquire(rowOffset(slot) + layout.mirrorBlockOffset(mirror) + MIRROR_MIN_LEO_OFFSET);
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
        buffer.putLongRelease(row + layout.mirrorBlockOffset(mirror) + MIRROR_MIN_LEO_OFFSET, 0L);
        for (int r = 0; r < layout.replicasPerMirror(); r++)
        {
            buffer.putLongRelease(row + layout.mirrorLeoOffset(mirror, r), 0L);
        }
    }

    /**
     * Opens a membership change on the row: turns the version odd, waiting while another writer's change is open
     * (changes are a few stores long and happen on the control plane).
     *
     * @return the HW word as the change found it (the HW cannot move until {@link #endChange}).
     */
    private long beginChange(final int row)
    {
        final int offset = row + HW_WORD_OFFSET;
        while (true)
        {
            final long word = buffer.getLongVolatile(offset);
            if (!PartitionRowDescriptor.membershipChangeOpen(word) &&
                buffer.compareAndSetLong(offset, word, nextVersion(word)))
            {
                return word;
            }
            Thread.onSpinWait();
        }
    }

    /** Closes the open membership change: the version turns even, the HW kept or set to {@code highWatermark}. */
    private void endChange(final int row, final long highWatermark)
    {
        final int offset = row + HW_WORD_OFFSET;
        long word;
        long update;
        do
        {
            // Only LEO writers' identity CASes (see HighWatermarkGate) can touch the word while the change is open.
            word = buffer.getLongVolatile(offset);
            update = nextVersion(word);
            if (highWatermark != KEEP_HIGH_WATERMARK)
            {
                update = PartitionRowDescriptor.hwWord(highWatermark, update);
            }
        }
        while (!buffer.compareAndSetLong(offset, word, update));
    }

    private static long nextVersion(final long word)
    {
        return (word & ~VERSION_MASK) | ((word + 1) & VERSION_MASK);
    }

    /**
     * The lowest LEO over the members of {@code mask} among the cells starting at absolute offset
     * {@code firstLeo} of {@code buffer} (Long.MAX_VALUE for an empty mask), with acquire loads. The common ISR of
     * three replicas, all in, is straight-line code: three loads that issue together. Other masks iterate over
     * their bits, each load then waiting for the bit arithmetic of the one before.
     */
    public static long minLeo(final AtomicBuffer buffer, final int firstLeo, final int mask)
    {
        if (mask == 0b111)
        {
            final long a = buffer.getLongAcquire(firstLeo);
            final long b = buffer.getLongAcquire(firstLeo + 8);
            final long c = buffer.getLongAcquire(firstLeo + 16);
            return Math.min(a, Math.min(b, c));
        }
        long min = Long.MAX_VALUE;
        for (int m = mask; m != 0; m &= m - 1)
        {
            min = Math.min(min, buffer.getLongAcquire(firstLeo + (Integer.numberOfTrailingZeros(m) << 3)));
        }
        return min;
    }

    private static void requireOffset(final long offset)
    {
        if (offset < 0 || offset > MAX_OFFSET)
        {
            throw new IllegalArgumentException("offset out of range [0, " + MAX_OFFSET + "]: " + offset);
        }
    }
}

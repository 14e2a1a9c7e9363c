package io.syncmirror.hwgate;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.offheap.PartitionRowDescriptor;
import io.syncmirror.offheap.PartitionTable;
import org.agrona.concurrent.AtomicBuffer;

import static io.syncmirror.offheap.PartitionRowDescriptor.HW_WORD_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.LOCAL_ISR_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.LOCAL_LEO_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.MIRROR_ISR_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.MIRROR_MIN_LEO_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.REGISTERED_MIRRORS_OFFSET;
import static io.syncmirror.offheap.PartitionRowDescriptor.VERSION_BITS;
import static io.syncmirror.offheap.PartitionRowDescriptor.VERSION_MASK;

/**
 * The sync high-watermark predicate over a {@link PartitionTable} row, and the ack outcome rules that go with
 * it. Stateless apart from the table; any thread may call any method.
 *
 * <p>From the sync mirroring text, "High Watermark Advancement":
 * <pre>
 *   participating = local ISR ∪ (∪ M.ISR for each M in registeredMirrors(topic))
 *   HW            = min(LEO of r for r in participating)
 * </pre>
 * frozen (never advanced) while |local ISR| &lt; min.insync.replicas or any registered M reports
 * |M.ISR| &lt; M.MinISR. An empty registered set is plain single-cluster Kafka. A registered mirror that has not
 * reported (an empty ISR: a new session, a reconnect) freezes the HW too, since an ISR always holds its
 * leader: advancing without it would acknowledge records the mirror may not hold.
 *
 * <p>The HW only moves forward, by a CAS on the row's HW word, which also carries the membership version: a
 * recompute that read an ISR or registration that has since changed fails its CAS and recomputes, and none
 * publishes while a membership change is open (see PartitionRowDescriptor). The caller of a membership change
 * recomputes after closing it.
 */
public class HighWatermarkGate
{
    /** Returned by {@link #maybeAdvance(int)} when the HW did not move. */
    public static final long NO_ADVANCE = -1L;
    /** Returned by {@link #candidate(int)} while the HW is frozen. */
    public static final long FROZEN = -1L;

    private final PartitionTable table;
    private final AtomicBuffer buffer;
    private final int firstMirrorOffset;
    private final int mirrorBlockBytes;

    public HighWatermarkGate(final PartitionTable table)
    {
        this.table = table;
        this.buffer = table.buffer();
        final PartitionRowDescriptor layout = table.layout();
        this.firstMirrorOffset = layout.mirrorBlockOffset(0);
        this.mirrorBlockBytes = layout.mirrorBlockBytes();
    }

    public PartitionTable table()
    {
        return table;
    }

    /**
     * Recomputes {@code slot}'s HW and publishes it if it moved forward. Call after publishing a LEO with the
     * volatile store of {@link PartitionTable}: the HW word's volatile load below is what orders the LEO loads
     * after it (they are acquire loads).
     *
     * @return the new HW, or {@link #NO_ADVANCE} when it did not move (frozen, or nothing new).
     */
    public long maybeAdvance(final int slot)
    {
        final int row = table.rowOffset(slot);
        while (true)
        {
            final long word = buffer.getLongVolatile(row + HW_WORD_OFFSET);
            if (PartitionRowDescriptor.membershipChangeOpen(word))
            {
                // A membership change is open and its writer recomputes after closing it. The identity CAS
                // orders the caller's LEO store before the closing CAS on the same word, so the closing
                // recompute counts it; if the change closed first, this CAS fails and the loop recomputes.
                if (buffer.compareAndSetLong(row + HW_WORD_OFFSET, word, word))
                {
                    return NO_ADVANCE;
                }
                continue;
            }
            final long candidate = candidateAt(row);
            if (candidate <= (word >>> VERSION_BITS))
            {
                return NO_ADVANCE;
            }
            if (publishHwWord(buffer, row + HW_WORD_OFFSET, word, (candidate << VERSION_BITS) | (word & VERSION_MASK)))
            {
                return candidate;
            }
            // Another thread advanced the HW or changed the membership since the word was read: recompute.
        }
    }

    /**
     * A batch of LEO reports: publishes them with one fence ({@link PartitionTable#publishLeos}), then recomputes
     * each slot's HW as {@link #maybeAdvance(int)} does, into {@code advanced[i]} (the new HW or
     * {@link #NO_ADVANCE}). A slot that appears twice is recomputed twice; the second finds nothing new.
     *
     * @return the value {@link PartitionTable#publishLeos} returns
     */
    public long onLeos(final int[] slots, final int[] cells, final long[] leos, final int count,
        final long[] advanced)
    {
        final long touched = table.publishLeos(slots, cells, leos, count);
        for (int i = 0; i < count; i++)
        {
            advanced[i] = maybeAdvance(slots[i]);
        }
        return touched;
    }

    /**
     * Publishes a new HW word. A CAS, so that a HW computed from an older membership or lower LEOs can never
     * overwrite a newer one; overridden only by tests that prove the stress test catches a plain store here.
     */
    protected boolean publishHwWord(final AtomicBuffer buffer, final int offset, final long expected, final long update)
    {
        return buffer.compareAndSetLong(offset, expected, update);
    }

    /** The HW the predicate allows now for {@code slot}, or {@link #FROZEN}. Does not publish it. */
    public long candidate(final int slot)
    {
        return candidateAt(table.rowOffset(slot));
    }

    private long candidateAt(final int row)
    {
        // Locals, not fields: the acquire loads below would otherwise make the JIT reload every field after each.
        final AtomicBuffer buffer = this.buffer;
        final long localIsr = buffer.getLongAcquire(row + LOCAL_ISR_OFFSET);
        final int localMask = (int)localIsr;
        if (Integer.bitCount(localMask) < Math.max(1, (int)(localIsr >>> 32)))
        {
            return FROZEN;
        }
        long min = PartitionTable.minLeo(buffer, row + LOCAL_LEO_OFFSET, localMask);
        int registered = buffer.getIntAcquire(row + REGISTERED_MIRRORS_OFFSET);
        if (registered == 0)
        {
            return min;
        }
        final int firstMirror = row + firstMirrorOffset;
        final int mirrorBlockBytes = this.mirrorBlockBytes;
        for (; registered != 0; registered &= registered - 1)
        {
            final int block = firstMirror + Integer.numberOfTrailingZeros(registered) * mirrorBlockBytes;
            final long mirrorIsr = buffer.getLongAcquire(block + MIRROR_ISR_OFFSET);
            final int isrMask = (int)mirrorIsr;
            if (Integer.bitCount(isrMask) < Math.max(1, (int)(mirrorIsr >>> 32)))
            {
                return FROZEN;
            }
            // The block's writer keeps its min LEO over its ISR: one load instead of one per ISR member.
            min = Math.min(min, buffer.getLongAcquire(block + MIRROR_MIN_LEO_OFFSET));
        }
        return min;
    }

    /** Whether {@code slot}'s local ISR is smaller than its min.insync.replicas. */
    public boolean localIsrBelowMin(final int slot)
    {
        final long isr = table.localIsrWord(slot);
        return Integer.bitCount(PartitionRowDescriptor.isrMask(isr)) < PartitionRowDescriptor.minIsr(isr);
    }

    /**
     * The first registered mirror of {@code slot} whose reported ISR is smaller than its MinISR, or -1. A mirror
     * that has not reported yet is not counted here: its HW freeze is the signal, and answering "under MinISR"
     * for a report that is merely in flight would fail produces that are about to succeed.
     */
    public int remoteBelowMinIsr(final int slot)
    {
        for (int mirrors = table.registeredMirrors(slot); mirrors != 0; mirrors &= mirrors - 1)
        {
            final int mirror = Integer.numberOfTrailingZeros(mirrors);
            final long isr = table.mirrorIsrWord(slot, mirror);
            final int mask = PartitionRowDescriptor.isrMask(isr);
            if (mask != 0 && Integer.bitCount(mask) < PartitionRowDescriptor.minIsr(isr))
            {
                return mirror;
            }
        }
        return -1;
    }

    /**
     * The outcome of a waiter whose required offset the HW has reached, by the sync text's produce-ack
     * precondition checked at acknowledgment time: NOT_ENOUGH_REPLICAS_AFTER_APPEND when the local ISR is under
     * min.insync.replicas (as Kafka's Partition.checkEnoughReplicasReachOffset answers), else
     * NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND naming a registered mirror under its MinISR, else success.
     */
    public int ackTimeOutcome(final int slot)
    {
        if (localIsrBelowMin(slot))
        {
            return AckOutcome.of(MirrorError.NOT_ENOUGH_REPLICAS_AFTER_APPEND);
        }
        final int mirror = remoteBelowMinIsr(slot);
        return mirror < 0 ? AckOutcome.SUCCESS : AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, mirror);
    }

    /**
     * The outcome of a waiter for {@code requiredOffset} whose deadline fired. The HW reached it: the ack-time
     * rules. A registered mirror under its MinISR: NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND naming it. Otherwise
     * the bottleneck decides: when the slowest registered mirror (lowest LEO over its reported ISR) is below the
     * required offset and not ahead of the local ISR, MIRROR_SYNC_REPLICATION_TIMEOUT naming it; when only the
     * local ISR lags (or is frozen under its minimum), REQUEST_TIMED_OUT, as Kafka's DelayedProduce answers.
     */
    public int expiryOutcome(final int slot, final long requiredOffset)
    {
        if (table.highWatermark(slot) >= requiredOffset)
        {
            return ackTimeOutcome(slot);
        }
        final int underMin = remoteBelowMinIsr(slot);
        if (underMin >= 0)
        {
            return AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, underMin);
        }
        int slowest = -1;
        long slowestLeo = Long.MAX_VALUE;
        for (int mirrors = table.registeredMirrors(slot); mirrors != 0; mirrors &= mirrors - 1)
        {
            final int mirror = Integer.numberOfTrailingZeros(mirrors);
            final long leo = mirrorIsrMinLeo(slot, mirror);
            if (leo < slowestLeo)
            {
                slowestLeo = leo;
                slowest = mirror;
            }
        }
        if (slowest >= 0 && slowestLeo < requiredOffset && slowestLeo <= localIsrMinLeo(slot))
        {
            return AckOutcome.of(MirrorError.MIRROR_SYNC_REPLICATION_TIMEOUT, slowest);
        }
        return AckOutcome.of(MirrorError.REQUEST_TIMED_OUT);
    }

    /** Lowest LEO over {@code slot}'s local ISR (Long.MAX_VALUE for an empty ISR). */
    public long localIsrMinLeo(final int slot)
    {
        final int row = table.rowOffset(slot);
        final int mask = PartitionRowDescriptor.isrMask(table.localIsrWord(slot));
        return PartitionTable.minLeo(buffer, row + LOCAL_LEO_OFFSET, mask);
    }

    /** Lowest LEO over mirror link {@code mirror}'s reported ISR for {@code slot} (0 before any report). */
    public long mirrorIsrMinLeo(final int slot, final int mirror)
    {
        return buffer.getLongAcquire(
            table.rowOffset(slot) + firstMirrorOffset + mirror * mirrorBlockBytes + MIRROR_MIN_LEO_OFFSET);
    }
}

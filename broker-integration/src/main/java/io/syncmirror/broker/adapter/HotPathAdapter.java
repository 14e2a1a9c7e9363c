package io.syncmirror.broker.adapter;

import org.apache.kafka.common.Uuid;

import io.syncmirror.hwgate.AckOutcome;
import io.syncmirror.hwgate.DelayedProducePurgatory;
import io.syncmirror.hwgate.HighWatermarkGate;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.hwgate.OwnerWakeup;
import io.syncmirror.hwgate.ProduceCompletionHandler;
import io.syncmirror.hwgate.RequestShard;
import io.syncmirror.hwgate.WaiterRings;
import io.syncmirror.offheap.PartitionRowDescriptor;
import io.syncmirror.offheap.PartitionSlotIndex;
import io.syncmirror.offheap.PartitionTable;

/**
 * The thin adapter between the broker's partition lifecycle and the hot path: the only code of the broker that
 * touches the off-heap partition table, the HW gate and the delayed-produce purgatory. Thread-safety: as the
 * parts it wraps: {@link #attachLeader}/{@link #detach}/ISR changes from the thread applying a partition's
 * metadata, LEO reports from each replica cell's single writer, shards from their owner threads.
 *
 * <p>A partition this broker leads owns one slot, keyed by (topic id, partition). Replicas are numbered by their
 * position in the partition's assignment; that position is their bit in the ISR mask and their LEO cell.
 *
 * <p>The HW goes first into the row (by CAS, through the gate), then into the log, then the waiters it reached
 * are completed: so a producer that got its ack and then fetches finds the log's HW at its record.
 */
public final class HotPathAdapter
{
    /** The HW did not move. */
    public static final long NO_ADVANCE = HighWatermarkGate.NO_ADVANCE;

    private final PartitionSlotIndex slots;
    private final PartitionTable table;
    private final HighWatermarkGate gate;
    private final DelayedProducePurgatory purgatory;
    private final int maxReplicas;
    private final MirrorLinks mirrorLinks;

    /**
     * @param slotCapacity        partitions this broker may lead at once.
     * @param maxReplicas         the largest replication factor supported (ISR mask bits).
     * @param waitersPerPartition acks=all produces waiting on one partition at once, a power of two; more are
     *                            answered at once with a retriable error (see DelayedProducePurgatory).
     * @param maxShards           owner threads (event loops and internal executors) that begin produces.
     * @param mirrorLinks         sync mirror links of a row (see MirrorLinks), one block each, plus the hold.
     */
    public HotPathAdapter(final int slotCapacity, final int maxReplicas, final int waitersPerPartition,
        final int maxShards, final int mirrorLinks)
    {
        this.maxReplicas = maxReplicas;
        this.mirrorLinks = new MirrorLinks(mirrorLinks);
        this.slots = new PartitionSlotIndex(slotCapacity);
        this.table = new PartitionTable(slotCapacity,
            new PartitionRowDescriptor(maxReplicas, this.mirrorLinks.rowLinkBlocks(), maxReplicas,
                WaiterRings.bytesFor(waitersPerPartition)));
        this.gate = new HighWatermarkGate(table);
        this.purgatory = new DelayedProducePurgatory(gate, waitersPerPartition, maxShards);
    }

    public int maxReplicas()
    {
        return maxReplicas;
    }

    /** The sync mirror links of this broker: the mirror name behind each link block of the rows. */
    public MirrorLinks mirrorLinks()
    {
        return mirrorLinks;
    }

    /**
     * This broker became (or stays, with a new epoch) the leader: the slot is (re)initialized with the log's HW
     * and the committed ISR. Waits left from an earlier leadership fail with NOT_LEADER_OR_FOLLOWER first.
     *
     * @return the slot, or {@link PartitionSlotIndex#NO_SLOT} when every slot is taken.
     */
    public int attachLeader(final Uuid topicId, final int partition, final long highWatermark, final int isrMask,
        final int minIsr)
    {
        int slot = slots.slotOf(topicId.getMostSignificantBits(), topicId.getLeastSignificantBits(), partition);
        if (slot == PartitionSlotIndex.NO_SLOT)
        {
            slot = slots.add(topicId.getMostSignificantBits(), topicId.getLeastSignificantBits(), partition);
            if (slot == PartitionSlotIndex.NO_SLOT)
            {
                return slot;
            }
        }
        else
        {
            purgatory.failWaits(slot, AckOutcome.of(MirrorError.NOT_LEADER_OR_FOLLOWER));
        }
        table.initSlot(slot, highWatermark, isrMask, minIsr);
        return slot;
    }

    /** This broker no longer leads the partition: its waits fail with NOT_LEADER_OR_FOLLOWER, its slot is freed. */
    public void detach(final Uuid topicId, final int partition)
    {
        final int slot = slots.slotOf(topicId.getMostSignificantBits(), topicId.getLeastSignificantBits(), partition);
        if (slot != PartitionSlotIndex.NO_SLOT)
        {
            purgatory.failWaits(slot, AckOutcome.of(MirrorError.NOT_LEADER_OR_FOLLOWER));
            slots.remove(topicId.getMostSignificantBits(), topicId.getLeastSignificantBits(), partition);
        }
    }

    /**
     * Replica {@code replica} of {@code slot} reached {@code leo}; recomputes the HW.
     *
     * @return the HW this call published, or {@link #NO_ADVANCE}. When it published one, the caller moves the
     * log's HW and then calls {@link #completeWaiters}.
     */
    public long onLeo(final int slot, final int replica, final long leo)
    {
        table.localLeo(slot, replica, leo);
        return gate.maybeAdvance(slot);
    }

    /**
     * A batch of local replicas' LEOs, one fetch response's: {@code leos[i]} for replica {@code replicas[i]} of
     * {@code slots[i]}, each by its cell's single writer, published with one fence for the batch after a pass that
     * touches every row, so the rows' cache misses overlap (see {@link HighWatermarkGate#onLeos}); then each
     * slot's HW is recomputed, {@code advanced[i]} taking the HW published or {@link #NO_ADVANCE}. As for
     * {@link #onLeo}, the caller then moves the log's HW and calls {@link #completeWaiters} for each advance.
     *
     * @param cells scratch of at least {@code count} ints: the cell offsets, filled here
     */
    public void onLeos(final int[] slots, final int[] replicas, final long[] leos, final int count, final int[] cells,
        final long[] advanced)
    {
        for (int i = 0; i < count; i++)
        {
            cells[i] = table.localLeoCell(replicas[i]);
        }
        gate.onLeos(slots, cells, leos, count, advanced);
    }

    /** Completes the waits of {@code slot} that its HW reached. */
    public void completeWaiters(final int slot)
    {
        purgatory.onHighWatermarkAdvanced(slot);
    }

    public long highWatermark(final int slot)
    {
        return table.highWatermark(slot);
    }

    public long replicaLeo(final int slot, final int replica)
    {
        return table.localLeo(slot, replica);
    }

    /** The ISR mask the gate uses now. */
    public int isrMask(final int slot)
    {
        return PartitionRowDescriptor.isrMask(table.localIsrWord(slot));
    }

    /**
     * Publishes a new ISR (and min.insync.replicas). Members it adds must have reached the HW, or nothing
     * changes (hazard 2's rule, locally): a joining replica never lets the HW pass a record it lacks.
     *
     * @return whether it was published.
     */
    public boolean changeIsr(final int slot, final int isrMask, final int minIsr)
    {
        if (!table.localIsrIfCaughtUp(slot, isrMask, minIsr))
        {
            return false;
        }
        purgatory.onMembershipChanged(slot);
        return true;
    }

    /** Whether an acks=all append must be refused now: the ISR the gate uses is under min.insync.replicas. */
    public boolean isrBelowMin(final int slot)
    {
        return gate.localIsrBelowMin(slot);
    }

    public RequestShard newShard(final int maxRequests, final int maxWaits, final ProduceCompletionHandler handler,
        final OwnerWakeup wakeup, final long nowMs)
    {
        return purgatory.newShard(maxRequests, maxWaits, handler, wakeup, nowMs);
    }

    // ------------------------------------------------------------------------------------------------------
    // Sync mirror links (source side).
    // ------------------------------------------------------------------------------------------------------

    /**
     * Publishes which mirror links gate {@code slot} (bit m: link m). A link that joins starts with no report (its
     * cells cleared): the HW waits for its first report, as the sync text's initial-fetch window describes. A link
     * that leaves stops gating at once, and the waits its absence completes are completed (hazard 6).
     */
    public void registeredMirrors(final int slot, final int linkMask)
    {
        final int before = table.registeredMirrors(slot);
        if (before == linkMask)
        {
            return;
        }
        for (int joining = linkMask & ~before; joining != 0; joining &= joining - 1)
        {
            table.clearMirror(slot, Integer.numberOfTrailingZeros(joining));
        }
        table.registeredMirrors(slot, linkMask);
        purgatory.onMembershipChanged(slot);
    }

    /** The mirror links that gate {@code slot} now. */
    public int registeredMirrors(final int slot)
    {
        return table.registeredMirrors(slot);
    }

    /**
     * Applies one destination report for {@code slot} over link {@code link}: the LEO of each reported replica
     * (cell index → LEO, {@code count} cells), then the reported ISR and MinISR, as reported. A reported member
     * below the HW is counted too: the destination may elect any member of its ISR, so the HW waits for it (it
     * cannot go down). Leaving it out would acknowledge records a replica the destination can elect lacks; that
     * is how a member already in the destination's ISR when the mirror registers, and still behind the source's
     * HW then, is kept safe (the source's HW at registration need not be on the mirror yet).
     *
     * @return the HW this call published, or {@link #NO_ADVANCE}; as for {@link #onLeo}, the caller then moves
     * the log's HW and calls {@link #completeWaiters}. After a change of the reported ISR it returns the HW as it
     * now is, which the change may have moved (the purgatory recomputes on membership changes).
     */
    public long onMirrorReport(final int slot, final int link, final long[] leos, final int count,
        final int isrMask, final int minIsr)
    {
        table.mirrorLeos(slot, link, leos, count);
        boolean membershipChanged = false;
        if (table.mirrorIsrWord(slot, link) != PartitionRowDescriptor.isrWord(isrMask, minIsr))
        {
            membershipChanged = true;
            table.mirrorIsr(slot, link, isrMask, minIsr);
            purgatory.onMembershipChanged(slot);
        }
        final long advanced = gate.maybeAdvance(slot);
        return advanced == NO_ADVANCE && membershipChanged ? table.highWatermark(slot) : advanced;
    }

    /** Forgets link {@code link}'s reports for {@code slot}: until its next full report the HW waits for it. */
    public void clearMirror(final int slot, final int link)
    {
        table.clearMirror(slot, link);
    }

    /** The lowest LEO over link {@code link}'s reported ISR for {@code slot} (0 before any report). */
    public long mirrorIsrMinLeo(final int slot, final int link)
    {
        return gate.mirrorIsrMinLeo(slot, link);
    }

    /** Off-heap bytes held by the partition table. */
    public long allocatedBytes()
    {
        return table.allocatedBytes();
    }
}

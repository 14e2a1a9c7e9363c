package io.syncmirror.hwgate;

import java.util.concurrent.atomic.AtomicReferenceArray;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.offheap.PartitionRowDescriptor;
import io.syncmirror.offheap.PartitionTable;

/**
 * The delayed-produce purgatory of the sync ack path: acks=all waits parked in per-slot FIFOs
 * ({@link WaiterRings}) until the slot's HW, decided by the {@link HighWatermarkGate}, reaches their offset.
 * Thread-safe: appends (through {@link RequestShard#watch}), LEO reports, membership changes and deadline
 * expiries may each run on a different thread, and none takes a lock.
 *
 * <p>Compared with Kafka's DelayedOperationPurgatory: Kafka keeps a watcher list per partition key, re-runs
 * every watching operation's tryComplete under its lock on each checkAndComplete, allocates an operation and a
 * timer entry per request and purges completed ones with a background reaper. Here offsets grow in append
 * order, so a slot's FIFO is sorted by required offset and a HW advance completes exactly a prefix: no scan,
 * no per-request objects, no lock, no purge thread. Deadlines live in each owner's primitive timing wheel.
 *
 * <p>The ordering rules that make this safe (DESIGN.md, hazard 7): a wait enters its FIFO inside the append
 * critical section, so FIFO order is offset order; after entering it the HW is read again, so a HW advance that
 * drained the FIFO just before the wait arrived is not missed; completion and expiry race on the wait cell's
 * result word, so each wait is decided exactly once; a full FIFO answers at once, as if the deadline had fired.
 */
public class DelayedProducePurgatory
{
    private final HighWatermarkGate gate;
    private final PartitionTable table;
    private final WaiterRings rings;
    private final AtomicReferenceArray<RequestShard> shards;
    private int shardCount; // guarded by this: shards are created at startup, not on the hot path

    /**
     * @param gate         the HW predicate over the partition table.
     * @param ringCapacity waits per slot, a power of two; a slot with that many waits answers new ones at once.
     *                     The FIFOs live in the partition rows when the table was created with an extension
     *                     of {@link WaiterRings#bytesFor(int)} bytes, otherwise in a buffer of their own.
     * @param maxShards    owner threads that may create a {@link RequestShard}, at most 256.
     */
    public DelayedProducePurgatory(final HighWatermarkGate gate, final int ringCapacity, final int maxShards)
    {
        if (maxShards < 1 || maxShards > RequestShardDescriptor.MAX_SHARDS)
        {
            throw new IllegalArgumentException("maxShards must be in [1, 256]: " + maxShards);
        }
        this.gate = gate;
        this.table = gate.table();
        final PartitionRowDescriptor layout = table.layout();
        this.rings = layout.extensionBytes() >= WaiterRings.bytesFor(ringCapacity) ?
            new WaiterRings(table.buffer(), layout.extensionOffset(), layout.rowBytes(), ringCapacity) :
            new WaiterRings(table.slotCapacity(), ringCapacity);
        this.shards = new AtomicReferenceArray<>(maxShards);
    }

    public HighWatermarkGate gate()
    {
        return gate;
    }

    public PartitionTable table()
    {
        return table;
    }

    public WaiterRings rings()
    {
        return rings;
    }

    /**
     * Creates the request shard of one owner thread.
     *
     * @param maxRequests requests in flight at once.
     * @param maxWaits    waits (partitions of in-flight requests) at once.
     * @param handler     receives finished requests on the owner thread.
     * @param wakeup      wakes the owner when it parked and a request finished.
     * @param startMs     the owner's clock now, for its timing wheel.
     */
    public synchronized RequestShard newShard(
        final int maxRequests,
        final int maxWaits,
        final ProduceCompletionHandler handler,
        final OwnerWakeup wakeup,
        final long startMs)
    {
        if (shardCount == shards.length())
        {
            throw new IllegalStateException("all " + shards.length() + " request shards are taken");
        }
        final RequestShard shard = new RequestShard(shardCount, this, maxRequests, maxWaits, handler, wakeup, startMs);
        shards.set(shardCount++, shard);
        return shard;
    }

    // ------------------------------------------------------------------------------------------------------
    // Inputs: each publishes into the partition table, recomputes the HW and completes what it allows.
    // ------------------------------------------------------------------------------------------------------

    /**
     * Local replica {@code replica} of {@code slot} reached {@code leo} (the leader's own append, or a follower's
     * fetch). Called by that cell's single writer.
     *
     * @return the new HW, or {@link HighWatermarkGate#NO_ADVANCE}.
     */
    public long onLocalLeo(final int slot, final int replica, final long leo)
    {
        table.localLeo(slot, replica, leo);
        return maybeAdvance(slot);
    }

    /**
     * Replica {@code replica} of mirror link {@code mirror} reported {@code leo} for {@code slot} (already capped
     * to the offsets validated in the current source epoch). Called by that link's single writer.
     *
     * @return the new HW, or {@link HighWatermarkGate#NO_ADVANCE}.
     */
    public long onMirrorLeo(final int slot, final int mirror, final int replica, final long leo)
    {
        table.mirrorLeo(slot, mirror, replica, leo);
        return maybeAdvance(slot);
    }

    /**
     * A batch of LEO reports (one fetch response's partitions): {@code leos[i]} into cell {@code cells[i]} of
     * {@code slots[i]} ({@link PartitionTable#localLeoCell}, {@link PartitionTable#mirrorLeoCell}), each by that
     * cell's single writer, with one fence for the batch; then each slot's HW is recomputed and the waits it
     * reached completed, {@code advanced[i]} taking the new HW or {@link HighWatermarkGate#NO_ADVANCE}.
     */
    public void onLeos(final int[] slots, final int[] cells, final long[] leos, final int count,
        final long[] advanced)
    {
        gate.onLeos(slots, cells, leos, count, advanced);
        for (int i = 0; i < count; i++)
        {
            if (advanced[i] != HighWatermarkGate.NO_ADVANCE)
            {
                completeUpTo(slots[i], advanced[i]);
            }
        }
    }

    /**
     * Recomputes {@code slot}'s HW and completes the waits it reached.
     *
     * @return the new HW, or {@link HighWatermarkGate#NO_ADVANCE}.
     */
    public long maybeAdvance(final int slot)
    {
        final long hw = gate.maybeAdvance(slot);
        if (hw != HighWatermarkGate.NO_ADVANCE)
        {
            completeUpTo(slot, hw);
        }
        return hw;
    }

    /**
     * Completes the waits of {@code slot} that its current HW reached, for a caller that advanced the HW itself
     * (with {@link HighWatermarkGate#maybeAdvance}, e.g. once for a batch of LEO reports).
     */
    public void onHighWatermarkAdvanced(final int slot)
    {
        completeUpTo(slot, table.highWatermark(slot));
    }

    /**
     * The local ISR, min.insync.replicas, the registered mirrors or a mirror's reported ISR of {@code slot}
     * changed (the caller already wrote it to the partition table). Fails the slot's waits at once when a
     * registered mirror is under its MinISR (the sync text's fast feedback), otherwise recomputes the HW, which
     * a shrink or a removed registration may advance.
     */
    public void onMembershipChanged(final int slot)
    {
        final long hw = table.highWatermark(slot); // volatile: orders the membership reads below after the bump
        final int underMin = gate.remoteBelowMinIsr(slot);
        if (underMin >= 0)
        {
            failWaits(slot, AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, underMin));
            return;
        }
        final long advanced = gate.maybeAdvance(slot);
        completeUpTo(slot, advanced == HighWatermarkGate.NO_ADVANCE ? hw : advanced);
    }

    /**
     * Fails every wait of {@code slot} with {@code outcome}: the broker lost the partition's leadership
     * (NOT_LEADER_OR_FOLLOWER, as Kafka answers) or removes it. Call before the slot's row is initialized again,
     * since the FIFO outlives {@link PartitionTable#initSlot}: a wait left in it would be completed by another
     * leadership's HW.
     */
    public void failWaits(final int slot, final int outcome)
    {
        long waiter;
        while ((waiter = rings.pollUpTo(slot, Long.MAX_VALUE)) >= 0)
        {
            resolve(waiter, outcome);
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Internals.
    // ------------------------------------------------------------------------------------------------------

    void watch(final RequestShard shard, final int cell, final long waiterRef, final int slot, final long requiredOffset)
    {
        if (!rings.offer(slot, requiredOffset, waiterRef))
        {
            dropDecidedHeads(slot);
            if (!rings.offer(slot, requiredOffset, waiterRef))
            {
                // Bounded memory: a slot with a full FIFO answers as if this wait's deadline fired now. The
                // records are appended; the retriable error makes the producer retry, and idempotence dedupes.
                shard.resolve(cell, RequestShardDescriptor.generationOf(waiterRef),
                    gate.expiryOutcome(slot, requiredOffset));
                return;
            }
        }
        recheckAfterWatch(slot, requiredOffset);
    }

    /**
     * Reads the HW again after a wait entered its FIFO: a HW advance whose drain ran just before the wait was
     * visible would otherwise leave it until the next advance or its deadline (a lost wake-up). Also applies the
     * under-MinISR fast feedback to a wait that raced with a mirror's ISR shrink. Overridden only by tests that
     * prove the stress test catches a purgatory without it.
     */
    protected void recheckAfterWatch(final int slot, final long requiredOffset)
    {
        final long hw = table.highWatermark(slot); // volatile load after the FIFO's volatile tail store
        final int underMin = gate.remoteBelowMinIsr(slot);
        if (underMin >= 0)
        {
            failWaits(slot, AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, underMin));
        }
        else if (hw >= requiredOffset)
        {
            completeUpTo(slot, hw);
        }
    }

    private void completeUpTo(final int slot, final long hw)
    {
        int outcome = AckOutcome.PENDING;
        long waiter;
        while ((waiter = rings.pollUpTo(slot, hw)) >= 0)
        {
            if (outcome == AckOutcome.PENDING)
            {
                outcome = gate.ackTimeOutcome(slot); // once per drain, and only when something completes
            }
            resolve(waiter, outcome);
        }
    }

    /** Pops head waits that were already decided (their request expired), to make room in a full FIFO. */
    private void dropDecidedHeads(final int slot)
    {
        while (true)
        {
            final long head = rings.headSequence(slot);
            if (head >= rings.tailSequence(slot))
            {
                return;
            }
            final long waiter = rings.waiterAt(slot, head);
            if (rings.headSequence(slot) != head)
            {
                continue;
            }
            final RequestShard shard = shards.get(RequestShardDescriptor.shardOf(waiter));
            if (shard.isPending(RequestShardDescriptor.cellOf(waiter), RequestShardDescriptor.generationOf(waiter)))
            {
                return;
            }
            rings.advanceHead(slot, head);
        }
    }

    private void resolve(final long waiter, final int outcome)
    {
        shards.get(RequestShardDescriptor.shardOf(waiter)).resolve(
            RequestShardDescriptor.cellOf(waiter), RequestShardDescriptor.generationOf(waiter), outcome);
    }
}

package io.syncmirror.benchmarks;

import io.syncmirror.offheap.PartitionTable;
import org.apache.kafka.server.purgatory.DelayedOperation;

/**
 * The Kafka-side baseline of a delayed acks=all produce: a {@link DelayedOperation} for Kafka 4.4's
 * DelayedOperationPurgatory that completes once the HW of each of its partitions, read from the same
 * {@link PartitionTable} our purgatory uses, reaches the offset the request needs. Thread-safe as Kafka's
 * operations are: the purgatory calls {@link #tryComplete()} under the operation's lock, and
 * {@link #forceComplete()} lets exactly one caller run {@link #onComplete()}.
 *
 * <p>It carries only what Kafka's DelayedProduce must carry (the partitions and their required offsets) and
 * none of its per-partition status objects or response building, so the baseline is a lower bound on what
 * Kafka spends per request.
 */
public final class HighWatermarkDelayedProduce extends DelayedOperation
{
    /** Counts the outcomes of the operations that share it; written by the thread that completes each one. */
    public static final class Outcomes
    {
        private long completed;
        private long expired;

        /** Operations completed because their HWs arrived, or because their deadline fired. */
        public long completed()
        {
            return completed;
        }

        /** Operations whose deadline fired first. */
        public long expired()
        {
            return expired;
        }
    }

    private final PartitionTable table;
    private final int[] slots;
    private final long[] requiredOffsets;
    private final Outcomes outcomes;

    /**
     * @param delayMs         the request timeout.
     * @param table           the partition rows whose HW decides completion.
     * @param slots           the request's partition slots.
     * @param requiredOffsets per slot, the HW the ack needs (last appended offset plus one).
     * @param outcomes        receives this operation's outcome.
     */
    public HighWatermarkDelayedProduce(
        final long delayMs,
        final PartitionTable table,
        final int[] slots,
        final long[] requiredOffsets,
        final Outcomes outcomes)
    {
        super(delayMs);
        this.table = table;
        this.slots = slots;
        this.requiredOffsets = requiredOffsets;
        this.outcomes = outcomes;
    }

    /** Completes the operation when every partition's HW has reached its required offset, as DelayedProduce does. */
    @Override
    public boolean tryComplete()
    {
        for (int i = 0; i < slots.length; i++)
        {
            if (table.highWatermark(slots[i]) < requiredOffsets[i])
            {
                return false;
            }
        }
        return forceComplete();
    }

    @Override
    public void onComplete()
    {
        outcomes.completed++;
    }

    @Override
    public void onExpiration()
    {
        outcomes.expired++;
    }
}

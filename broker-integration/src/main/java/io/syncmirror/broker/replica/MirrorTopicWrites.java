package io.syncmirror.broker.replica;

import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.record.internal.MemoryRecords;

import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.storage.PartitionLog;

/**
 * What a producer may write to a topic that is or was a mirror topic (destination side). Stateless; the partition
 * calls it under its append lock, for topics whose config names a mirror only.
 */
final class MirrorTopicWrites
{
    private MirrorTopicWrites()
    {
    }

    /**
     * Refuses a producer's append to a mirror topic: read-only while mirrored (KIP-1279's ReadOnlyTopicException;
     * Kafka 4.4 has no such code, so POLICY_VIOLATION carries the message), and retriable while its failover is
     * still running ({@code mirrorStopped} false).
     */
    static void checkWritable(final TopicPartition topicPartition, final Map<String, String> config,
        final boolean mirrorStopped)
    {
        final String active = MirrorTopicConfig.activeMirror(config);
        if (active != null)
        {
            throw new PolicyViolationException("Topic '" + topicPartition.topic() + "' is a read-only mirror topic " +
                "of cluster mirror '" + active + "': produce to the source cluster, or fail the topic over first");
        }
        final String removed = MirrorTopicConfig.removedMirror(config);
        if (removed != null && !mirrorStopped)
        {
            throw new NotLeaderOrFollowerException("Topic '" + topicPartition.topic() + "' is failing over from " +
                "cluster mirror '" + removed + "' and becomes writable when that completes");
        }
    }

    /**
     * Refuses a batch whose producer id a mirrored producer used before the failover at {@code pidResetOffset}
     * (hazard 8): the producer id floor keeps ids handed out after the failover clear of them, but a producer that
     * got its id earlier (on this cluster's other topics, before the floor rose) could collide with a mirrored
     * producer's state here, and a batch matching that state's epoch and sequence would be taken for a duplicate
     * and never written. PRODUCER_FENCED is final for that producer instance, so the application sees it at once
     * instead of retrying forever (a Kafka 4.4 producer retries UNKNOWN_PRODUCER_ID and
     * OUT_OF_ORDER_SEQUENCE_NUMBER under the same id); a new producer gets an id above the floor, and a
     * transactional id whose id is below the floor is given a fresh one by its coordinator.
     */
    static void checkNotAMirroredProducer(final PartitionLog log, final MemoryRecords records,
        final long pidResetOffset)
    {
        for (final var batch : records.batches())
        {
            if (batch.hasProducerId())
            {
                final long last = log.lastDataOffsetOf(batch.producerId());
                if (last >= 0 && last < pidResetOffset)
                {
                    throw new ProducerFencedException("producer id " + batch.producerId() + " belonged to a " +
                        "producer of the mirrored source before this topic failed over at offset " +
                        pidResetOffset + "; close this producer and create a new one");
                }
            }
        }
    }
}

package io.syncmirror.broker.metadata;

import java.util.List;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * One partition as the controller's metadata log last described it.
 *
 * @param replicas       the assignment in order; a replica's position in it is its bit in the off-heap ISR mask
 * @param isr            the in-sync replicas (broker ids), a subset of {@code replicas}
 * @param leader         the leader's broker id, or -1 when the partition has none
 * @param leaderEpoch    bumped on every leader change
 * @param partitionEpoch bumped on every change of this partition's state (AlterPartition's fencing epoch)
 */
public record PartitionState(String topic, Uuid topicId, int partition, List<Integer> replicas, List<Integer> isr,
    int leader, int leaderEpoch, int partitionEpoch)
{
    /**
     * Keeps immutable lists, one shared instance per distinct value ({@link ReplicaListInterner}): every broker
     * holds one of these per partition.
     */
    public PartitionState
    {
        replicas = ReplicaListInterner.SHARED.intern(replicas);
        isr = ReplicaListInterner.SHARED.intern(isr);
    }

    public TopicPartition topicPartition()
    {
        return new TopicPartition(topic, partition);
    }
}

package io.syncmirror.broker.group;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.server.util.PartitionMetadataClient;

import io.syncmirror.broker.coordinator.ReplicaAccess;

/**
 * The group coordinator's look-up of partitions' latest offsets, answered from the logs this broker leads.
 * Thread-safe. Kafka's coordinator asks it only for share groups, which this broker does not serve; a partition
 * led elsewhere is answered NOT_LEADER_OR_FOLLOWER rather than looked up over the network.
 */
final class LocalPartitionMetadataClient implements PartitionMetadataClient
{
    private final ReplicaAccess replicas;

    LocalPartitionMetadataClient(final ReplicaAccess replicas)
    {
        this.replicas = replicas;
    }

    @Override
    public Map<TopicPartition, CompletableFuture<OffsetResponse>> listLatestOffsets(
        final Set<TopicPartition> partitions)
    {
        final Map<TopicPartition, CompletableFuture<OffsetResponse>> answers = new HashMap<>();
        for (final TopicPartition tp : partitions)
        {
            answers.put(tp, CompletableFuture.completedFuture(replicas.leaderLog(tp)
                .map(log -> new OffsetResponse(log.highWatermark(), Errors.NONE))
                .orElse(new OffsetResponse(-1L, Errors.NOT_LEADER_OR_FOLLOWER))));
        }
        return answers;
    }

    @Override
    public void close()
    {
    }
}

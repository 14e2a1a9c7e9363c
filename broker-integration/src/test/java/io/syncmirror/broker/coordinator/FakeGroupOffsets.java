package io.syncmirror.broker.coordinator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;

/** A {@link GroupOffsetsPort} that records what it is asked: topic creations and transaction completions. */
final class FakeGroupOffsets implements GroupOffsetsPort
{
    /** One completeTransaction call. */
    record Completion(TopicPartition partition, long producerId, short producerEpoch, int coordinatorEpoch,
        boolean committed)
    {
    }

    private final CoordinatorConfig config;
    private final ReplicaAccess replicas;
    private final List<Completion> completions = new ArrayList<>();

    FakeGroupOffsets(final CoordinatorConfig config, final ReplicaAccess replicas)
    {
        this.config = config;
        this.replicas = replicas;
    }

    @Override
    public TopicPartition partitionFor(final String groupId)
    {
        return new TopicPartition(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, config.offsetsPartitionFor(groupId));
    }

    @Override
    public CompletableFuture<Void> ensureTopic()
    {
        return replicas.ensureTopic(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, config.offsetsTopicPartitions(),
            (short) Math.min(2, config.offsetsTopicReplicationFactor()), java.util.Map.of("cleanup.policy", "compact"));
    }

    @Override
    public synchronized CompletableFuture<Void> completeTransaction(final TopicPartition partition,
        final long producerId, final short producerEpoch, final int coordinatorEpoch, final boolean committed)
    {
        completions.add(new Completion(partition, producerId, producerEpoch, coordinatorEpoch, committed));
        return CompletableFuture.completedFuture(null);
    }

    synchronized List<Completion> completions()
    {
        return List.copyOf(completions);
    }
}

package io.syncmirror.broker.replica;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.storage.MemoryLogStore;

/** The replica manager of a one-broker cluster for partition unit tests: AlterPartition never answers. */
final class SingleBrokerReplicas
{
    static final int BROKER = 1;

    private SingleBrokerReplicas()
    {
    }

    /** Makes this broker the only replica and the leader of {@code tp} at {@code epoch}; returns its partition. */
    static Partition lead(final ReplicaManager replicas, final TopicPartition tp, final Uuid topicId, final int epoch,
        final Map<String, String> topicConfig)
    {
        replicas.onPartitionChanged(new PartitionState(tp.topic(), topicId, tp.partition(), List.of(BROKER),
            List.of(BROKER), BROKER, epoch, epoch), topicConfig);
        return replicas.partitionOrNull(tp);
    }

    static ReplicaManager create(final MemoryLogStore logs)
    {
        return create(logs, io.syncmirror.broker.adapter.MirrorLinks.LINKS_DEFAULT);
    }

    /** With {@code mirrorLinks} sync mirror links (syncmirror.sync.mirror.links). */
    static ReplicaManager create(final MemoryLogStore logs, final int mirrorLinks)
    {
        return new ReplicaManager(new ReplicaConfig(BROKER, 1, 10_000, ReplicaConfig.MAX_REPLICAS, 64, 16, 64,
            mirrorLinks), logs,
            (partition, topicId, leaderEpoch, partitionEpoch, isr) -> new CompletableFuture<>(),
            (topic, partitions, rf, config) -> CompletableFuture.completedFuture(null), System::currentTimeMillis);
    }
}

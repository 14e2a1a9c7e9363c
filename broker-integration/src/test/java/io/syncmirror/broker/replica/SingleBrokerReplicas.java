package io.syncmirror.broker.replica;

import java.util.concurrent.CompletableFuture;

import io.syncmirror.broker.storage.MemoryLogStore;

/** The replica manager of a one-broker cluster for partition unit tests: AlterPartition never answers. */
final class SingleBrokerReplicas
{
    static final int BROKER = 1;

    private SingleBrokerReplicas()
    {
    }

    static ReplicaManager create(final MemoryLogStore logs)
    {
        return new ReplicaManager(new ReplicaConfig(BROKER, 1, 10_000, ReplicaConfig.MAX_REPLICAS, 64, 16, 64), logs,
            (partition, topicId, leaderEpoch, partitionEpoch, isr) -> new CompletableFuture<>(),
            (topic, partitions, rf, config) -> CompletableFuture.completedFuture(null), System::currentTimeMillis);
    }
}

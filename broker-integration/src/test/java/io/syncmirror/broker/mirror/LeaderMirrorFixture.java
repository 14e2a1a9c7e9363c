package io.syncmirror.broker.mirror;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.replica.ReplicaConfig;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertNotNull;

/**
 * A destination broker's one mirror topic partition for the mirror package's tests: a single-replica leader in
 * heap logs, mirror appends on, and its {@link MirrorPartition} in MIRRORING as the coordinator leaves it once the
 * source leader was looked up. ISR changes never complete; topic creation always does.
 */
final class LeaderMirrorFixture implements AutoCloseable
{
    static final int BROKER_ID = 1;
    static final String MIRROR = "m";
    static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAMQ");
    static final TopicPartition TP = new TopicPartition("orders", 0);

    final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    final ReplicaManager replicas;
    final Partition partition;
    final MirrorPartition mirror;

    LeaderMirrorFixture(final LongSupplier clockMs)
    {
        replicas = new ReplicaManager(new ReplicaConfig(BROKER_ID, 1, 10_000, ReplicaConfig.MAX_REPLICAS, 64, 16, 64),
            logs, (tp, topicId, leaderEpoch, partitionEpoch, isr) -> new CompletableFuture<>(),
            (topic, partitions, rf, config) -> CompletableFuture.completedFuture(null), clockMs);
        replicas.onPartitionChanged(new PartitionState(TP.topic(), TOPIC_ID, TP.partition(), List.of(BROKER_ID),
            List.of(BROKER_ID), BROKER_ID, 0, 0), Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR));
        partition = replicas.partitionOrNull(TP);
        assertNotNull(partition);
        partition.mirrorAppends(true);
        mirror = new MirrorPartition(MIRROR, partition,
            MirrorStateRecord.unknown(MIRROR, TOPIC_ID, TP.partition(), TP.topic()).moveTo(MirrorPartitionState.MIRRORING));
        mirror.leaderLookupNeeded = false;
    }

    @Override
    public void close()
    {
        replicas.close();
        logs.close();
    }
}

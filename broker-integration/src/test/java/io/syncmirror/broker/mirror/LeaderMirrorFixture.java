package io.syncmirror.broker.mirror;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.utils.Time;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.metadata.MetadataListener;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.replica.ReplicaConfig;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.broker.network.NodeClientConfig;
import io.syncmirror.broker.storage.MemoryLogStore;
import io.syncmirror.fetch.FetcherConfig;

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
        replicas = replicas(logs, clockMs);
        replicas.onPartitionChanged(new PartitionState(TP.topic(), TOPIC_ID, TP.partition(), List.of(BROKER_ID),
            List.of(BROKER_ID), BROKER_ID, 0, 0), Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR));
        partition = replicas.partitionOrNull(TP);
        assertNotNull(partition);
        partition.mirrorAppends(true);
        mirror = new MirrorPartition(MIRROR, partition,
            MirrorStateRecord.unknown(MIRROR, TOPIC_ID, TP.partition(), TP.topic()).moveTo(MirrorPartitionState.MIRRORING));
        mirror.leaderLookupNeeded = false;
    }

    /** Broker {@link #BROKER_ID}'s replicas in {@code logs}: ISR changes never complete, topic creation does. */
    static ReplicaManager replicas(final MemoryLogStore logs, final LongSupplier clockMs)
    {
        return new ReplicaManager(new ReplicaConfig(BROKER_ID, 1, 10_000, ReplicaConfig.MAX_REPLICAS, 64, 16, 64),
            logs, (tp, topicId, leaderEpoch, partitionEpoch, isr) -> new CompletableFuture<>(),
            (topic, partitions, rf, config) -> CompletableFuture.completedFuture(null), clockMs);
    }

    /** A coordinator's settings for unit tests: 50 ms ticks, 100 ms first retry, no demotion timeout. */
    static MirrorCoordinator.Config coordinatorConfig(final String clientId)
    {
        return new MirrorCoordinator.Config(50, 100, 1_000, 1_000, Long.MAX_VALUE,
            new FetcherConfig(-1, -1L, 0, 1, 1 << 20, 1 << 20, 100, 1_000L, ApiKeys.FETCH.latestVersion()),
            NodeClientConfig.defaults(clientId));
    }

    /**
     * A coordinator of {@code replicas} following {@code metadata}'s images, with no failover and no failback
     * lookups (either fails the test), and {@code sources} for the mirrors' source clusters.
     */
    static MirrorCoordinator coordinator(final ReplicaManager replicas,
        final io.syncmirror.broker.metadata.BrokerMetadataApplier metadata, final MirrorStateStore store,
        final java.util.function.Function<MirrorDefinition, SourceCluster> sources, final String clientId,
        final LongSupplier clockMs)
    {
        return new MirrorCoordinator(BROKER_ID, replicas, metadata::image, metadata::await, store,
            (topicId, epochs, floor) ->
            {
                throw new AssertionError("no failover here");
            },
            (source, leader, topic, topicId, p) -> java.util.Optional.empty(), sources, coordinatorConfig(clientId),
            clockMs);
    }

    /** A metadata listener for an applier that only builds images (the test drives the replicas itself). */
    static MetadataListener ignoringListener()
    {
        return MetadataListener.NONE;
    }

    @Override
    public void close()
    {
        replicas.close();
        logs.close();
    }
}

package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.metadata.BrokerMetadataApplier;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.replica.ReplicaConfig;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.broker.storage.MemoryLogStore;
import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A broker that becomes leader of many mirror partitions at once takes them over in steps of
 * {@link CoordinatedPartitions#MAX_LOADS_PER_WALK}, so that an operator's command queued meanwhile (the desired
 * type of an add's topics) waits one step, not the whole takeover.
 */
@Timeout(60)
class MirrorCoordinatorWalkTest
{
    private static final int BROKER_ID = 1;
    private static final String MIRROR = "m";
    private static final String TOPIC = "t";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final int PARTITIONS = 2 * CoordinatedPartitions.MAX_LOADS_PER_WALK + 500;

    private final AtomicLong nowMs = new AtomicLong(1_000L);
    private final MemoryMirrorStateStore store = new MemoryMirrorStateStore();
    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    /** As LeaderMirrorFixture's, with room for every partition of the test. */
    private final ReplicaManager replicas = new ReplicaManager(
        new ReplicaConfig(BROKER_ID, 1, 10_000, ReplicaConfig.MAX_REPLICAS, 4_096, 16, 64), logs,
        (tp, topicId, leaderEpoch, partitionEpoch, isr) -> new CompletableFuture<>(),
        (topic, partitions, rf, config) -> CompletableFuture.completedFuture(null), nowMs::get);
    private final BrokerMetadataApplier metadata = new BrokerMetadataApplier(BROKER_ID, 1,
        LeaderMirrorFixture.ignoringListener());
    private MirrorCoordinator coordinator;

    @AfterEach
    void tearDown()
    {
        if (coordinator != null)
        {
            coordinator.close();
        }
        replicas.close();
        logs.close();
    }

    private int coordinatedCount()
    {
        int count = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            count += coordinator.coordinated(new TopicPartition(TOPIC, p)) != null ? 1 : 0;
        }
        return count;
    }

    @Test
    @DisplayName("a takeover of 2,500 partitions goes 1,000 a tick, and a desired-type command queued meanwhile is "
        + "answered after one step, with every partition led here, loaded or not")
    void shouldTakeOverManyPartitionsInStepsAndRunCommandsBetween()
    {
        // A failed-over topic: its partitions stay STOPPED, so no step needs a source cluster.
        final Map<String, String> topicConfig =
            Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR + MirrorDefinition.REMOVED_SUFFIX);
        final List<MetadataRecord> records = new ArrayList<>(List.of(new MetadataRecord.Topic(TOPIC, TOPIC_ID)));
        final List<PartitionState> states = new ArrayList<>();
        for (int p = 0; p < PARTITIONS; p++)
        {
            final PartitionState led = new PartitionState(TOPIC, TOPIC_ID, p, List.of(BROKER_ID), List.of(BROKER_ID),
                BROKER_ID, 0, 0);
            states.add(led);
            records.add(new MetadataRecord.Partition(led));
            store.write(MirrorStateRecord.unknown(MIRROR, TOPIC_ID, p, TOPIC).moveTo(MirrorPartitionState.STOPPED));
        }
        topicConfig.forEach((key, value) -> records.add(new MetadataRecord.Config(TOPIC, key, value)));
        final MemoryRecords batch = MetadataRecordCodec.encodeBatch(0, 0, records);
        metadata.apply(batch, records.size());
        states.forEach(state -> replicas.onPartitionChanged(state, topicConfig));
        coordinator = LeaderMirrorFixture.coordinator(replicas, metadata, store, definition ->
        {
            throw new AssertionError("no source is needed");
        }, "mirror-coordinator-walk-test", nowMs::get);

        coordinator.tick();
        assertEquals(CoordinatedPartitions.MAX_LOADS_PER_WALK, coordinatedCount(), "the first step");

        final CompletableFuture<Set<Integer>> desired =
            coordinator.setDesiredMirrorType(MIRROR, TOPIC_ID, MirrorType.SYNC.id());
        coordinator.tick();
        assertTrue(desired.isDone(), "answered at the next tick, not after the whole takeover");
        assertEquals(PARTITIONS, desired.join().size(), "every partition led here took it, loaded or not");
        assertEquals(2 * CoordinatedPartitions.MAX_LOADS_PER_WALK, coordinatedCount(), "the second step");

        coordinator.tick();
        assertEquals(PARTITIONS, coordinatedCount(), "the rest");
        for (int p = 0; p < PARTITIONS; p++)
        {
            final MirrorPartition mirror = coordinator.coordinated(new TopicPartition(TOPIC, p));
            assertEquals(MirrorType.SYNC.id(), mirror.record.desiredMirrorType(), "partition " + p);
            assertEquals(MirrorType.SYNC.id(), store.read(MIRROR, TOPIC_ID, p).orElseThrow().desiredMirrorType(),
                "written for partition " + p);
        }
        coordinator.tick();
        assertFalse(coordinatedCount() > PARTITIONS);
    }

    @Test
    @DisplayName("a source that does not answer costs a tick one describe's wait, not one more per topic: the "
        + "partitions that needed their leader fail with why and retry")
    void shouldWaitOnceATickForASourceThatDoesNotAnswer() throws Exception
    {
        final int deadPort;
        try (java.net.ServerSocket socket =
            new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress()))
        {
            deadPort = socket.getLocalPort();
        }
        final Map<String, String> topicConfig = Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR);
        final List<MetadataRecord> records = new ArrayList<>(List.of(new MetadataRecord.Mirror(MIRROR,
            "127.0.0.1:" + deadPort, Map.of(), List.of(), List.of(), Map.of())));
        final List<PartitionState> states = new ArrayList<>();
        for (final String topic : List.of("a", "b", "c"))
        {
            final Uuid id = Uuid.randomUuid();
            records.add(new MetadataRecord.Topic(topic, id));
            for (int p = 0; p < 2; p++)
            {
                final PartitionState led = new PartitionState(topic, id, p, List.of(BROKER_ID), List.of(BROKER_ID),
                    BROKER_ID, 0, 0);
                states.add(led);
                records.add(new MetadataRecord.Partition(led));
            }
            topicConfig.forEach((key, value) -> records.add(new MetadataRecord.Config(topic, key, value)));
        }
        metadata.apply(MetadataRecordCodec.encodeBatch(0, 0, records), records.size());
        states.forEach(state -> replicas.onPartitionChanged(state, topicConfig));
        final List<SourceCluster> opened = new ArrayList<>();
        coordinator = LeaderMirrorFixture.coordinator(replicas, metadata, store, definition ->
        {
            final SourceCluster source = new SourceCluster(definition, "walk-test", 1_000);
            opened.add(source);
            return source;
        }, "mirror-coordinator-walk-test", nowMs::get);

        coordinator.tick();
        assertEquals(1, opened.size());
        assertEquals(1, opened.get(0).describeRequests(), "the describe ahead of the three topics, and no other");
        for (final PartitionState state : states)
        {
            final MirrorPartition mirror = coordinator.coordinated(state.topicPartition());
            assertEquals(MirrorPartitionState.FAILED, mirror.state(), state.topicPartition().toString());
            assertTrue(mirror.lastErrorMessage.contains("did not answer"), mirror.lastErrorMessage);
        }
    }
}

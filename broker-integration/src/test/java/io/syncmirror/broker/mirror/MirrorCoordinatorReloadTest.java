package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.metadata.BrokerMetadataApplier;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.broker.storage.MemoryLogStore;
import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A partition let go and led again by the same coordinator while its last state write is still on its way: the
 * store holds only committed writes, so loading it at once would start from an older state than this broker's own
 * (and drop, say, an operator's desired type). The load waits for the write.
 */
@Timeout(30)
class MirrorCoordinatorReloadTest
{
    private static final int BROKER_ID = 1;
    private static final String MIRROR = "m";
    private static final String TOPIC = "t";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();

    /** Commits synchronous writes at once and holds every write sent without waiting until the test lets it go. */
    private static final class HeldWritesStore implements MirrorStateStore
    {
        final MemoryMirrorStateStore committed = new MemoryMirrorStateStore();
        final List<MirrorStateRecord> heldRecords = new ArrayList<>();
        final List<CompletableFuture<Void>> heldWrites = new ArrayList<>();

        @Override
        public void write(final MirrorStateRecord record)
        {
            committed.write(record);
        }

        @Override
        public CompletableFuture<Void> writeAsync(final MirrorStateRecord record)
        {
            final CompletableFuture<Void> write = new CompletableFuture<>();
            heldRecords.add(record);
            heldWrites.add(write);
            return write;
        }

        void commitHeld()
        {
            heldRecords.forEach(committed::write);
            heldRecords.clear();
            heldWrites.forEach(write -> write.complete(null));
            heldWrites.clear();
        }

        void failHeld()
        {
            heldRecords.clear();
            heldWrites.forEach(write -> write.completeExceptionally(new KafkaException("writing failed")));
            heldWrites.clear();
        }

        @Override
        public void writeRaw(final byte[] key, final byte[] value)
        {
            committed.writeRaw(key, value);
        }

        @Override
        public Optional<byte[]> readRaw(final byte[] key)
        {
            return committed.readRaw(key);
        }

        @Override
        public Optional<MirrorStateRecord> read(final String mirrorName, final Uuid topicId, final int partition)
        {
            return committed.read(mirrorName, topicId, partition);
        }

        @Override
        public List<MirrorStateRecord> readAll()
        {
            return committed.readAll();
        }

        @Override
        public Optional<MirrorStateRecord> readAnyMirror(final Uuid topicId, final int partition)
        {
            return committed.readAnyMirror(topicId, partition);
        }

        @Override
        public void close()
        {
        }
    }

    private final AtomicLong nowMs = new AtomicLong(1_000L);
    private final HeldWritesStore store = new HeldWritesStore();
    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = LeaderMirrorFixture.replicas(logs, nowMs::get);
    private final BrokerMetadataApplier metadata = new BrokerMetadataApplier(BROKER_ID, 1,
        LeaderMirrorFixture.ignoringListener());
    /** A failed-over topic: its partition stays STOPPED, so no step needs a source cluster. */
    private final Map<String, String> topicConfig =
        Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR + MirrorDefinition.REMOVED_SUFFIX);
    private MirrorCoordinator coordinator;
    private int leaderEpoch;

    @BeforeEach
    void setUp()
    {
        coordinator = LeaderMirrorFixture.coordinator(replicas, metadata, store, definition ->
        {
            throw new AssertionError("no source is needed");
        }, "mirror-coordinator-reload-test", nowMs::get);
        final PartitionState led = new PartitionState(TOPIC, TOPIC_ID, 0, List.of(BROKER_ID, 2),
            List.of(BROKER_ID, 2), BROKER_ID, 0, 0);
        final List<MetadataRecord> records = new ArrayList<>(List.of(new MetadataRecord.Topic(TOPIC, TOPIC_ID),
            new MetadataRecord.Partition(led)));
        topicConfig.forEach((key, value) -> records.add(new MetadataRecord.Config(TOPIC, key, value)));
        final MemoryRecords batch = MetadataRecordCodec.encodeBatch(0, 0, records);
        metadata.apply(batch, records.size());
        store.write(MirrorStateRecord.unknown(MIRROR, TOPIC_ID, 0, TOPIC).moveTo(MirrorPartitionState.STOPPED));
        lead(BROKER_ID);
        coordinator.tick();
        assertEquals(MirrorType.ASYNC.id(), coordinator.desiredMirrorType(TOPIC_ID), "coordinated from the store");
    }

    @AfterEach
    void tearDown()
    {
        coordinator.close();
        replicas.close();
        logs.close();
    }

    private void lead(final int leader)
    {
        replicas.onPartitionChanged(new PartitionState(TOPIC, TOPIC_ID, 0, List.of(BROKER_ID, 2),
            List.of(BROKER_ID, 2), leader, leaderEpoch++, 0), topicConfig);
    }

    /** Desired SYNC sent but held; the partition is let go and led here again. */
    private void desireSyncThenLeadAgain()
    {
        coordinator.setDesiredMirrorType(MIRROR, TOPIC_ID, MirrorType.SYNC.id());
        coordinator.tick();
        assertEquals(MirrorType.SYNC.id(), coordinator.desiredMirrorType(TOPIC_ID), "in force at once");
        assertEquals(1, store.heldWrites.size(), "its write is on its way");
        lead(2);
        coordinator.tick();
        assertEquals(-1, coordinator.desiredMirrorType(TOPIC_ID), "let go while another broker leads it");
        lead(BROKER_ID);
        coordinator.tick();
    }

    @Test
    @DisplayName("a partition led again while its own state write is on its way is loaded once that write is "
        + "committed, with what it wrote")
    void shouldLoadAPartitionLedAgainOnlyAfterItsWriteInFlightIsCommitted()
    {
        desireSyncThenLeadAgain();
        assertEquals(-1, coordinator.desiredMirrorType(TOPIC_ID), "not loaded over its own write in flight");
        store.commitHeld();
        coordinator.tick();
        assertEquals(MirrorType.SYNC.id(), coordinator.desiredMirrorType(TOPIC_ID),
            "loaded from the store with the committed write");
    }

    @Test
    @DisplayName("when that write fails, the partition is loaded with the desired type it had in force")
    void shouldKeepTheDesiredTypeWhenTheWriteInFlightFails()
    {
        desireSyncThenLeadAgain();
        store.failHeld();
        coordinator.tick();
        assertEquals(MirrorType.SYNC.id(), coordinator.desiredMirrorType(TOPIC_ID));
    }
}

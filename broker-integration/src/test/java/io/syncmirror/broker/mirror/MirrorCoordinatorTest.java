package io.syncmirror.broker.mirror;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.replica.ReplicaConfig;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The coordinator's FAILED handling, with an injected clock and an in-memory state store. */
@Timeout(30)
class MirrorCoordinatorTest
{
    private static final int BROKER_ID = 1;
    private static final String MIRROR = "m";
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final AtomicLong nowMs = new AtomicLong(1_000L);
    private final MemoryMirrorStateStore store = new MemoryMirrorStateStore();
    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = new ReplicaManager(
        new ReplicaConfig(BROKER_ID, 1, 10_000, ReplicaConfig.MAX_REPLICAS, 64, 16, 64), logs,
        (partition, topicId, leaderEpoch, partitionEpoch, isr) -> new CompletableFuture<>(),
        (topic, partitions, rf, config) -> CompletableFuture.completedFuture(null), nowMs::get);
    private MirrorCoordinator coordinator;
    private Partition partition;

    @BeforeEach
    void setUp()
    {
        final MirrorCoordinator.Config config = LeaderMirrorFixture.coordinatorConfig("mirror-coordinator-test");
        coordinator = new MirrorCoordinator(BROKER_ID, replicas, () -> MetadataImage.EMPTY,
            condition -> CompletableFuture.completedFuture(MetadataImage.EMPTY), store,
            (topicId, epochs, floor) ->
            {
                throw new AssertionError("no failover here");
            },
            (source, leader, topic, topicId, p) -> Optional.empty(),
            definition ->
            {
                throw new AssertionError("no mirror is defined");
            },
            config, nowMs::get);
        replicas.onPartitionChanged(new PartitionState(TP.topic(), TOPIC_ID, TP.partition(), List.of(BROKER_ID),
            List.of(BROKER_ID), BROKER_ID, 0, 0), Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR));
        partition = replicas.partitionOrNull(TP);
        assertNotNull(partition);
    }

    @AfterEach
    void tearDown()
    {
        coordinator.close();
        replicas.close();
        logs.close();
    }

    /** A MIRRORING partition its fetcher runs. */
    private MirrorPartition fetching()
    {
        final MirrorPartition mirror = new MirrorPartition(MIRROR, partition,
            MirrorStateRecord.unknown(MIRROR, TOPIC_ID, TP.partition(), TP.topic())
                .moveTo(MirrorPartitionState.MIRRORING));
        mirror.fetching = true;
        return mirror;
    }

    /** A fetching partition whose fetcher hit an error that stops mirroring (tiered storage). */
    private MirrorPartition fetchingWithTieredStorageError()
    {
        final MirrorPartition mirror = fetching();
        mirror.error(Errors.OFFSET_MOVED_TO_TIERED_STORAGE, "the source moved offset 0 to tiered storage");
        mirror.fatalError = Errors.OFFSET_MOVED_TO_TIERED_STORAGE;
        return mirror;
    }

    @Test
    @DisplayName("AM-16 AM-06 a fetch error that stops mirroring (tiered storage) moves the partition to FAILED with "
        + "its error, persisted, and it is retried with exponential backoff")
    void shouldFailWithTheFetchErrorAndRetryWithBackoff()
    {
        final MirrorPartition mirror = fetchingWithTieredStorageError();

        coordinator.stepOrFail(mirror, true, MetadataImage.EMPTY);
        MirrorStateRecord record = mirror.record;
        assertEquals(MirrorPartitionState.FAILED, record.state());
        assertEquals(MirrorPartitionState.MIRRORING, record.previousState());
        assertEquals(Errors.OFFSET_MOVED_TO_TIERED_STORAGE.code(), record.errorCode());
        assertTrue(record.errorMessage().contains("tiered storage"), record.errorMessage());
        assertEquals(1, record.retryAttempt());
        assertEquals(record, store.read(MIRROR, TOPIC_ID, TP.partition()).orElseThrow(), "persisted");
        assertEquals(nowMs.get() + 100, mirror.retryAtMs);

        // Not before its retry time.
        nowMs.addAndGet(99);
        coordinator.stepOrFail(mirror, true, MetadataImage.EMPTY);
        assertEquals(1, mirror.record.retryAttempt());

        // Retried: PREPARING again, which fails here (no mirror defined); the backoff doubles.
        nowMs.addAndGet(1);
        coordinator.stepOrFail(mirror, true, MetadataImage.EMPTY);
        record = mirror.record;
        assertEquals(MirrorPartitionState.FAILED, record.state());
        assertEquals(MirrorPartitionState.PREPARING, record.previousState());
        assertEquals(2, record.retryAttempt());
        assertTrue(record.errorMessage().contains("'" + MIRROR + "' is not defined"), record.errorMessage());
        assertEquals(nowMs.get() + 200, mirror.retryAtMs);
    }

    @Test
    @DisplayName("a state write sent without waiting holds its partition until it is committed, and one that fails "
        + "moves the partition to FAILED with its error")
    void shouldActOnAStateOnlyOnceItsWriteIsCommitted()
    {
        final MirrorPartition mirror = fetchingWithTieredStorageError();
        final CompletableFuture<Void> committed = new CompletableFuture<>();
        mirror.pendingWrite = committed;

        coordinator.stepOrFail(mirror, true, MetadataImage.EMPTY);
        assertEquals(MirrorPartitionState.MIRRORING, mirror.record.state(), "nothing acts on an uncommitted state");

        committed.complete(null);
        coordinator.stepOrFail(mirror, true, MetadataImage.EMPTY);
        assertEquals(MirrorPartitionState.FAILED, mirror.record.state(), "committed: the fatal error is acted on");

        final MirrorPartition other = fetching();
        other.pendingWrite = CompletableFuture.failedFuture(
            new org.apache.kafka.common.errors.TimeoutException("writing __mirror_state timed out"));
        coordinator.stepOrFail(other, true, MetadataImage.EMPTY);
        assertEquals(MirrorPartitionState.FAILED, other.record.state());
        assertEquals(Errors.REQUEST_TIMED_OUT.code(), other.record.errorCode());
        assertEquals(MirrorPartitionState.MIRRORING, other.record.previousState());
    }
}

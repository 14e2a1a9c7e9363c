package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
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
import io.syncmirror.broker.mirror.sync.RejectReason;
import io.syncmirror.broker.mirror.sync.RemotePartition;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.broker.storage.MemoryLogStore;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The destination coordinator's sync control path (promotion, rejections and their backoff, topic-wide demote,
 * demotion's Unregister, failover) against a fake controller, other brokers and source, with an injected clock.
 * Topic {@code t} has partitions 0 and 1 led here and partition 2 led by broker 2.
 */
@Timeout(30)
class MirrorCoordinatorSyncTest
{
    private static final int BROKER_ID = 1;
    private static final String MIRROR = "m";
    private static final String TOPIC = "t";
    private static final Uuid TOPIC_ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAABQ");
    private static final long DEMOTE_TIMEOUT_MS = 5_000L;

    /** The links, recording every call in order. */
    private final class FakeChannel implements MirrorCoordinator.SyncChannel
    {
        final List<String> events = new ArrayList<>();
        final List<RegisterMirrorSyncTopicRequestData> registers = new ArrayList<>();
        Function<RegisterMirrorSyncTopicRequestData.TopicState, Short> registerAnswer = t -> Errors.NONE.code();
        boolean unregisterFails;
        boolean commitFails;
        Map<Integer, RemotePartition> remote = new HashMap<>(Map.of(2,
            new RemotePartition(MirrorPartitionState.MIRRORING, 0L, -1L)));

        @Override
        public void commitMirrorType(final Uuid topicId, final byte mirrorType, final long driverEpoch)
        {
            events.add("commit " + MirrorType.fromId(mirrorType));
            if (commitFails)
            {
                throw Errors.NOT_CONTROLLER.exception("the controller moved");
            }
            append(new MetadataRecord.MirrorTopicTypeChange(topicId, mirrorType));
        }

        @Override
        public Map<Uuid, Map<Integer, RemotePartition>> remotePartitions(final String mirrorName)
        {
            return Map.of(TOPIC_ID, remote);
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T extends ApiMessage> T sendToSource(final SourceCluster source, final ApiMessage request,
            final Class<T> type) throws IOException
        {
            if (request instanceof RegisterMirrorSyncTopicRequestData register)
            {
                registers.add(register);
                final RegisterMirrorSyncTopicRequestData.TopicState topic = register.topics().get(0);
                events.add("register recovery=" + topic.recoveryPromotion());
                return (T)new RegisterMirrorSyncTopicResponseData().setTopics(List.of(
                    new RegisterMirrorSyncTopicResponseData.TopicResult().setTopicName(topic.topicName())
                        .setErrorCode(registerAnswer.apply(topic))));
            }
            final UnregisterMirrorSyncTopicRequestData unregister = (UnregisterMirrorSyncTopicRequestData)request;
            events.add("unregister " + unregister.topics().get(0).topicName());
            if (unregisterFails)
            {
                throw new IOException("the source is unreachable");
            }
            return (T)new UnregisterMirrorSyncTopicResponseData();
        }
    }

    private final AtomicLong nowMs = new AtomicLong(1_000_000L);
    private final MemoryMirrorStateStore store = new MemoryMirrorStateStore();
    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = LeaderMirrorFixture.replicas(logs, nowMs::get);
    private final BrokerMetadataApplier metadata = new BrokerMetadataApplier(BROKER_ID, 1,
        LeaderMirrorFixture.ignoringListener());
    private final FakeChannel channel = new FakeChannel();
    private final List<String> bumps = new ArrayList<>();
    private long nextOffset;
    private MirrorCoordinator coordinator;
    private MirrorPartition p0;
    private MirrorPartition p1;

    private void append(final MetadataRecord... records)
    {
        final MemoryRecords batch = MetadataRecordCodec.encodeBatch(nextOffset, 0, List.of(records));
        nextOffset += records.length;
        metadata.apply(batch, nextOffset);
    }

    @BeforeEach
    void setUp()
    {
        final MirrorCoordinator.Config config = LeaderMirrorFixture.coordinatorConfig("mirror-coordinator-sync-test");
        coordinator = new MirrorCoordinator(BROKER_ID, replicas, metadata::image, metadata::await, store,
            (topicId, epochs, floor) ->
            {
                bumps.add("bump");
                channel.events.add("bump");
                throw new IOException("no controller in this test");
            },
            (source, leader, topic, topicId, p) -> Optional.empty(),
            definition -> new SourceCluster(definition, "sync-test", 1_000), config, nowMs::get);
        coordinator.configureSync((short)1, DEMOTE_TIMEOUT_MS);
        coordinator.syncChannel(channel, Runnable::run); // answered at once, within the step
        append(new MetadataRecord.RegisterBroker(BROKER_ID, 0, TOPIC_ID, "127.0.0.1", 1, null),
            new MetadataRecord.UnfenceBroker(BROKER_ID, 0),
            new MetadataRecord.Mirror(MIRROR, "127.0.0.1:1", Map.of(), List.of(), List.of()),
            new MetadataRecord.Topic(TOPIC, TOPIC_ID),
            new MetadataRecord.Config(TOPIC, MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR));
        for (int p = 0; p < 3; p++)
        {
            final int leader = p < 2 ? BROKER_ID : 2;
            append(new MetadataRecord.Partition(new PartitionState(TOPIC, TOPIC_ID, p, List.of(leader),
                List.of(leader), leader, 0, 0)));
        }
        p0 = coordinated(0);
        p1 = coordinated(1);
        coordinator.refreshSources(metadata.image());
    }

    private MirrorPartition coordinated(final int index)
    {
        final TopicPartition tp = new TopicPartition(TOPIC, index);
        replicas.onPartitionChanged(new PartitionState(TOPIC, TOPIC_ID, index, List.of(BROKER_ID), List.of(BROKER_ID),
            BROKER_ID, 0, 0), Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR));
        final Partition partition = replicas.partitionOrNull(tp);
        final MirrorPartition mirror = new MirrorPartition(MIRROR, partition, MirrorStateRecord.unknown(MIRROR,
            TOPIC_ID, index, TOPIC).moveTo(MirrorPartitionState.MIRRORING));
        mirror.sourceHighWatermark = 0L; // caught up: the log is empty and so is the source
        coordinator.coordinate(mirror);
        return mirror;
    }

    @AfterEach
    void tearDown()
    {
        coordinator.close();
        replicas.close();
        logs.close();
    }

    private void tick()
    {
        coordinator.runCommands();
        coordinator.syncTick(metadata.image());
    }

    private byte effective()
    {
        return metadata.image().syncState(TOPIC_ID).mirrorType();
    }

    private void desire(final MirrorType type) throws Exception
    {
        final CompletableFuture<Set<Integer>> applied = coordinator.setDesiredMirrorType(MIRROR, TOPIC_ID, type.id());
        coordinator.runCommands();
        assertEquals(Set.of(0, 1), applied.get(1, TimeUnit.SECONDS));
    }

    private void promoteToSync() throws Exception
    {
        desire(MirrorType.SYNC);
        tick();
        assertEquals(MirrorType.SYNC.id(), effective());
        tick();
        channel.events.clear();
    }

    @Test
    @DisplayName("SU-05 SU-01 desired SYNC waits while any partition lags (here or on another broker), then the "
        + "partitions report, the source is asked, and effective SYNC is committed after its admission")
    void shouldPromoteOnlyOnceEveryPartitionHasCaughtUp() throws Exception
    {
        p1.sourceHighWatermark = 7L; // lag 7
        desire(MirrorType.SYNC);
        assertEquals(MirrorType.SYNC.id(), store.read(MIRROR, TOPIC_ID, 0).orElseThrow().desiredMirrorType());
        assertEquals(MirrorType.SYNC.id(), store.read(MIRROR, TOPIC_ID, 1).orElseThrow().desiredMirrorType());
        tick();
        assertEquals(List.of(), channel.events, "no Register while partition 1 lags");
        assertFalse(p0.syncReporting);

        p1.sourceHighWatermark = 0L;
        channel.remote.put(2, new RemotePartition(MirrorPartitionState.MIRRORING, 3L, -1L));
        tick();
        assertEquals(List.of(), channel.events, "no Register while partition 2 (led by broker 2) lags");

        channel.remote.put(2, new RemotePartition(MirrorPartitionState.MIRRORING, 0L, -1L));
        channel.registerAnswer = t ->
        {
            assertTrue(p0.syncReporting && p1.syncReporting, "reports start before the source gates");
            return Errors.NONE.code();
        };
        tick();
        assertEquals(List.of("register recovery=false", "commit SYNC"), channel.events);
        assertEquals(MirrorType.SYNC.id(), effective());
        assertTrue(p0.syncReporting && p1.syncReporting);
        tick();
        assertEquals(2, channel.events.size(), "no second Register once SYNC");
    }

    @Test
    @DisplayName("SU-10 SI-12 a refused Register (MIRROR_SYNC_VERSION_MISMATCH) leaves the topic ASYNC and not "
        + "reporting, counts VERSION_MISMATCH, persists RetryAttempt, and the next attempts back off exponentially "
        + "up to the maximum")
    void shouldBackOffRefusedRegisters() throws Exception
    {
        channel.registerAnswer = t -> MirrorError.MIRROR_SYNC_VERSION_MISMATCH.code();
        desire(MirrorType.SYNC);
        tick();
        assertEquals(1, channel.registers.size());
        assertEquals(MirrorType.ASYNC.id(), effective());
        assertFalse(p0.syncReporting || p1.syncReporting);
        assertEquals(1, coordinator.syncRegistrationsRejected(RejectReason.VERSION_MISMATCH));
        assertEquals(1, store.read(MIRROR, TOPIC_ID, 0).orElseThrow().retryAttempt());

        // Backoff 100, 200, 400, 800, then capped at 1000 ms.
        final long[] expectedWaitsMs = {100, 200, 400, 800, 1_000, 1_000};
        for (int i = 0; i < expectedWaitsMs.length; i++)
        {
            nowMs.addAndGet(expectedWaitsMs[i] - 1);
            tick();
            assertEquals(i + 1, channel.registers.size(), "attempt " + (i + 2) + " came early");
            nowMs.incrementAndGet();
            tick();
            assertEquals(i + 2, channel.registers.size(), "attempt " + (i + 2) + " is due");
        }
        assertEquals(expectedWaitsMs.length + 1, store.read(MIRROR, TOPIC_ID, 0).orElseThrow().retryAttempt());

        channel.registerAnswer = t -> Errors.NONE.code();
        nowMs.addAndGet(1_000);
        tick();
        assertEquals(MirrorType.SYNC.id(), effective());
        assertEquals(0, store.read(MIRROR, TOPIC_ID, 0).orElseThrow().retryAttempt(), "reset once admitted");
    }

    @Test
    @DisplayName("SU-12 SI-13 a Register refused on the source's Released marker sets the recovery hint (counted "
        + "RELEASED_FRESH_PROMOTION_REQUIRED), keeps the partitions MIRRORING, and the next Register is a recovery "
        + "promotion that clears the hint")
    void shouldRecoverAfterTheReleasedMarker() throws Exception
    {
        channel.registerAnswer = t -> t.recoveryPromotion() ? Errors.NONE.code() :
            MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code();
        desire(MirrorType.SYNC);
        tick();
        assertEquals(MirrorType.ASYNC.id(), effective());
        assertTrue(coordinator.recoveryPending(TOPIC_ID));
        assertEquals(1, coordinator.syncRegistrationsRejected(
            RejectReason.RELEASED_FRESH_PROMOTION_REQUIRED));
        assertEquals(MirrorPartitionState.MIRRORING, p0.state());
        assertEquals(MirrorType.SYNC.id(), coordinator.desiredMirrorType(TOPIC_ID));

        nowMs.addAndGet(100);
        tick();
        assertTrue(channel.registers.get(1).topics().get(0).recoveryPromotion());
        assertEquals(MirrorType.SYNC.id(), effective());
        assertFalse(coordinator.recoveryPending(TOPIC_ID));
    }

    @Test
    @DisplayName("SU-12 SI-21 the topic is demoted only when every partition (also those led elsewhere) has failed "
        + "its sync reports for the demote timeout; it keeps desired SYNC, sets the recovery hint, and recovers "
        + "through a recovery Register")
    void shouldDemoteOnlyWhenEveryPartitionFails() throws Exception
    {
        promoteToSync();
        final long startMs = nowMs.get();
        p0.syncFailingSinceMs = startMs;
        nowMs.addAndGet(DEMOTE_TIMEOUT_MS + 1);
        tick();
        assertEquals(MirrorType.SYNC.id(), effective(), "partition 1 reports fine: one stale leader never demotes");

        p1.syncFailingSinceMs = startMs;
        channel.remote.put(2, new RemotePartition(MirrorPartitionState.MIRRORING, 0L, 1_000L));
        tick();
        assertEquals(MirrorType.SYNC.id(), effective(), "partition 2 has failed for 1 s only");

        channel.remote.put(2, new RemotePartition(MirrorPartitionState.MIRRORING, 0L,
            DEMOTE_TIMEOUT_MS));
        p1.syncFailingSinceMs = nowMs.get() - DEMOTE_TIMEOUT_MS + 1;
        tick();
        assertEquals(MirrorType.SYNC.id(), effective(), "partition 1 is 1 ms short of the timeout");

        p1.syncFailingSinceMs = startMs;
        tick();
        assertEquals(MirrorType.ASYNC.id(), effective());
        assertEquals(MirrorType.SYNC.id(), coordinator.desiredMirrorType(TOPIC_ID));
        assertTrue(coordinator.recoveryPending(TOPIC_ID));
        assertEquals(1, coordinator.syncRegistrationsRejected(RejectReason.ALL_PARTITIONS_FAILING));
        assertEquals(MirrorPartitionState.MIRRORING, p0.state());

        // Reports end with the source's acknowledged Unregister; then the recovery promotion follows.
        p0.syncFailingSinceMs = -1L;
        p1.syncFailingSinceMs = -1L;
        channel.events.clear();
        tick();
        assertEquals("unregister " + TOPIC, channel.events.get(0));
        assertFalse(p0.syncReporting);
        nowMs.addAndGet(1_000);
        tick();
        assertTrue(channel.registers.get(channel.registers.size() - 1).topics().get(0).recoveryPromotion());
        assertEquals(MirrorType.SYNC.id(), effective());
    }

    @Test
    @DisplayName("SU-05 demotion: once the topic is ASYNC its partitions keep reporting until the source "
        + "acknowledges the Unregister (hazard 6), retried with backoff")
    void shouldReportUntilTheUnregisterIsAcknowledged() throws Exception
    {
        promoteToSync();
        desire(MirrorType.ASYNC);
        tick(); // the driver commits ASYNC (the API's commit, had it failed)
        assertEquals(MirrorType.ASYNC.id(), effective());
        channel.unregisterFails = true;
        channel.events.clear();
        tick();
        assertEquals(List.of("unregister " + TOPIC), channel.events);
        assertTrue(p0.syncReporting && p1.syncReporting, "still reporting: the source may still gate on them");
        tick();
        assertEquals(1, channel.events.size(), "the next Unregister waits for its backoff");
        channel.unregisterFails = false;
        nowMs.addAndGet(100);
        tick();
        assertEquals(2, channel.events.size());
        assertFalse(p0.syncReporting || p1.syncReporting);
        tick();
        assertEquals(2, channel.events.size(), "desired ASYNC: no Register");
    }

    @Test
    @DisplayName("SU-05 SI-01 demotion on a broker that does not drive the topic: no Unregister from it (a late one "
        + "could undo a re-promotion's Register); it reports until the source refuses its partitions' reports")
    void shouldLeaveTheUnregisterToTheDriver() throws Exception
    {
        promoteToSync();
        // Partition 0 (and with it the topic's driving) is led by another broker from now on.
        coordinator.uncoordinate(new TopicPartition(TOPIC, 0));
        tick();
        assertTrue(p1.syncReporting);
        append(new MetadataRecord.MirrorTopicTypeChange(TOPIC_ID, MirrorType.ASYNC.id())); // the driver demoted
        channel.events.clear();
        tick();
        tick();
        assertEquals(List.of(), channel.events, "only the driver unregisters");
        assertTrue(p1.syncReporting, "still reporting: the source may still gate on it");

        // Promoted again before the source refused anything: reports go on, and nothing from here undoes it.
        append(new MetadataRecord.MirrorTopicTypeChange(TOPIC_ID, MirrorType.SYNC.id()));
        tick();
        append(new MetadataRecord.MirrorTopicTypeChange(TOPIC_ID, MirrorType.ASYNC.id()));
        tick();
        assertTrue(p1.syncReporting);

        // A refusal of another kind (the registration still on its way) keeps the reports going.
        p1.syncFailureCode = MirrorError.MIRROR_REGISTRATION_PROPAGATING.code();
        p1.syncFailingSinceMs = nowMs.get();
        tick();
        assertTrue(p1.syncReporting);

        // The driver's Unregister went through: the source answers INVALID_SYNC_REGISTRATION, and reports stop.
        p1.syncFailureCode = MirrorError.INVALID_SYNC_REGISTRATION.code();
        tick();
        assertFalse(p1.syncReporting);
        tick();
        assertFalse(p1.syncReporting);
        assertEquals(List.of(), channel.events, "no Unregister and no Register from a broker that does not drive");
    }

    @Test
    @DisplayName("SU-01 an admitted Register whose SYNC commit fails is undone: a numbered ASYNC commit first (the "
        + "SYNC one may still land), then the Unregister; while the controller cannot be reached, nothing is undone "
        + "and the partitions keep reporting")
    void shouldUnregisterWhenTheCommitFails() throws Exception
    {
        channel.commitFails = true;
        desire(MirrorType.SYNC);
        tick();
        assertEquals(List.of("register recovery=false", "commit SYNC"), channel.events);
        assertEquals(MirrorType.ASYNC.id(), effective());
        tick();
        assertEquals(List.of("register recovery=false", "commit SYNC", "commit ASYNC"), channel.events,
            "no Unregister before an ASYNC commit got through");
        assertTrue(p0.syncReporting, "the source still gates on it");
        channel.commitFails = false;
        nowMs.addAndGet(100);
        tick();
        assertEquals(List.of("commit ASYNC", "unregister " + TOPIC, "register recovery=false"),
            channel.events.subList(3, 6), "undone in order; then, its backoff over, promoted again");
    }

    @Test
    @DisplayName("SU-06 STOPPING of a SYNC topic unregisters first, before anything else of the failover, goes on "
        + "when the Unregister fails, clears the effective and desired types and stops reporting")
    void shouldUnregisterFirstOnStop() throws Exception
    {
        promoteToSync();
        channel.unregisterFails = true;
        append(new MetadataRecord.Config(TOPIC, MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR + ".removed"));
        coordinator.stepOrFail(p0, false, metadata.image());
        assertEquals(List.of("unregister " + TOPIC, "commit ASYNC", "bump"), channel.events,
            "Unregister first; the failover went on after it failed");
        assertEquals(MirrorType.ASYNC.id(), effective());
        assertEquals(MirrorType.ASYNC.id(), p0.record.desiredMirrorType());
        assertFalse(p0.syncReporting);

        channel.events.clear();
        coordinator.stepOrFail(p1, false, metadata.image());
        assertEquals(List.of("bump"), channel.events, "one Unregister per topic and broker");
        assertFalse(p1.syncReporting);
    }

    @Test
    @DisplayName("SU-05 an ASYNC topic's failover sends no Unregister")
    void shouldNotUnregisterAnAsyncTopicOnStop()
    {
        append(new MetadataRecord.Config(TOPIC, MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR + ".removed"));
        coordinator.stepOrFail(p0, false, metadata.image());
        assertEquals(List.of("bump"), channel.events);
    }
}

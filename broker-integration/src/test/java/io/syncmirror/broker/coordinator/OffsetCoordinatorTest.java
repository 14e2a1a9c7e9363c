package io.syncmirror.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class OffsetCoordinatorTest
{
    private static final int OFFSETS_PARTITIONS = 4;
    private static final String GROUP = "group-1";
    private static final TopicPartition TP0 = new TopicPartition("data", 0);
    private static final TopicPartition TP1 = new TopicPartition("data", 1);
    private static final long PID = 4242L;

    private final ManualTime time = new ManualTime();
    private final FakeReplicaAccess replicas = new FakeReplicaAccess();
    private final FakeMetadataView metadata = new FakeMetadataView();
    private final CoordinatorConfig config = new CoordinatorConfig(0, 4, (short) 3, 2, 900_000, 1_000L,
        604_800_000L, 3_600_000L, OFFSETS_PARTITIONS, (short) 3, 16, 5_000L, 100L);
    private OffsetCoordinator offsets;
    private TxnMarkerWriter markers;

    @BeforeEach
    void setUp()
    {
        metadata.addBroker(0);
        metadata.addTopic("data", 0, 0);
        metadata.addTopicLedBy(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, OFFSETS_PARTITIONS, 0);
        markers = new TxnMarkerWriter(replicas, time, 5_000L);
        offsets = start();
    }

    private OffsetCoordinator start()
    {
        replicas.clearListeners();
        final OffsetCoordinator started = new OffsetCoordinator(config, replicas, metadata, Runnable::run, time);
        started.startup();
        markers.setListener(started);
        for (int p = 0; p < OFFSETS_PARTITIONS; p++)
        {
            replicas.becomeLeader(new TopicPartition(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, p), 3);
        }
        return started;
    }

    private OffsetCoordinator move()
    {
        for (int p = 0; p < OFFSETS_PARTITIONS; p++)
        {
            replicas.resign(new TopicPartition(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, p));
        }
        return start();
    }

    private static Map<TopicPartition, OffsetCoordinator.CommittedOffset> offsetsOf(final TopicPartition tp,
        final long offset)
    {
        final Map<TopicPartition, OffsetCoordinator.CommittedOffset> map = new LinkedHashMap<>();
        map.put(tp, new OffsetCoordinator.CommittedOffset(offset, 5, "m", -1L));
        return map;
    }

    private Map<TopicPartition, Errors> commit(final OffsetCoordinator to, final TopicPartition tp, final long offset)
        throws Exception
    {
        return to.commitOffsets(GROUP, "", -1, null, offsetsOf(tp, offset), true).get();
    }

    private Map<TopicPartition, Errors> commitInTxn(final OffsetCoordinator to, final long producerId,
        final TopicPartition tp, final long offset) throws Exception
    {
        return to.commitTransactionalOffsets(GROUP, producerId, (short) 0, "", -1, null, offsetsOf(tp, offset), true)
            .get();
    }

    private WriteTxnMarkersResponseData writeMarker(final long producerId, final boolean commit) throws Exception
    {
        final WriteTxnMarkersRequestData request = new WriteTxnMarkersRequestData();
        final WriteTxnMarkersRequestData.WritableTxnMarker marker = new WriteTxnMarkersRequestData.WritableTxnMarker()
            .setProducerId(producerId).setProducerEpoch((short) 0).setTransactionResult(commit).setCoordinatorEpoch(1);
        marker.topics().add(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
            .setName(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC)
            .setPartitionIndexes(List.of(offsets.partitionFor(GROUP).partition())));
        request.markers().add(marker);
        return markers.write(request).get();
    }

    private OffsetCoordinator.FetchedOffset fetch(final OffsetCoordinator from, final TopicPartition tp,
        final boolean requireStable)
    {
        final OffsetCoordinator.GroupOffsets fetched = from.fetchOffsets(GROUP, List.of(tp), requireStable);
        assertEquals(Errors.NONE, fetched.error());
        return fetched.offsets().get(tp);
    }

    @Test
    void shouldCommitAndFetchOffsetsOfASimpleConsumer() throws Exception
    {
        assertEquals(Map.of(TP0, Errors.NONE), commit(offsets, TP0, 42));
        assertEquals(new OffsetCoordinator.FetchedOffset(42, 5, "m", Errors.NONE), fetch(offsets, TP0, false));
        assertEquals(new OffsetCoordinator.FetchedOffset(-1, -1, "", Errors.NONE), fetch(offsets, TP1, false));
        assertEquals(Map.of(TP0, new OffsetCoordinator.FetchedOffset(42, 5, "m", Errors.NONE)),
            offsets.fetchOffsets(GROUP, null, false).offsets(), "all committed partitions");
    }

    @Test
    void shouldReloadCommittedOffsetsAfterTheCoordinatorMoves() throws Exception
    {
        commit(offsets, TP0, 42);
        commit(offsets, TP0, 50);
        commit(offsets, TP1, 7);
        final OffsetCoordinator moved = move();
        assertEquals(Errors.NOT_COORDINATOR, offsets.coordinatorError(GROUP));
        assertEquals(50, fetch(moved, TP0, false).offset());
        assertEquals(7, fetch(moved, TP1, false).offset());
    }

    @Test
    void shouldShowTransactionalOffsetsOnlyAfterTheCommitMarker() throws Exception
    {
        assertEquals(Map.of(TP0, Errors.NONE), commitInTxn(offsets, PID, TP0, 7));
        assertEquals(-1, fetch(offsets, TP0, false).offset());
        assertEquals(Errors.UNSTABLE_OFFSET_COMMIT, fetch(offsets, TP0, true).error());

        final WriteTxnMarkersResponseData written = writeMarker(PID, true);
        assertEquals(Errors.NONE.code(), written.markers().get(0).topics().get(0).partitions().get(0).errorCode());
        assertEquals(7, fetch(offsets, TP0, true).offset());
    }

    @Test
    void shouldDropTransactionalOffsetsOnAbort() throws Exception
    {
        commit(offsets, TP0, 3);
        commitInTxn(offsets, PID, TP0, 7);
        writeMarker(PID, false);
        assertEquals(new OffsetCoordinator.FetchedOffset(3, 5, "m", Errors.NONE), fetch(offsets, TP0, true));
    }

    @Test
    void shouldRestoreCommittedAndPendingTransactionalOffsetsOnReload() throws Exception
    {
        commitInTxn(offsets, PID, TP0, 7);
        writeMarker(PID, true);
        commitInTxn(offsets, PID + 1, TP1, 9);

        final OffsetCoordinator moved = move();
        assertEquals(7, fetch(moved, TP0, true).offset());
        assertEquals(Errors.UNSTABLE_OFFSET_COMMIT, fetch(moved, TP1, true).error());
        writeMarker(PID + 1, true);
        assertEquals(9, fetch(moved, TP1, true).offset());
    }

    @Test
    void shouldLetALaterPlainCommitWinOverAnEarlierTransactionalOne() throws Exception
    {
        commitInTxn(offsets, PID, TP0, 7);
        commit(offsets, TP0, 9);
        writeMarker(PID, true);
        assertEquals(9, fetch(offsets, TP0, false).offset());
    }

    @Test
    void shouldNumberTransactionalBatchesInSequenceAcrossAReload() throws Exception
    {
        commitInTxn(offsets, PID, TP0, 1);
        commitInTxn(offsets, PID, TP1, 2);
        final OffsetCoordinator moved = move();
        commitInTxn(moved, PID, TP0, 3);
        final List<Integer> sequences = new ArrayList<>();
        for (final RecordBatch batch : replicas.log(offsets.partitionFor(GROUP)).batches())
        {
            sequences.add(batch.baseSequence());
        }
        assertEquals(List.of(0, 1, 2), sequences);
    }

    @Test
    void shouldAnswerMembersOfGroupsWithoutMembershipAsKafkaDoes() throws Exception
    {
        final Map<TopicPartition, OffsetCoordinator.CommittedOffset> one = offsetsOf(TP0, 1);
        assertEquals(Errors.GROUP_ID_NOT_FOUND, offsets.commitOffsets(GROUP, "member-1", 3, null, one, true).get().get(TP0));
        assertEquals(Errors.ILLEGAL_GENERATION, offsets.commitOffsets(GROUP, "member-1", 3, null, one, false).get().get(TP0));
        assertEquals(Errors.NONE, offsets.commitOffsets(GROUP, "member-1", -1, null, one, true).get().get(TP0));
        assertEquals(Errors.UNKNOWN_MEMBER_ID, offsets.commitOffsets(GROUP, "member-1", 3, null, one, true).get().get(TP0));
        assertEquals(Errors.INVALID_GROUP_ID, offsets.commitOffsets("", "", -1, null, one, true).get().get(TP0));
    }

    @Test
    void shouldRejectOnlyThePartitionWithTooLargeMetadata() throws Exception
    {
        final Map<TopicPartition, OffsetCoordinator.CommittedOffset> map = new LinkedHashMap<>();
        map.put(TP0, new OffsetCoordinator.CommittedOffset(1, -1, "x".repeat(17), -1L));
        map.put(TP1, new OffsetCoordinator.CommittedOffset(2, -1, "ok", -1L));
        final Map<TopicPartition, Errors> errors = offsets.commitOffsets(GROUP, "", -1, null, map, true).get();
        assertEquals(Errors.OFFSET_METADATA_TOO_LARGE, errors.get(TP0));
        assertEquals(Errors.NONE, errors.get(TP1));
        assertEquals(2, fetch(offsets, TP1, false).offset());
    }

    @Test
    void shouldMapAFailedAppendToACoordinatorError() throws Exception
    {
        replicas.refuseAppends(offsets.partitionFor(GROUP), true);
        assertEquals(Errors.NOT_COORDINATOR, commit(offsets, TP0, 1).get(TP0));
        assertFalse(offsets.committed(GROUP, TP0).isPresent());
    }

    @Test
    void shouldListGroupsWithCommittedOrPendingOffsetsAlsoAfterAReload() throws Exception
    {
        commit(offsets, TP0, 7);
        assertEquals(Map.of(TP1, Errors.NONE), offsets.commitTransactionalOffsets("txn-group", PID, (short) 0, "", -1,
            null, offsetsOf(TP1, 3), true).get());
        final OffsetCoordinator.GroupListing listed = offsets.listGroups();
        assertEquals(Errors.NONE, listed.error());
        assertEquals(List.of(GROUP, "txn-group"), listed.groupIds());
        assertEquals(new OffsetCoordinator.GroupExistence(Errors.NONE, true), offsets.groupExists(GROUP));
        assertEquals(new OffsetCoordinator.GroupExistence(Errors.NONE, true), offsets.groupExists("txn-group"));
        assertEquals(new OffsetCoordinator.GroupExistence(Errors.NONE, false), offsets.groupExists("never"));
        assertEquals(Errors.INVALID_GROUP_ID, offsets.groupExists("").error());

        offsets = move();
        assertEquals(List.of(GROUP, "txn-group"), offsets.listGroups().groupIds());
    }

    @Test
    void shouldNotListAGroupWhoseOffsetsPartitionMovedAway() throws Exception
    {
        commit(offsets, TP0, 7);
        replicas.resign(offsets.partitionFor(GROUP));
        final OffsetCoordinator.GroupListing listed = offsets.listGroups();
        assertEquals(Errors.NONE, listed.error());
        assertEquals(List.of(), listed.groupIds());
        assertEquals(Errors.NOT_COORDINATOR, offsets.groupExists(GROUP).error());
    }

    @Test
    void shouldAskForARetryWhileAnOffsetsPartitionLoadsAndListTheLoadedOnes() throws Exception
    {
        commit(offsets, TP0, 7);
        replicas.clearListeners();
        final List<Runnable> loads = new ArrayList<>();
        final OffsetCoordinator loading = new OffsetCoordinator(config, replicas, metadata, loads::add, time);
        loading.startup();
        final TopicPartition groupPartition = offsets.partitionFor(GROUP);
        replicas.becomeLeader(groupPartition, 4);
        loads.remove(0).run();
        final TopicPartition other = new TopicPartition(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC,
            (groupPartition.partition() + 1) % OFFSETS_PARTITIONS);
        replicas.becomeLeader(other, 4);

        final OffsetCoordinator.GroupListing whileLoading = loading.listGroups();
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS, whileLoading.error());
        assertEquals(List.of(GROUP), whileLoading.groupIds());

        loads.remove(0).run();
        assertEquals(new OffsetCoordinator.GroupListing(Errors.NONE, List.of(GROUP)), loading.listGroups());
    }
}

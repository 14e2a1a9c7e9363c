package io.syncmirror.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executor;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AllocateProducerIdsResponse;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class TransactionCoordinatorTest
{
    private static final int TXN_PARTITIONS = 4;
    private static final long EXPIRATION_MS = 7L * 24 * 3600 * 1000;
    private static final String TXN_ID = "txn-a";
    private static final TopicPartition DATA_LOCAL = new TopicPartition("data", 0);
    private static final TopicPartition DATA_REMOTE = new TopicPartition("data", 1);

    private final ManualTime time = new ManualTime();
    private final FakeReplicaAccess replicas = new FakeReplicaAccess();
    private final FakeMetadataView metadata = new FakeMetadataView();
    private final FakeNodeClient controller = new FakeNodeClient();
    private final FakeNodeClient broker0 = new FakeNodeClient();
    private final FakeNodeClient broker1 = new FakeNodeClient();
    private TransactionCoordinator coordinator;
    private ProducerIdManager producerIds;
    private TopicPartition txnPartition;
    private final java.util.concurrent.atomic.AtomicLong producerIdFloor = new java.util.concurrent.atomic.AtomicLong(-1L);

    private static CoordinatorConfig config(final int brokerId)
    {
        return new CoordinatorConfig(brokerId, TXN_PARTITIONS, (short) 3, 2, 900_000, 1_000L, EXPIRATION_MS,
            3_600_000L, 4, (short) 3, 4096, 5_000L, 100L);
    }

    @BeforeEach
    void setUp() throws Exception
    {
        metadata.addBroker(0);
        metadata.addBroker(1);
        metadata.addTopic("data", 0, 1);
        metadata.addTopicLedBy(CoordinatorConfig.TRANSACTION_STATE_TOPIC, TXN_PARTITIONS, 0);
        producerIds = new ProducerIdManager(0, () -> 1L, () -> controller, time, 100L, producerIdFloor::get);
        // Prime the first block so that InitProducerId does not wait on the controller.
        final var first = producerIds.generateProducerId();
        controller.take().response().complete(new AllocateProducerIdsResponse(new AllocateProducerIdsResponseData()
            .setProducerIdStart(1000).setProducerIdLen(1000)));
        first.get();
        coordinator = newCoordinator(0, Runnable::run);
        txnPartition = coordinator.partitionFor(TXN_ID);
        for (int p = 0; p < TXN_PARTITIONS; p++)
        {
            replicas.becomeLeader(new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC, p), 5);
        }
    }

    private TransactionCoordinator newCoordinator(final int brokerId, final Executor loadExecutor)
    {
        final CoordinatorConfig config = config(brokerId);
        final TransactionCoordinator created = new TransactionCoordinator(config, replicas, metadata, producerIds,
            id -> id == 0 ? broker0 : broker1, new TxnMarkerWriter(replicas, time, 5_000L), loadExecutor, time);
        created.startup();
        return created;
    }

    private TransactionState state(final TransactionCoordinator of, final String transactionalId)
    {
        return of.transactionState(transactionalId).orElseThrow().state();
    }

    private static List<EndTransactionMarker> markers(final FakeReplicaAccess.FakeLog log)
    {
        final List<EndTransactionMarker> found = new ArrayList<>();
        for (final RecordBatch batch : log.batches())
        {
            if (batch.isControlBatch())
            {
                found.add(EndTransactionMarker.deserialize(batch.iterator().next()));
            }
        }
        return found;
    }

    private static List<TransactionState> loggedStates(final FakeReplicaAccess.FakeLog log)
    {
        final List<TransactionState> states = new ArrayList<>();
        for (final RecordBatch batch : log.batches())
        {
            for (final Record record : batch)
            {
                states.add(TransactionLogRecord.decodeValue(record.value()).state());
            }
        }
        return states;
    }

    private static void answer(final FakeNodeClient.Sent sent, final Errors error)
    {
        final WriteTxnMarkersRequest request = (WriteTxnMarkersRequest) sent.request();
        final WriteTxnMarkersRequestData.WritableTxnMarker marker = request.data().markers().get(0);
        final Map<TopicPartition, Errors> errors = new java.util.HashMap<>();
        for (final WriteTxnMarkersRequestData.WritableTxnMarkerTopic topic : marker.topics())
        {
            for (final int index : topic.partitionIndexes())
            {
                errors.put(new TopicPartition(topic.name(), index), error);
            }
        }
        sent.response().complete(new WriteTxnMarkersResponse(Map.of(marker.producerId(), errors)));
    }

    @Test
    void shouldCommitAndCompleteOnlyAfterMarkersReachEveryPartitionLeader() throws Exception
    {
        final TransactionCoordinator.InitProducerIdResult init = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get();
        assertEquals(Errors.NONE, init.error());
        assertEquals(0, init.producerEpoch());
        final long pid = init.producerId();

        assertEquals(Errors.NONE, coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL, DATA_REMOTE)).get());
        assertEquals(TransactionState.ONGOING, state(coordinator, TXN_ID));
        assertEquals(Set.of(DATA_LOCAL, DATA_REMOTE), coordinator.transactionState(TXN_ID).orElseThrow().partitions());

        assertEquals(Errors.NONE, coordinator.endTransaction(TXN_ID, pid, (short) 0, true).get());
        assertEquals(TransactionState.PREPARE_COMMIT, state(coordinator, TXN_ID), "the remote marker is not written yet");
        assertEquals(List.of(new EndTransactionMarker(ControlRecordType.COMMIT, 5)), markers(replicas.log(DATA_LOCAL)));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS,
            coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL)).get());
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, coordinator.endTransaction(TXN_ID, pid, (short) 0, true).get());
        assertEquals(Errors.INVALID_TXN_STATE, coordinator.endTransaction(TXN_ID, pid, (short) 0, false).get());

        final FakeNodeClient.Sent sent = broker1.take();
        final WriteTxnMarkersRequestData.WritableTxnMarker marker =
            ((WriteTxnMarkersRequest) sent.request()).data().markers().get(0);
        assertEquals(pid, marker.producerId());
        assertEquals(0, marker.producerEpoch());
        assertTrue(marker.transactionResult());
        assertEquals(5, marker.coordinatorEpoch());
        assertEquals("data", marker.topics().get(0).name());
        assertEquals(List.of(1), marker.topics().get(0).partitionIndexes());
        answer(sent, Errors.NONE);

        assertEquals(TransactionState.COMPLETE_COMMIT, state(coordinator, TXN_ID));
        assertTrue(coordinator.transactionState(TXN_ID).orElseThrow().partitions().isEmpty());
        assertEquals(Errors.NONE, coordinator.endTransaction(TXN_ID, pid, (short) 0, true).get(), "a retried commit");
        assertEquals(List.of(TransactionState.EMPTY, TransactionState.ONGOING, TransactionState.PREPARE_COMMIT,
            TransactionState.COMPLETE_COMMIT), loggedStates(replicas.log(txnPartition)));
    }

    @Test
    void shouldAbortAndRetryMarkersAfterBackoffUntilWritten() throws Exception
    {
        final long pid = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().producerId();
        coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_REMOTE)).get();
        assertEquals(Errors.NONE, coordinator.endTransaction(TXN_ID, pid, (short) 0, false).get());

        answer(broker1.take(), Errors.NOT_LEADER_OR_FOLLOWER);
        assertEquals(TransactionState.PREPARE_ABORT, state(coordinator, TXN_ID));
        coordinator.poll();
        assertEquals(0, broker1.pending(), "no resend inside the backoff");

        time.advance(100);
        coordinator.poll();
        broker1.take().response().completeExceptionally(new DisconnectException("connection lost"));
        assertEquals(TransactionState.PREPARE_ABORT, state(coordinator, TXN_ID));

        time.advance(100);
        coordinator.poll();
        final FakeNodeClient.Sent third = broker1.take();
        assertEquals(false, ((WriteTxnMarkersRequest) third.request()).data().markers().get(0).transactionResult());
        answer(third, Errors.NONE);
        assertEquals(TransactionState.COMPLETE_ABORT, state(coordinator, TXN_ID));
    }

    @Test
    void shouldGiveATransactionalIdWhoseProducerIdFellBelowTheFloorAFreshIdAboveIt() throws Exception
    {
        final TransactionCoordinator.InitProducerIdResult first =
            coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get();
        assertEquals(Errors.NONE, first.error());
        // A mirror failover raised the floor above this id (a mirrored producer may have used it).
        producerIdFloor.set(first.producerId() + 500);
        final TransactionCoordinator.InitProducerIdResult again =
            coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get();
        assertEquals(Errors.NONE, again.error());
        assertTrue(again.producerId() >= producerIdFloor.get(), "fresh id " + again.producerId());
        assertEquals(0, again.producerEpoch());
        // Without a floor change the id stays and only the epoch moves.
        final TransactionCoordinator.InitProducerIdResult third =
            coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get();
        assertEquals(again.producerId(), third.producerId());
        assertEquals(1, third.producerEpoch());
    }

    @Test
    void shouldFenceTheOldProducerOnASecondInitProducerId() throws Exception
    {
        final TransactionCoordinator.InitProducerIdResult first = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get();
        final TransactionCoordinator.InitProducerIdResult second = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get();
        assertEquals(first.producerId(), second.producerId());
        assertEquals(1, second.producerEpoch());

        assertEquals(Errors.PRODUCER_FENCED,
            coordinator.addPartitions(TXN_ID, first.producerId(), (short) 0, List.of(DATA_LOCAL)).get());
        assertEquals(Errors.PRODUCER_FENCED, coordinator.endTransaction(TXN_ID, first.producerId(), (short) 0, true).get());
        assertEquals(Errors.INVALID_PRODUCER_ID_MAPPING,
            coordinator.addPartitions(TXN_ID, first.producerId() + 1, (short) 1, List.of(DATA_LOCAL)).get());
        assertEquals(Errors.NONE,
            coordinator.addPartitions(TXN_ID, second.producerId(), (short) 1, List.of(DATA_LOCAL)).get());
    }

    @Test
    void shouldResumeWithExpectedEpochAndTreatARepeatAsRetry() throws Exception
    {
        final long pid = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().producerId();
        final TransactionCoordinator.InitProducerIdResult bumped = coordinator.initProducerId(TXN_ID, 60_000, pid, (short) 0).get();
        assertEquals(Errors.NONE, bumped.error());
        assertEquals(1, bumped.producerEpoch());
        final TransactionCoordinator.InitProducerIdResult retried = coordinator.initProducerId(TXN_ID, 60_000, pid, (short) 0).get();
        assertEquals(Errors.NONE, retried.error());
        assertEquals(1, retried.producerEpoch(), "a retry of the same bump answers the same epoch");
        assertEquals(Errors.PRODUCER_FENCED, coordinator.initProducerId(TXN_ID, 60_000, pid + 7, (short) 0).get().error());
    }

    @Test
    void shouldAbortTheOngoingTransactionWhenTheProducerReinitializes() throws Exception
    {
        final long pid = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().producerId();
        coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL)).get();

        assertEquals(Errors.CONCURRENT_TRANSACTIONS, coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().error());
        assertEquals(List.of(new EndTransactionMarker(ControlRecordType.ABORT, 5)), markers(replicas.log(DATA_LOCAL)));
        assertEquals(1, replicas.log(DATA_LOCAL).batches().get(0).producerEpoch(), "the abort marker fences epoch 0");
        assertEquals(TransactionState.COMPLETE_ABORT, state(coordinator, TXN_ID));

        final TransactionCoordinator.InitProducerIdResult again = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get();
        assertEquals(Errors.NONE, again.error());
        assertEquals(2, again.producerEpoch());
        assertEquals(Errors.PRODUCER_FENCED, coordinator.endTransaction(TXN_ID, pid, (short) 0, true).get());
    }

    @Test
    void shouldAbortATransactionPastItsTimeoutAndFenceItsProducer() throws Exception
    {
        final long pid = coordinator.initProducerId(TXN_ID, 5_000, -1, (short) -1).get().producerId();
        coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL)).get();
        time.advance(4_999);
        coordinator.poll();
        assertEquals(TransactionState.ONGOING, state(coordinator, TXN_ID));

        time.advance(1_001);
        coordinator.poll();
        assertEquals(TransactionState.COMPLETE_ABORT, state(coordinator, TXN_ID));
        assertEquals(List.of(new EndTransactionMarker(ControlRecordType.ABORT, 5)), markers(replicas.log(DATA_LOCAL)));
        assertEquals(1, coordinator.transactionState(TXN_ID).orElseThrow().producerEpoch());
        assertEquals(Errors.PRODUCER_FENCED, coordinator.endTransaction(TXN_ID, pid, (short) 0, true).get());
    }

    @Test
    void shouldReloadStateAndResumeMarkersAfterTheCoordinatorMoves() throws Exception
    {
        final long pid = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().producerId();
        coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL, DATA_REMOTE)).get();
        coordinator.endTransaction(TXN_ID, pid, (short) 0, true).get();
        final FakeNodeClient.Sent unanswered = broker1.take();
        final String other = "txn-b";
        final long otherPid = coordinator.initProducerId(other, 60_000, -1, (short) -1).get().producerId();

        // Broker 1 takes over every transaction log partition at a higher epoch.
        for (int p = 0; p < TXN_PARTITIONS; p++)
        {
            replicas.resign(new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC, p));
        }
        replicas.clearListeners();
        final TransactionCoordinator moved = newCoordinator(1, Runnable::run);
        assertEquals(Errors.NOT_COORDINATOR, coordinator.coordinatorError(TXN_ID));
        for (int p = 0; p < TXN_PARTITIONS; p++)
        {
            replicas.becomeLeader(new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC, p), 6);
        }

        // The old coordinator's late answer changes nothing.
        answer(unanswered, Errors.NONE);
        assertEquals(TransactionState.PREPARE_COMMIT, state(moved, TXN_ID));
        // Now local to broker 1: written directly, carrying the new coordinator epoch.
        assertEquals(List.of(new EndTransactionMarker(ControlRecordType.COMMIT, 6)), markers(replicas.log(DATA_REMOTE)));
        final FakeNodeClient.Sent resent = broker0.take();
        assertEquals(6, ((WriteTxnMarkersRequest) resent.request()).data().markers().get(0).coordinatorEpoch());
        answer(resent, Errors.NONE);
        assertEquals(TransactionState.COMPLETE_COMMIT, state(moved, TXN_ID));

        final TransactionCoordinator.InitProducerIdResult reinit = moved.initProducerId(other, 60_000, -1, (short) -1).get();
        assertEquals(otherPid, reinit.producerId());
        assertEquals(1, reinit.producerEpoch());
    }

    @Test
    void shouldAnswerNotCoordinatorAndLoadInProgressWhereKafkaDoes() throws Exception
    {
        replicas.clearListeners();
        final ArrayDeque<Runnable> loads = new ArrayDeque<>();
        final TransactionCoordinator loading = newCoordinator(0, loads::add);
        assertEquals(Errors.NOT_COORDINATOR, loading.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().error());
        replicas.becomeLeader(txnPartition, 7);
        assertEquals(Errors.COORDINATOR_LOAD_IN_PROGRESS,
            loading.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().error());
        loads.poll().run();
        assertEquals(Errors.NONE, loading.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().error());
    }

    @Test
    void shouldAllocateANewProducerIdWhenTheEpochIsExhausted() throws Exception
    {
        final TransactionLogRecord exhausted = new TransactionLogRecord(77L, (short) (Short.MAX_VALUE - 1), 60_000,
            TransactionState.COMPLETE_COMMIT, Set.of(), 0L, 0L);
        replicas.log(txnPartition).appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord(0L, TransactionLogRecord.encodeKey(TXN_ID), exhausted.encodeValue())), 0);
        replicas.resign(txnPartition);
        replicas.becomeLeader(txnPartition, 6);

        final TransactionCoordinator.InitProducerIdResult init = coordinator.initProducerId(TXN_ID, 60_000, 77L,
            (short) (Short.MAX_VALUE - 1)).get();
        assertEquals(Errors.NONE, init.error());
        assertTrue(init.producerId() != 77L);
        assertEquals(0, init.producerEpoch());
        final TransactionCoordinator.InitProducerIdResult retry = coordinator.initProducerId(TXN_ID, 60_000, 77L,
            (short) (Short.MAX_VALUE - 1)).get();
        assertEquals(init.producerId(), retry.producerId(), "a retry after the rotation gets the new id");
    }

    @Test
    void shouldRejectBadTimeoutsAndServeIdempotentProducersWithoutState() throws Exception
    {
        assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT, coordinator.initProducerId(TXN_ID, 0, -1, (short) -1).get().error());
        assertEquals(Errors.INVALID_TRANSACTION_TIMEOUT,
            coordinator.initProducerId(TXN_ID, 900_001, -1, (short) -1).get().error());
        final TransactionCoordinator.InitProducerIdResult idempotent = coordinator.initProducerId(null, 0, -1, (short) -1).get();
        assertEquals(Errors.NONE, idempotent.error());
        assertEquals(0, idempotent.producerEpoch());
        assertEquals(Errors.INVALID_REQUEST, coordinator.initProducerId("", 1000, -1, (short) -1).get().error());
    }

    @Test
    void shouldMapLostLeadershipOfTheLogToNotCoordinatorAndKeepTheOldState() throws Exception
    {
        final long pid = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().producerId();
        replicas.refuseAppends(txnPartition, true);
        assertEquals(Errors.NOT_COORDINATOR, coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL)).get());
        assertEquals(TransactionState.EMPTY, state(coordinator, TXN_ID));
        replicas.refuseAppends(txnPartition, false);
        assertEquals(Errors.NONE, coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL)).get());
    }

    @Test
    void shouldAnswerConcurrentTransactionsWhileATransitionIsBeingWritten() throws Exception
    {
        final long pid = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().producerId();
        replicas.hold(true);
        final var adding = coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL));
        assertEquals(Errors.CONCURRENT_TRANSACTIONS, coordinator.endTransaction(TXN_ID, pid, (short) 0, true).get());
        replicas.hold(false);
        replicas.release();
        assertEquals(Errors.NONE, adding.get());
    }

    @Test
    void shouldAnswerNotCoordinatorWhenLeadershipChangedWhileTheWriteWasInFlight() throws Exception
    {
        final long pid = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().producerId();
        replicas.hold(true);
        final var adding = coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL));
        replicas.hold(false);
        replicas.resign(txnPartition);
        replicas.becomeLeader(txnPartition, 9);
        replicas.release();
        assertEquals(Errors.NOT_COORDINATOR, adding.get());
        assertEquals(TransactionState.ONGOING, state(coordinator, TXN_ID), "the reloaded state holds the write");
    }

    @Test
    void shouldRemoveAnIdleTransactionalIdWithATombstoneThatSurvivesReload() throws Exception
    {
        final long pid = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get().producerId();
        coordinator.addPartitions(TXN_ID, pid, (short) 0, List.of(DATA_LOCAL)).get();
        coordinator.endTransaction(TXN_ID, pid, (short) 0, true).get();
        coordinator.poll();
        time.advance(EXPIRATION_MS - 1);
        coordinator.poll();
        assertTrue(coordinator.transactionState(TXN_ID).isPresent(), "an open or recent id stays");

        time.advance(3_600_000L);
        coordinator.poll();
        assertTrue(coordinator.transactionState(TXN_ID).isEmpty());
        replicas.resign(txnPartition);
        replicas.becomeLeader(txnPartition, 6);
        assertTrue(coordinator.transactionState(TXN_ID).isEmpty(), "the tombstone removes it on reload too");
        final TransactionCoordinator.InitProducerIdResult fresh = coordinator.initProducerId(TXN_ID, 60_000, -1, (short) -1).get();
        assertEquals(Errors.NONE, fresh.error());
        assertEquals(0, fresh.producerEpoch());
        assertTrue(fresh.producerId() != pid, "a new producer id after expiration");
    }
}

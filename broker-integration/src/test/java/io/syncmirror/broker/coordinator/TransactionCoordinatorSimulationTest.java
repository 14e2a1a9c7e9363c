package io.syncmirror.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AllocateProducerIdsResponse;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Timeout;

/**
 * Seeded random runs of producers against the transaction coordinator while it moves between two brokers, markers
 * get lost or refused and transactions time out. A failing seed reproduces.
 */
@Timeout(30)
class TransactionCoordinatorSimulationTest
{
    private static final List<String> IDS = List.of("t0", "t1", "t2");
    private static final List<TopicPartition> DATA = List.of(new TopicPartition("data", 0),
        new TopicPartition("data", 1));

    private final ManualTime time = new ManualTime();
    private final FakeReplicaAccess replicas = new FakeReplicaAccess();
    private final FakeMetadataView metadata = new FakeMetadataView();
    /** clients[b] is the client other brokers use to reach broker b. */
    private final FakeNodeClient[] clients = {new FakeNodeClient(), new FakeNodeClient()};
    private final TxnMarkerWriter[] writers = {new TxnMarkerWriter(replicas, time, 1_000L),
        new TxnMarkerWriter(replicas, time, 1_000L)};
    private ProducerIdManager producerIds;
    private TransactionCoordinator coordinator;
    private int coordinatorEpoch = 1;

    /** What a producer of one transactional id believes. */
    private static final class Producer
    {
        long producerId = -1;
        short epoch = -1;
        final Set<TopicPartition> added = new HashSet<>();
    }

    private record Committed(long producerId, short epoch, Set<TopicPartition> partitions)
    {
    }

    private void moveTo(final int brokerId)
    {
        for (int p = 0; p < 2; p++)
        {
            replicas.resign(new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC, p));
        }
        replicas.clearListeners();
        final CoordinatorConfig config = new CoordinatorConfig(brokerId, 2, (short) 2, 1, 900_000, 1_000L,
            604_800_000L, 3_600_000L, 2, (short) 2, 4096, 1_000L, 100L);
        coordinator = new TransactionCoordinator(config, replicas, metadata, producerIds, id -> clients[id],
            writers[brokerId], Runnable::run, time);
        coordinator.startup();
        coordinatorEpoch++;
        for (int p = 0; p < 2; p++)
        {
            replicas.becomeLeader(new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC, p), coordinatorEpoch);
        }
    }

    /** Answers the oldest marker request to broker {@code target}: written, refused, or lost. */
    private void answerOne(final int target, final int fate)
    {
        final FakeNodeClient.Sent sent = clients[target].take();
        if (fate == 0)
        {
            sent.response().completeExceptionally(new DisconnectException("lost"));
            return;
        }
        if (fate == 1)
        {
            final WriteTxnMarkersRequest request = (WriteTxnMarkersRequest) sent.request();
            final Map<TopicPartition, Errors> refused = new HashMap<>();
            request.data().markers().get(0).topics().forEach(t -> t.partitionIndexes()
                .forEach(i -> refused.put(new TopicPartition(t.name(), i), Errors.NOT_LEADER_OR_FOLLOWER)));
            sent.response().complete(new WriteTxnMarkersResponse(Map.of(
                request.data().markers().get(0).producerId(), refused)));
            return;
        }
        final CompletableFuture<WriteTxnMarkersResponseData> written =
            writers[target].write(((WriteTxnMarkersRequest) sent.request()).data());
        sent.response().complete(new WriteTxnMarkersResponse(written.join()));
    }

    @ParameterizedTest
    @ValueSource(longs = {1L, 2L, 3L, 42L, 1234L, 99_991L})
    void shouldKeepMarkersConsistentWithEveryAnsweredDecision(final long seed) throws Exception
    {
        final Random random = new Random(seed);
        metadata.addBroker(0);
        metadata.addBroker(1);
        metadata.addTopic("data", 0, 1);
        metadata.addTopicLedBy(CoordinatorConfig.TRANSACTION_STATE_TOPIC, 2, 0);
        final FakeNodeClient controller = new FakeNodeClient();
        producerIds = new ProducerIdManager(0, () -> 1L, () -> controller, time, 100L);
        final CompletableFuture<Long> first = producerIds.generateProducerId();
        controller.take().response().complete(new AllocateProducerIdsResponse(new AllocateProducerIdsResponseData()
            .setProducerIdStart(0).setProducerIdLen(1_000_000)));
        first.get();
        int owner = 0;
        moveTo(owner);

        final Map<String, Producer> producers = new HashMap<>();
        IDS.forEach(id -> producers.put(id, new Producer()));
        final Map<Long, Short> highestEpochByProducerId = new HashMap<>();
        final List<Committed> committed = new ArrayList<>();

        for (int step = 0; step < 400; step++)
        {
            final String id = IDS.get(random.nextInt(IDS.size()));
            final Producer producer = producers.get(id);
            final int op = random.nextInt(100);
            if (op < 15)
            {
                final CompletableFuture<TransactionCoordinator.InitProducerIdResult> init =
                    coordinator.initProducerId(id, 5_000, -1, (short) -1);
                assertTrue(init.isDone(), "seed " + seed);
                final TransactionCoordinator.InitProducerIdResult result = init.get();
                if (result.error() == Errors.NONE)
                {
                    final Short seen = highestEpochByProducerId.get(result.producerId());
                    assertTrue(seen == null || result.producerEpoch() > seen, "epochs only grow, seed " + seed + " step " + step);
                    highestEpochByProducerId.put(result.producerId(), result.producerEpoch());
                    producer.producerId = result.producerId();
                    producer.epoch = result.producerEpoch();
                    producer.added.clear();
                }
            }
            else if (op < 40 && producer.producerId >= 0)
            {
                final TopicPartition tp = DATA.get(random.nextInt(DATA.size()));
                if (coordinator.addPartitions(id, producer.producerId, producer.epoch, List.of(tp)).get() == Errors.NONE)
                {
                    producer.added.add(tp);
                }
            }
            else if (op < 55 && producer.producerId >= 0)
            {
                final boolean commit = random.nextBoolean();
                final Errors error = coordinator.endTransaction(id, producer.producerId, producer.epoch, commit).get();
                if (error == Errors.NONE && commit && !producer.added.isEmpty())
                {
                    committed.add(new Committed(producer.producerId, producer.epoch, Set.copyOf(producer.added)));
                }
                if (error == Errors.NONE)
                {
                    producer.added.clear();
                }
            }
            else if (op < 80)
            {
                final int target = random.nextInt(2);
                if (clients[target].pending() > 0)
                {
                    answerOne(target, random.nextInt(4));
                }
            }
            else if (op < 97)
            {
                time.advance(random.nextInt(3_000));
                coordinator.poll();
            }
            else
            {
                owner = 1 - owner;
                moveTo(owner);
            }
        }

        // Quiesce: every marker request succeeds from now on.
        for (int round = 0; round < 100; round++)
        {
            for (int target = 0; target < 2; target++)
            {
                while (clients[target].pending() > 0)
                {
                    answerOne(target, 2);
                }
            }
            time.advance(1_000);
            coordinator.poll();
        }

        for (final String id : IDS)
        {
            coordinator.transactionState(id).ifPresent(state ->
                assertFalse(state.state().isPrepare() || state.state() == TransactionState.ONGOING,
                    id + " settles, seed " + seed));
        }
        for (final Committed decision : committed)
        {
            for (final TopicPartition tp : decision.partitions())
            {
                assertTrue(hasMarker(tp, decision.producerId(), decision.epoch(), ControlRecordType.COMMIT),
                    "commit marker of " + decision + " in " + tp + ", seed " + seed);
            }
        }
        // Markers follow the decisions logged in __transaction_state exactly, in order (repeats collapsed).
        final Map<String, List<ControlRecordType>> decided = new HashMap<>();
        for (int p = 0; p < 2; p++)
        {
            for (final RecordBatch batch : replicas.log(new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC, p))
                .batches())
            {
                for (final Record record : batch)
                {
                    final TransactionLogRecord logged = TransactionLogRecord.decodeValue(record.value());
                    if (logged.state().isPrepare())
                    {
                        for (final TopicPartition tp : logged.partitions())
                        {
                            appendCollapsed(decided.computeIfAbsent(tp + "/" + logged.producerId() + "/"
                                + logged.producerEpoch(), k -> new ArrayList<>()),
                                logged.state() == TransactionState.PREPARE_COMMIT
                                    ? ControlRecordType.COMMIT : ControlRecordType.ABORT);
                        }
                    }
                }
            }
        }
        final Map<String, List<ControlRecordType>> written = new HashMap<>();
        for (final TopicPartition tp : DATA)
        {
            for (final RecordBatch batch : replicas.log(tp).batches())
            {
                appendCollapsed(written.computeIfAbsent(tp + "/" + batch.producerId() + "/" + batch.producerEpoch(),
                    k -> new ArrayList<>()), EndTransactionMarker.deserialize(batch.iterator().next()).controlType());
            }
        }
        assertEquals(decided, written, "seed " + seed);
        assertEquals(0, clients[0].pending() + clients[1].pending());
    }

    private static void appendCollapsed(final List<ControlRecordType> sequence, final ControlRecordType type)
    {
        if (sequence.isEmpty() || sequence.get(sequence.size() - 1) != type)
        {
            sequence.add(type);
        }
    }

    private boolean hasMarker(final TopicPartition tp, final long producerId, final short epoch,
        final ControlRecordType type)
    {
        for (final RecordBatch batch : replicas.log(tp).batches())
        {
            if (batch.producerId() == producerId && batch.producerEpoch() == epoch
                && EndTransactionMarker.deserialize(batch.iterator().next()).controlType() == type)
            {
                return true;
            }
        }
        return false;
    }
}

package io.syncmirror.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.AddOffsetsToTxnRequestData;
import org.apache.kafka.common.message.AddPartitionsToTxnRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.EndTxnRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.InitProducerIdRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.AllocateProducerIdsResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.network.RequestContext;

@Timeout(10)
class CoordinatorApisTest
{
    private static final String TXN_ID = "app-txn";
    private static final String GROUP = "app-group";
    private static final TopicPartition DATA = new TopicPartition("data", 0);

    private final ManualTime time = new ManualTime();
    private final FakeReplicaAccess replicas = new FakeReplicaAccess();
    private final FakeMetadataView metadata = new FakeMetadataView();
    private final FakeNodeClient controller = new FakeNodeClient();
    private final CoordinatorConfig config = new CoordinatorConfig(0, 4, (short) 3, 2, 900_000, 1_000L,
        604_800_000L, 3_600_000L, 4, (short) 3, 4096, 5_000L, 100L);
    private FakeGroupOffsets groups;
    private CoordinatorApis apis;

    @BeforeEach
    void setUp() throws Exception
    {
        metadata.addBroker(0);
        metadata.addBroker(1);
        metadata.addTopic("data", 0, 0);
        final ProducerIdManager producerIds = new ProducerIdManager(0, () -> 1L, () -> controller, time, 100L);
        final var first = producerIds.generateProducerId();
        controller.take().response().complete(new AllocateProducerIdsResponse(new AllocateProducerIdsResponseData()
            .setProducerIdStart(0).setProducerIdLen(1000)));
        first.get();
        final TxnMarkerWriter markers = new TxnMarkerWriter(replicas, time, 5_000L);
        groups = new FakeGroupOffsets(config, replicas);
        markers.groups(groups);
        final TransactionCoordinator transactions = new TransactionCoordinator(config, replicas, metadata,
            producerIds, id -> controller, markers, Runnable::run, time);
        transactions.startup();
        apis = new CoordinatorApis(transactions, groups, markers, metadata,
            new TransactionAdminApis(transactions, System::currentTimeMillis));
    }

    private void internalTopicsLedHere()
    {
        metadata.addTopicLedBy(CoordinatorConfig.TRANSACTION_STATE_TOPIC, 4, 0);
        metadata.addTopicLedBy(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, 4, 0);
        for (int p = 0; p < 4; p++)
        {
            replicas.becomeLeader(new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC, p), 2);
            replicas.becomeLeader(new TopicPartition(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, p), 2);
        }
    }

    /** Sends a request through its wire form at {@code version} and reads the answer back from its wire form. */
    @SuppressWarnings("unchecked") // each test names the response type of the request it sends
    private <R extends AbstractResponse> R call(final AbstractRequest.Builder<?> builder, final short version)
        throws Exception
    {
        final AbstractRequest built = builder.build(version);
        final ByteBufferAccessor requestBytes = MessageUtil.toByteBufferAccessor(built.data(), version);
        final AbstractRequest parsed = AbstractRequest.parseRequest(built.apiKey(), version, requestBytes).request;
        final RequestContext context = new RequestContext(
            new RequestHeader(built.apiKey(), version, "test-client", 1), InetAddress.getLoopbackAddress(), 1L, "PLAIN");
        final AbstractResponse response = apis.handle(context, parsed).get();
        final ByteBufferAccessor responseBytes = MessageUtil.toByteBufferAccessor(response.data(), version);
        return (R) AbstractResponse.parseResponse(built.apiKey(), responseBytes, version);
    }

    @Test
    void shouldAdvertiseOnlyTheClassicTransactionVersions()
    {
        assertEquals(4, apis.maxVersion(ApiKeys.END_TXN));
        assertEquals(-1, apis.maxVersion(ApiKeys.TXN_OFFSET_COMMIT), "served by the group coordinator");
        assertEquals(5, apis.maxVersion(ApiKeys.INIT_PRODUCER_ID));
        assertEquals(1, apis.minVersion(ApiKeys.WRITE_TXN_MARKERS));
        assertEquals(-1, apis.maxVersion(ApiKeys.PRODUCE));
    }

    @Test
    void shouldCreateInternalTopicsOnFirstLookupThenNameTheirLeaders() throws Exception
    {
        final FindCoordinatorResponse old = call(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
            .setKey(GROUP).setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id())), (short) 3);
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE, old.error());
        final FindCoordinatorResponse batched = call(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
            .setCoordinatorKeys(List.of(TXN_ID)).setKeyType(FindCoordinatorRequest.CoordinatorType.TRANSACTION.id())),
            (short) 4);
        assertEquals(Errors.COORDINATOR_NOT_AVAILABLE.code(), batched.data().coordinators().get(0).errorCode());
        assertEquals(List.of("__consumer_offsets/4/2/null", "__transaction_state/4/2/2"), replicas.ensuredTopics(),
            "replication factors capped to the two live brokers");

        internalTopicsLedHere();
        final FindCoordinatorResponse found = call(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
            .setCoordinatorKeys(List.of(GROUP, "other")).setKeyType(FindCoordinatorRequest.CoordinatorType.GROUP.id())),
            (short) 6);
        for (final FindCoordinatorResponseData.Coordinator coordinator : found.data().coordinators())
        {
            assertEquals(Errors.NONE.code(), coordinator.errorCode());
            assertEquals(0, coordinator.nodeId());
            assertEquals(9000, coordinator.port());
        }
        final FindCoordinatorResponse v0 = call(new FindCoordinatorRequest.Builder(new FindCoordinatorRequestData()
            .setKey(GROUP)), (short) 0);
        assertEquals(Errors.NONE, v0.error());
        assertEquals("127.0.0.1", v0.node().host());
    }

    @Test
    void shouldRunATransactionWithConsumedOffsetsThroughTheApisAndEndItInTheGroupCoordinator() throws Exception
    {
        internalTopicsLedHere();
        final InitProducerIdResponse init = call(new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
            .setTransactionalId(TXN_ID).setTransactionTimeoutMs(60_000)), (short) 5);
        assertEquals(Errors.NONE, init.error());
        final long pid = init.data().producerId();
        final short epoch = init.data().producerEpoch();

        final AddPartitionsToTxnResponse added = call(AddPartitionsToTxnRequest.Builder.forClient(TXN_ID, pid, epoch,
            List.of(DATA)), (short) 3);
        assertEquals(Map.of(DATA, Errors.NONE), added.errors().get(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID));
        final AddOffsetsToTxnResponse addedOffsets = call(new AddOffsetsToTxnRequest.Builder(
            new AddOffsetsToTxnRequestData().setTransactionalId(TXN_ID).setProducerId(pid).setProducerEpoch(epoch)
                .setGroupId(GROUP)), (short) 4);
        assertEquals(Errors.NONE.code(), addedOffsets.data().errorCode());

        final EndTxnResponse ended = call(new EndTxnRequest.Builder(new EndTxnRequestData().setTransactionalId(TXN_ID)
            .setProducerId(pid).setProducerEpoch(epoch).setCommitted(true), false), (short) 4);
        assertEquals(Errors.NONE, ended.error());
        assertEquals(List.of(new FakeGroupOffsets.Completion(groups.partitionFor(GROUP), pid, epoch, 2, true)),
            groups.completions(), "the offsets partition's marker goes to the group coordinator");

        final List<EndTransactionMarker> markers = new java.util.ArrayList<>();
        for (final RecordBatch batch : replicas.log(DATA).batches())
        {
            if (batch.isControlBatch())
            {
                markers.add(EndTransactionMarker.deserialize(batch.iterator().next()));
            }
        }
        assertEquals(List.of(new EndTransactionMarker(ControlRecordType.COMMIT, 2)), markers);
    }

    @Test
    void shouldAnswerInvalidProducerEpochToVersionsBeforeProducerFenced() throws Exception
    {
        internalTopicsLedHere();
        final InitProducerIdRequestData init = new InitProducerIdRequestData().setTransactionalId(TXN_ID)
            .setTransactionTimeoutMs(60_000);
        final InitProducerIdResponse first = call(new InitProducerIdRequest.Builder(init), (short) 4);
        call(new InitProducerIdRequest.Builder(init), (short) 4);
        final EndTxnRequestData stale = new EndTxnRequestData().setTransactionalId(TXN_ID)
            .setProducerId(first.data().producerId()).setProducerEpoch(first.data().producerEpoch()).setCommitted(true);
        assertEquals(Errors.INVALID_PRODUCER_EPOCH,
            this.<EndTxnResponse>call(new EndTxnRequest.Builder(stale, false), (short) 1).error());
        assertEquals(Errors.PRODUCER_FENCED,
            this.<EndTxnResponse>call(new EndTxnRequest.Builder(stale, false), (short) 3).error());
    }

    @Test
    void shouldAnswerUnknownPartitionsAndLeaveTheOthersNotAttempted() throws Exception
    {
        internalTopicsLedHere();
        final InitProducerIdResponse init = call(new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
            .setTransactionalId(TXN_ID).setTransactionTimeoutMs(60_000)), (short) 3);
        final TopicPartition missing = new TopicPartition("missing", 0);
        final AddPartitionsToTxnResponse added = call(AddPartitionsToTxnRequest.Builder.forClient(TXN_ID,
            init.data().producerId(), init.data().producerEpoch(), List.of(DATA, missing)), (short) 3);
        assertEquals(Map.of(DATA, Errors.OPERATION_NOT_ATTEMPTED, missing, Errors.UNKNOWN_TOPIC_OR_PARTITION),
            added.errors().get(AddPartitionsToTxnResponse.V3_AND_BELOW_TXN_ID));
    }

    @Test
    void shouldVerifyPartitionsForBrokersWithTheBatchedForm() throws Exception
    {
        internalTopicsLedHere();
        final InitProducerIdResponse init = call(new InitProducerIdRequest.Builder(new InitProducerIdRequestData()
            .setTransactionalId(TXN_ID).setTransactionTimeoutMs(60_000)), (short) 5);
        final long pid = init.data().producerId();
        final short epoch = init.data().producerEpoch();
        call(AddPartitionsToTxnRequest.Builder.forClient(TXN_ID, pid, epoch, List.of(DATA)), (short) 3);

        final AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection topics =
            new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopicCollection();
        topics.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTopic().setName("data")
            .setPartitions(List.of(0, 1)));
        final AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection transactions =
            new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransactionCollection();
        transactions.add(new AddPartitionsToTxnRequestData.AddPartitionsToTxnTransaction().setTransactionalId(TXN_ID)
            .setProducerId(pid).setProducerEpoch(epoch).setVerifyOnly(true).setTopics(topics));
        final AddPartitionsToTxnResponse verified = call(AddPartitionsToTxnRequest.Builder.forBroker(transactions),
            (short) 5);
        assertEquals(Map.of(DATA, Errors.NONE, new TopicPartition("data", 1), Errors.INVALID_TXN_STATE),
            verified.errors().get(TXN_ID));
    }
}

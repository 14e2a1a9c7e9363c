package io.syncmirror.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.FetchRequestCodec;
import io.syncmirror.protocol.KafkaApiExtensions;
import io.syncmirror.protocol.MirrorReplicaInfo;
import io.syncmirror.protocol.MirrorWireClient;

/**
 * The socket server at the sync-mirroring versions beyond kafka-clients (Fetch 19/20, Produce 14) and the
 * {@code mirror.sync.version} feature, driven by {@link MirrorWireClient} and hand-written frames.
 */
@Timeout(30)
class KafkaSocketServerSyncVersionsTest
{
    private static final int TIMEOUT_MS = 5_000;
    private static final short FETCH_V19 = 19;
    private static final short FETCH_V20 = 20;
    private static final short PRODUCE_V14 = 14;
    private static final short HEARTBEAT_V4 = 4;

    private final FakeRequestHandler handler = new FakeRequestHandler()
        .serve(ApiKeys.HEARTBEAT, 0, HEARTBEAT_V4)
        .serve(ApiKeys.FETCH, 4, ApiKeys.FETCH.latestVersion())
        .serve(ApiKeys.PRODUCE, 3, ApiKeys.PRODUCE.latestVersion());
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception
    {
        for (final AutoCloseable closeable : toClose)
        {
            closeable.close();
        }
    }

    private int start(final ApiVersionsFeatures features)
    {
        final KafkaSocketServer server = new KafkaSocketServer(List.of(new Listener("PLAINTEXT", "127.0.0.1", 0)),
            handler, SocketServerConfig.defaults().withNetworkThreads(1), features);
        toClose.add(server);
        return server.start().get("PLAINTEXT").getPort();
    }

    private MirrorWireClient wireClient(final int port) throws IOException
    {
        final MirrorWireClient client = MirrorWireClient.connect("127.0.0.1", port, "sync-test", TIMEOUT_MS,
            TIMEOUT_MS);
        toClose.add(client);
        return client;
    }

    private RawKafkaClient rawClient(final int port) throws IOException
    {
        final RawKafkaClient client = new RawKafkaClient(port, TIMEOUT_MS);
        toClose.add(client);
        return client;
    }

    private FakeRequestHandler enableSyncVersions()
    {
        return handler.serveBeyondKafka(ApiKeys.FETCH, FETCH_V20).serveBeyondKafka(ApiKeys.PRODUCE, PRODUCE_V14);
    }

    private static FetchRequestData fetchData(final Uuid topicId)
    {
        return new FetchRequestData().setMaxWaitMs(0).setMinBytes(1).setMaxBytes(1 << 20).setSessionId(0)
            .setSessionEpoch(-1).setRackId("").setClusterId("source-cluster")
            .setReplicaState(new FetchRequestData.ReplicaState().setReplicaId(-1).setReplicaEpoch(-1))
            .setTopics(List.of(new FetchRequestData.FetchTopic().setTopicId(topicId).setPartitions(List.of(
                new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(5).setCurrentLeaderEpoch(2)
                    .setLastFetchedEpoch(1).setPartitionMaxBytes(1 << 20)))));
    }

    private static MirrorReplicaInfo mirrorInfo(final Uuid topicId)
    {
        return new MirrorReplicaInfo().setMirrorName("dr").setTopics(List.of(new MirrorReplicaInfo.MirroredTopic()
            .setTopic("orders").setTopicId(topicId).setPartitions(List.of(
                new MirrorReplicaInfo.MirroredTopicPartition().setPartition(0).setIsr(List.of(1, 2)).setMinIsr(2)
                    .setReplicaLastOffsets(List.of(
                        new MirrorReplicaInfo.ReplicaLastOffset().setReplicaId(1).setLastFetchOffset(5),
                        new MirrorReplicaInfo.ReplicaLastOffset().setReplicaId(2).setLastFetchOffset(4)))))));
    }

    private static MemoryRecords records(final String value)
    {
        return MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)));
    }

    private static ProduceRequestData produceData(final Uuid topicId, final short acks)
    {
        final ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setTopicId(topicId).setPartitionData(List.of(
            new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records("v")))));
        return new ProduceRequestData().setAcks(acks).setTimeoutMs(1000).setTopicData(topics);
    }

    /** Answers Fetch with one partition of records and Produce with a per-partition error naming the version. */
    private CompletableFuture<AbstractResponse> answer(final FakeRequestHandler.Received r)
    {
        if (r.request() instanceof FetchRequest fetch)
        {
            final FetchRequestData.FetchTopic topic = fetch.data().topics().get(0);
            return CompletableFuture.completedFuture(FetchResponse.of(new FetchResponseData().setResponses(List.of(
                new FetchResponseData.FetchableTopicResponse().setTopicId(topic.topicId()).setPartitions(List.of(
                    new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(6)
                        .setRecords(records("fetched"))))))));
        }
        if (r.request() instanceof ProduceRequest produce)
        {
            if (produce.acks() == 0)
            {
                return CompletableFuture.completedFuture(null);
            }
            final ProduceRequestData.TopicProduceData topic = produce.data().topicData().iterator().next();
            final ProduceResponseData data = new ProduceResponseData();
            data.responses().add(new ProduceResponseData.TopicProduceResponse().setTopicId(topic.topicId())
                .setPartitionResponses(List.of(new ProduceResponseData.PartitionProduceResponse().setIndex(0)
                    .setErrorCode(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code())
                    .setErrorMessage("sent v" + r.context().header().apiVersion()))));
            return CompletableFuture.completedFuture(new ProduceResponse(data));
        }
        return handler.answerNow(r);
    }

    @Test
    void shouldAdvertiseFetchV20AndProduceV14OnlyWhenTheHandlerServesThem() throws Exception
    {
        final MirrorWireClient client = wireClient(start(ApiVersionsFeatures.NONE));
        ApiVersionsResponseData versions = client.apiVersions();
        assertEquals(ApiKeys.FETCH.latestVersion(), versions.apiKeys().find(ApiKeys.FETCH.id).maxVersion());
        assertEquals(ApiKeys.PRODUCE.latestVersion(), versions.apiKeys().find(ApiKeys.PRODUCE.id).maxVersion());
        assertTrue(versions.supportedFeatures().isEmpty(), "no feature without the hook");

        enableSyncVersions();
        versions = client.apiVersions();
        assertEquals(FETCH_V20, versions.apiKeys().find(ApiKeys.FETCH.id).maxVersion());
        assertEquals(4, versions.apiKeys().find(ApiKeys.FETCH.id).minVersion());
        assertEquals(PRODUCE_V14, versions.apiKeys().find(ApiKeys.PRODUCE.id).maxVersion());
        assertEquals(HEARTBEAT_V4, versions.apiKeys().find(ApiKeys.HEARTBEAT.id).maxVersion(),
            "an API without versions beyond kafka-clients keeps its range");
    }

    @Test
    void shouldNotGoBeyondKafkaForAHandlerThatStopsBelowKafkasHighest() throws Exception
    {
        handler.serve(ApiKeys.FETCH, 4, 16);
        enableSyncVersions();
        final MirrorWireClient client = wireClient(start(ApiVersionsFeatures.NONE));
        assertEquals(16, client.apiVersions().apiKeys().find(ApiKeys.FETCH.id).maxVersion());
    }

    @Test
    void shouldHandAFetchV20ToTheHandlerAsV18WithItsMirrorReplicaInfoAndAnswerInTheV18Layout() throws Exception
    {
        enableSyncVersions().respondWith(this::answer);
        final MirrorWireClient client = wireClient(start(ApiVersionsFeatures.NONE));
        final Uuid topicId = Uuid.randomUuid();

        final FetchResponseData response = client.fetch(fetchData(topicId), mirrorInfo(topicId), FETCH_V20);

        final FakeRequestHandler.Received received = handler.nextReceived(TIMEOUT_MS);
        assertEquals(FETCH_V20, received.context().header().apiVersion());
        assertEquals(FetchRequestCodec.LAYOUT_VERSION, received.request().version());
        assertEquals(fetchData(topicId), ((FetchRequest)received.request()).data());
        assertEquals(Optional.of(mirrorInfo(topicId)), received.context().mirrorReplicaInfo());
        final FetchResponseData.PartitionData partition = response.responses().get(0).partitions().get(0);
        assertEquals(topicId, response.responses().get(0).topicId());
        assertEquals(6, partition.highWatermark());
        assertEquals(records("fetched").buffer(), ((MemoryRecords)partition.records()).buffer());
    }

    @Test
    void shouldAnswerPipelinedFetchV19ProduceV14AndHeartbeatInOrderWithTheirCorrelationIds() throws Exception
    {
        enableSyncVersions().respondWith(this::answer);
        final RawKafkaClient client = rawClient(start(ApiVersionsFeatures.NONE));
        final Uuid topicId = Uuid.randomUuid();
        sendBeyondKafka(client, ApiKeys.FETCH, FETCH_V19, 101, FetchRequestCodec.serialize(fetchData(topicId), null,
            FETCH_V19));
        sendBeyondKafka(client, ApiKeys.PRODUCE, PRODUCE_V14, 102,
            KafkaApiExtensions.serializeProduceRequest(produceData(topicId, (short)-1), PRODUCE_V14));
        client.send(new HeartbeatRequest.Builder(new HeartbeatRequestData().setGroupId("g").setMemberId("m"))
            .build(HEARTBEAT_V4), 103);

        final RawKafkaClient.Received fetch = client.receive(ApiKeys.FETCH, FetchRequestCodec.LAYOUT_VERSION,
            ApiKeys.FETCH.responseHeaderVersion(FETCH_V19));
        assertEquals(101, fetch.header().correlationId());
        assertEquals(6, ((FetchResponse)fetch.body()).data().responses().get(0).partitions().get(0).highWatermark());
        final RawKafkaClient.Received produce = client.receive(ApiKeys.PRODUCE, KafkaApiExtensions.PRODUCE_LAYOUT_VERSION,
            ApiKeys.PRODUCE.responseHeaderVersion(PRODUCE_V14));
        assertEquals(102, produce.header().correlationId());
        final ProduceResponseData.PartitionProduceResponse partition =
            ((ProduceResponse)produce.body()).data().responses().iterator().next().partitionResponses().get(0);
        assertEquals(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code(), partition.errorCode());
        assertEquals("sent v14", partition.errorMessage(), "the handler sees the version the client sent");
        final RawKafkaClient.Received heartbeat = client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_V4);
        assertEquals(103, heartbeat.header().correlationId());
        assertEquals(Errors.NONE, ((HeartbeatResponse)heartbeat.body()).error());

        final FakeRequestHandler.Received fetchReceived = handler.nextReceived(TIMEOUT_MS);
        assertEquals(FETCH_V19, fetchReceived.context().header().apiVersion());
        assertEquals(Optional.empty(), fetchReceived.context().mirrorReplicaInfo());
        final FakeRequestHandler.Received produceReceived = handler.nextReceived(TIMEOUT_MS);
        assertEquals(PRODUCE_V14, produceReceived.context().header().apiVersion());
        assertEquals(KafkaApiExtensions.PRODUCE_LAYOUT_VERSION, produceReceived.request().version());
    }

    @Test
    void shouldSendProduceV14ThroughTheWireClientAndNothingBackForAcksZero() throws Exception
    {
        enableSyncVersions().respondWith(this::answer);
        final MirrorWireClient client = wireClient(start(ApiVersionsFeatures.NONE));
        final Uuid topicId = Uuid.randomUuid();

        assertNull(client.produce(produceData(topicId, (short)0), PRODUCE_V14));
        final ProduceResponseData response = client.produce(produceData(topicId, (short)-1), PRODUCE_V14);

        assertEquals("sent v14", response.responses().iterator().next().partitionResponses().get(0).errorMessage());
        assertEquals(0, ((ProduceRequest)handler.nextReceived(TIMEOUT_MS).request()).acks());
        assertEquals(-1, ((ProduceRequest)handler.nextReceived(TIMEOUT_MS).request()).acks());
    }

    @Test
    void shouldCloseTheConnectionOnFetchV19AndProduceV14WhileTheHandlerDoesNotServeThem() throws Exception
    {
        final int port = start(ApiVersionsFeatures.NONE);
        final RawKafkaClient fetch = rawClient(port);
        sendBeyondKafka(fetch, ApiKeys.FETCH, FETCH_V19, 1, FetchRequestCodec.serialize(fetchData(Uuid.randomUuid()),
            null, FETCH_V19));
        assertTrue(fetch.closedByPeer());
        final RawKafkaClient produce = rawClient(port);
        sendBeyondKafka(produce, ApiKeys.PRODUCE, PRODUCE_V14, 2,
            KafkaApiExtensions.serializeProduceRequest(produceData(Uuid.randomUuid(), (short)-1), PRODUCE_V14));
        assertTrue(produce.closedByPeer());
        assertNull(handler.nextReceived(0), "the handler never sees them");
    }

    @Test
    void shouldCloseOnlyTheConnectionWithATruncatedFetchV20OrAVersionBeyondTheCodecs() throws Exception
    {
        enableSyncVersions().respondWith(this::answer);
        final int port = start(ApiVersionsFeatures.NONE);
        final Uuid topicId = Uuid.randomUuid();
        final ByteBuffer whole = FetchRequestCodec.serialize(fetchData(topicId), mirrorInfo(topicId), FETCH_V20);
        final RawKafkaClient truncated = rawClient(port);
        sendBeyondKafka(truncated, ApiKeys.FETCH, FETCH_V20, 1, whole.duplicate().limit(whole.limit() - 5));
        assertTrue(truncated.closedByPeer());
        final RawKafkaClient tooNew = rawClient(port);
        sendBeyondKafka(tooNew, ApiKeys.FETCH, (short)21, 2, whole.duplicate());
        assertTrue(tooNew.closedByPeer());

        final MirrorWireClient healthy = wireClient(port);
        assertFalse(healthy.fetch(fetchData(topicId), mirrorInfo(topicId), FETCH_V20).responses().isEmpty());
    }

    @Test
    void shouldAdvertiseMirrorSyncVersionThroughTheFeatureHook() throws Exception
    {
        final MirrorSyncVersionFeature feature = new MirrorSyncVersionFeature((short)0, -1);
        final MirrorWireClient client = wireClient(start(feature));

        ApiVersionsResponseData versions = client.apiVersions();
        final ApiVersionsResponseData.SupportedFeatureKey supported =
            versions.supportedFeatures().find(MirrorSyncVersionFeature.NAME);
        assertNotNull(supported);
        assertEquals(0, supported.minVersion());
        assertEquals(1, supported.maxVersion());
        assertNull(versions.finalizedFeatures().find(MirrorSyncVersionFeature.NAME), "level 0 is not finalized");

        feature.setFinalized((short)1, 42);
        versions = client.apiVersions();
        assertEquals(1, versions.finalizedFeatures().find(MirrorSyncVersionFeature.NAME).maxVersionLevel());
        assertEquals(1, versions.finalizedFeatures().find(MirrorSyncVersionFeature.NAME).minVersionLevel());
        assertEquals(42, versions.finalizedFeaturesEpoch());
    }

    /** Writes a request frame with a version 2 header claiming {@code key} v{@code version} and a pre-encoded body. */
    private static void sendBeyondKafka(final RawKafkaClient client, final ApiKeys key, final short version,
        final int correlationId, final ByteBuffer body) throws IOException
    {
        final RequestHeaderData header = new RequestHeaderData().setRequestApiKey(key.id).setRequestApiVersion(version)
            .setClientId("raw-client").setCorrelationId(correlationId);
        final short headerVersion = key.requestHeaderVersion(version);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer frame = ByteBuffer.allocate(header.size(cache, headerVersion) + body.remaining());
        header.write(new ByteBufferAccessor(frame), cache, headerVersion);
        client.sendFrame(frame.put(body.duplicate()).flip());
    }
}

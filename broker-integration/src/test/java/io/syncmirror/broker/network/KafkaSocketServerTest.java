package io.syncmirror.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.ApiVersionsResponseData.ApiVersion;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

@Timeout(30)
class KafkaSocketServerTest
{
    private static final int READ_TIMEOUT_MS = 5_000;
    private static final short HEARTBEAT_MAX = 3;

    private final FakeRequestHandler handler = new FakeRequestHandler()
        .serve(ApiKeys.HEARTBEAT, 1, HEARTBEAT_MAX)
        .serve(ApiKeys.METADATA, 4, 12);
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private KafkaSocketServer server;
    private int port;

    @BeforeEach
    void startServer()
    {
        startServer(SocketServerConfig.defaults().withNetworkThreads(2));
    }

    private void startServer(final SocketServerConfig config)
    {
        if (server != null)
        {
            server.close();
        }
        server = new KafkaSocketServer(List.of(new Listener("PLAINTEXT", "127.0.0.1", 0)), handler, config);
        port = server.start().get("PLAINTEXT").getPort();
    }

    @AfterEach
    void closeAll() throws Exception
    {
        for (final AutoCloseable closeable : toClose)
        {
            closeable.close();
        }
        server.close();
    }

    private RawKafkaClient connect() throws IOException
    {
        final RawKafkaClient client = new RawKafkaClient(port, READ_TIMEOUT_MS);
        toClose.add(client);
        return client;
    }

    private static HeartbeatRequest heartbeat(final short version)
    {
        return new HeartbeatRequest.Builder(new HeartbeatRequestData().setGroupId("g").setMemberId("m")).build(version);
    }

    private static void assertHeartbeat(final RawKafkaClient.Received received, final int correlationId, final Errors error)
    {
        assertEquals(correlationId, received.header().correlationId());
        assertEquals(error, ((HeartbeatResponse)received.body()).error());
    }

    @Test
    void shouldAnswerApiVersionsWithTheHandlersRanges() throws Exception
    {
        final RawKafkaClient client = connect();
        final short version = ApiKeys.API_VERSIONS.latestVersion(false);
        client.send(new ApiVersionsRequest.Builder().build(version), 7);

        // ApiVersions responses always carry header v0, whatever the request version.
        final RawKafkaClient.Received received = client.receive(ApiKeys.API_VERSIONS, version, (short)0);
        assertEquals(7, received.header().correlationId());
        final ApiVersionsResponse response = (ApiVersionsResponse)received.body();
        assertEquals(Errors.NONE.code(), response.data().errorCode());
        assertRange(response, ApiKeys.HEARTBEAT, 1, HEARTBEAT_MAX);
        assertRange(response, ApiKeys.METADATA, 4, 12);
        assertRange(response, ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS.oldestVersion(), version);
        // The SASL exchange is the server's own, advertised on every listener as Kafka does.
        assertRange(response, ApiKeys.SASL_HANDSHAKE, ApiKeys.SASL_HANDSHAKE.oldestVersion(),
            ApiKeys.SASL_HANDSHAKE.latestVersion(false));
        assertRange(response, ApiKeys.SASL_AUTHENTICATE, ApiKeys.SASL_AUTHENTICATE.oldestVersion(),
            ApiKeys.SASL_AUTHENTICATE.latestVersion(false));
        assertNull(response.apiVersion(ApiKeys.PRODUCE.id), "an API the handler does not serve is not advertised");
        assertEquals(5, response.data().apiKeys().size());
    }

    @Test
    void shouldLetTheFeaturesHookFillApiVersionsFeatures() throws Exception
    {
        final KafkaSocketServer withFeatures = new KafkaSocketServer(
            List.of(new Listener("PLAINTEXT", "127.0.0.1", 0)), handler, SocketServerConfig.defaults().withNetworkThreads(1),
            (response, version) ->
            {
                response.supportedFeatures().add(new ApiVersionsResponseData.SupportedFeatureKey()
                    .setName("mirror.sync.version").setMinVersion((short)0).setMaxVersion((short)1));
                response.finalizedFeatures().add(new ApiVersionsResponseData.FinalizedFeatureKey()
                    .setName("mirror.sync.version").setMinVersionLevel((short)1).setMaxVersionLevel((short)1));
                response.setFinalizedFeaturesEpoch(5);
            });
        toClose.add(withFeatures);
        final short version = ApiKeys.API_VERSIONS.latestVersion(false);
        try (RawKafkaClient client = new RawKafkaClient(withFeatures.start().get("PLAINTEXT").getPort(), READ_TIMEOUT_MS))
        {
            client.send(new ApiVersionsRequest.Builder().build(version), 1);
            final ApiVersionsResponseData data =
                ((ApiVersionsResponse)client.receive(ApiKeys.API_VERSIONS, version, (short)0).body()).data();
            assertEquals(1, data.supportedFeatures().find("mirror.sync.version").maxVersion());
            assertEquals(1, data.finalizedFeatures().find("mirror.sync.version").maxVersionLevel());
            assertEquals(5, data.finalizedFeaturesEpoch());
        }
    }

    @Test
    void shouldAnswerApiVersionsAtAnUnknownVersionWithV0UnsupportedVersionAndItsOwnRange() throws Exception
    {
        final RawKafkaClient client = connect();
        final short tooNew = (short)(ApiKeys.API_VERSIONS.latestVersion() + 1);
        client.sendWithHeader(ApiKeys.API_VERSIONS, tooNew, 11, new ApiVersionsRequestData(), (short)0);

        // As Kafka 4.4: only ApiVersions' range, from which the client picks the version it asks again with.
        final RawKafkaClient.Received received = client.receive(ApiKeys.API_VERSIONS, (short)0, (short)0);
        assertEquals(11, received.header().correlationId());
        final ApiVersionsResponse response = (ApiVersionsResponse)received.body();
        assertEquals(Errors.UNSUPPORTED_VERSION.code(), response.data().errorCode());
        assertRange(response, ApiKeys.API_VERSIONS, ApiKeys.API_VERSIONS.oldestVersion(),
            ApiKeys.API_VERSIONS.latestVersion(false));
        assertEquals(1, response.data().apiKeys().size());

        client.send(heartbeat(HEARTBEAT_MAX), 12);
        assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 12, Errors.NONE);
    }

    @Test
    void shouldCloseTheConnectionOnAnUnservedApiAsKafkaDoes() throws Exception
    {
        final RawKafkaClient client = connect();
        final short version = ApiKeys.DESCRIBE_CLUSTER.latestVersion(false);
        client.send(new DescribeClusterRequest.Builder(new DescribeClusterRequestData()).build(version), 21);

        assertTrue(client.closedByPeer(), "a request for an API not advertised left the connection open");
        assertNull(handler.nextReceived(0), "the handler never sees an API it does not serve");
        final RawKafkaClient other = connect();
        other.send(heartbeat(HEARTBEAT_MAX), 22);
        assertHeartbeat(other.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 22, Errors.NONE);
    }

    @Test
    void shouldCloseTheConnectionOnAVersionOutsideTheServedRangeAsKafkaDoes() throws Exception
    {
        for (final short version : new short[] {(short)(HEARTBEAT_MAX + 1), (short)0})
        {
            final RawKafkaClient client = connect();
            client.send(heartbeat(HEARTBEAT_MAX), 31);
            client.send(heartbeat(version), 32);
            // Answered in order up to the bad request, then closed.
            assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 31, Errors.NONE);
            assertTrue(client.closedByPeer(), "Heartbeat v" + version + " left the connection open");
        }
        assertEquals(HEARTBEAT_MAX, handler.nextReceived(0).request().version());
        assertEquals(HEARTBEAT_MAX, handler.nextReceived(0).request().version());
        assertNull(handler.nextReceived(0));
    }

    @Test
    void shouldCloseTheConnectionOnAVersionWithoutASchema() throws Exception
    {
        final RawKafkaClient client = connect();
        final short unknown = (short)(ApiKeys.HEARTBEAT.latestVersion() + 5);
        client.sendWithHeader(ApiKeys.HEARTBEAT, unknown, 41, new HeartbeatRequestData(), HEARTBEAT_MAX);
        assertTrue(client.closedByPeer());
    }

    @Test
    void shouldCloseOnlyTheConnectionThatSentGarbage() throws Exception
    {
        final RawKafkaClient healthy = connect();
        final RawKafkaClient garbage = connect();
        garbage.sendRaw(new byte[] {0, 0, 0, 8, 0x7f, 0x7f, 1, 2, 3, 4, 5, 6});
        assertTrue(garbage.closedByPeer());

        healthy.send(heartbeat(HEARTBEAT_MAX), 51);
        assertHeartbeat(healthy.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 51, Errors.NONE);
    }

    @Test
    void shouldCloseOnlyTheConnectionWithAnOversizeOrNegativeSizePrefix() throws Exception
    {
        startServer(SocketServerConfig.defaults().withNetworkThreads(1).withMaxRequestBytes(1024));
        final RawKafkaClient healthy = connect();
        final RawKafkaClient oversize = connect();
        final RawKafkaClient negative = connect();
        oversize.sendRaw(ByteBuffer.allocate(8).putInt(1025).putInt(0).array());
        negative.sendRaw(ByteBuffer.allocate(8).putInt(-1).putInt(0).array());
        assertTrue(oversize.closedByPeer());
        assertTrue(negative.closedByPeer());

        healthy.send(heartbeat(HEARTBEAT_MAX), 61);
        assertHeartbeat(healthy.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 61, Errors.NONE);
    }

    @Test
    void shouldCloseTheConnectionOnATruncatedBody() throws Exception
    {
        final RawKafkaClient healthy = connect();
        final RawKafkaClient truncated = connect();
        final ByteBuffer whole = heartbeat(HEARTBEAT_MAX).serializeWithHeader(
            new RequestHeader(ApiKeys.HEARTBEAT, HEARTBEAT_MAX, "raw-client", 71));
        final ByteBuffer cut = whole.duplicate();
        cut.limit(whole.limit() - 3);
        truncated.sendFrame(cut);
        assertTrue(truncated.closedByPeer());

        healthy.send(heartbeat(HEARTBEAT_MAX), 72);
        assertHeartbeat(healthy.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 72, Errors.NONE);
    }

    @Test
    void shouldWriteResponsesInRequestOrderWhateverOrderTheirFuturesComplete() throws Exception
    {
        handler.holdResponses();
        final RawKafkaClient client = connect();
        for (int correlationId = 1; correlationId <= 3; correlationId++)
        {
            client.send(heartbeat(HEARTBEAT_MAX), correlationId);
        }
        final List<CompletableFuture<AbstractResponse>> futures = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            futures.add(handler.nextReceived(READ_TIMEOUT_MS).future());
        }

        final ExecutorService completer = Executors.newSingleThreadExecutor();
        try
        {
            completer.submit(() -> futures.get(2).complete(FakeRequestHandler.heartbeat(Errors.NONE))).get();
            completer.submit(() -> futures.get(1).complete(FakeRequestHandler.heartbeat(Errors.REBALANCE_IN_PROGRESS))).get();
            assertTrue(client.silent(200), "nothing may be written before the first response is ready");
            completer.submit(() -> futures.get(0).complete(FakeRequestHandler.heartbeat(Errors.UNKNOWN_MEMBER_ID))).get();
        }
        finally
        {
            completer.shutdownNow();
        }

        assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 1, Errors.UNKNOWN_MEMBER_ID);
        assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 2, Errors.REBALANCE_IN_PROGRESS);
        assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 3, Errors.NONE);
    }

    @Test
    void shouldKeepRequestOrderUnderConcurrentCompletionsFromManyThreads() throws Exception
    {
        final int requests = 1_000;
        final long seed = 20261130L;
        final Random random = new Random(seed);
        final ExecutorService completers = Executors.newFixedThreadPool(4);
        final ScheduledExecutorService delayer = Executors.newSingleThreadScheduledExecutor();
        toClose.add(completers::shutdownNow);
        toClose.add(delayer::shutdownNow);
        handler.respondWith(r ->
        {
            final int correlationId = r.context().header().correlationId();
            final long delayUs;
            synchronized (random)
            {
                delayUs = random.nextInt(500);
            }
            delayer.schedule(() -> completers.execute(() -> r.future().complete(
                correlationId % 7 == 0 ? null : FakeRequestHandler.heartbeat(errorFor(correlationId)))),
                delayUs, TimeUnit.MICROSECONDS);
            return r.future();
        });
        final RawKafkaClient client = connect();
        final Thread writer = new Thread(() ->
        {
            try
            {
                for (int correlationId = 1; correlationId <= requests; correlationId++)
                {
                    client.send(heartbeat(HEARTBEAT_MAX), correlationId);
                }
            }
            catch (final IOException e)
            {
                throw new UncheckedIOException(e);
            }
        });
        writer.start();
        for (int correlationId = 1; correlationId <= requests; correlationId++)
        {
            if (correlationId % 7 != 0)
            {
                assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), correlationId, errorFor(correlationId));
            }
        }
        writer.join();
        assertTrue(client.silent(100), "acks=0-style requests were answered (seed " + seed + ")");
    }

    private static Errors errorFor(final int correlationId)
    {
        return correlationId % 3 == 0 ? Errors.REBALANCE_IN_PROGRESS : Errors.NONE;
    }

    @Test
    void shouldSendNothingForANullResponseAndKeepTheOrder() throws Exception
    {
        handler.holdResponses();
        final RawKafkaClient client = connect();
        for (int correlationId = 1; correlationId <= 3; correlationId++)
        {
            client.send(heartbeat(HEARTBEAT_MAX), correlationId);
        }
        final CompletableFuture<AbstractResponse> first = handler.nextReceived(READ_TIMEOUT_MS).future();
        final CompletableFuture<AbstractResponse> second = handler.nextReceived(READ_TIMEOUT_MS).future();
        final CompletableFuture<AbstractResponse> third = handler.nextReceived(READ_TIMEOUT_MS).future();
        third.complete(FakeRequestHandler.heartbeat(Errors.NONE));
        second.complete(null);
        first.complete(FakeRequestHandler.heartbeat(Errors.NONE));

        assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 1, Errors.NONE);
        assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 3, Errors.NONE);
    }

    @Test
    void shouldAnswerAnExceptionalFutureWithTheRequestsErrorResponse() throws Exception
    {
        handler.respondWith(r -> CompletableFuture.failedFuture(new NotCoordinatorException("moved")));
        final RawKafkaClient client = connect();
        client.send(heartbeat(HEARTBEAT_MAX), 81);
        assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 81, Errors.NOT_COORDINATOR);
    }

    @Test
    void shouldAnswerAHandlerThatThrowsWithTheRequestsErrorResponse() throws Exception
    {
        handler.respondWith(r ->
        {
            throw new IllegalStateException("bug");
        });
        final RawKafkaClient client = connect();
        client.send(heartbeat(HEARTBEAT_MAX), 82);
        assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 82, Errors.UNKNOWN_SERVER_ERROR);
        client.send(heartbeat(HEARTBEAT_MAX), 83);
        assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 83, Errors.UNKNOWN_SERVER_ERROR);
    }

    @Test
    void shouldStopReadingAtTheInFlightBoundAndResumeWhenAnswered() throws Exception
    {
        startServer(SocketServerConfig.defaults().withNetworkThreads(1).withMaxInFlightRequestsPerConnection(4));
        handler.holdResponses();
        final RawKafkaClient client = connect();
        final List<CompletableFuture<AbstractResponse>> held = new ArrayList<>();
        for (int correlationId = 1; correlationId <= 4; correlationId++)
        {
            client.send(heartbeat(HEARTBEAT_MAX), correlationId);
            held.add(handler.nextReceived(READ_TIMEOUT_MS).future());
        }
        for (int correlationId = 5; correlationId <= 8; correlationId++)
        {
            client.send(heartbeat(HEARTBEAT_MAX), correlationId);
        }
        assertNull(handler.nextReceived(300), "no request is read while 4 are unanswered");

        for (final CompletableFuture<AbstractResponse> future : held)
        {
            future.complete(FakeRequestHandler.heartbeat(Errors.NONE));
        }
        for (int i = 5; i <= 8; i++)
        {
            final FakeRequestHandler.Received next = handler.nextReceived(READ_TIMEOUT_MS);
            assertNotNull(next, "reading resumes once answered");
            next.future().complete(FakeRequestHandler.heartbeat(Errors.NONE));
        }
        for (int correlationId = 1; correlationId <= 8; correlationId++)
        {
            assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), correlationId, Errors.NONE);
        }
    }

    @Test
    void shouldGiveEachConnectionItsOwnIdAndTheListenerName() throws Exception
    {
        final RawKafkaClient first = connect();
        final RawKafkaClient second = connect();
        first.send(heartbeat(HEARTBEAT_MAX), 1);
        second.send(heartbeat(HEARTBEAT_MAX), 1);
        first.send(heartbeat(HEARTBEAT_MAX), 2);
        first.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX);
        second.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX);
        first.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX);

        final List<RequestContext> contexts = new ArrayList<>();
        for (int i = 0; i < 3; i++)
        {
            contexts.add(handler.nextReceived(READ_TIMEOUT_MS).context());
        }
        final long firstId = contexts.stream().filter(c -> c.header().correlationId() == 2).findFirst()
            .orElseThrow().connectionId();
        final long otherIds = contexts.stream().filter(c -> c.connectionId() != firstId).count();
        assertEquals(1, otherIds, "the second connection has an id of its own");
        for (final RequestContext context : contexts)
        {
            assertEquals("PLAINTEXT", context.listenerName());
            assertEquals("127.0.0.1", context.clientAddress().getHostAddress());
            assertEquals("raw-client", context.header().clientId());
        }
        assertTrue(handler.handlerThreads().stream().allMatch(name -> name.startsWith("syncmirror-net-io")),
            "handle() runs on the connection's event loop: " + handler.handlerThreads());
    }

    @Test
    void shouldBindEveryListenerToItsOwnEphemeralPort() throws Exception
    {
        final KafkaSocketServer two = new KafkaSocketServer(
            List.of(new Listener("CLIENT", "127.0.0.1", 0), new Listener("REPLICATION", "127.0.0.1", 0)),
            handler, SocketServerConfig.defaults().withNetworkThreads(1));
        toClose.add(two);
        final Map<String, InetSocketAddress> bound = two.start();
        assertEquals(List.of("CLIENT", "REPLICATION"), List.copyOf(bound.keySet()));
        assertNotEquals(bound.get("CLIENT").getPort(), bound.get("REPLICATION").getPort());
        assertEquals(bound.get("REPLICATION").getPort(), two.boundPort("REPLICATION"));

        try (RawKafkaClient client = new RawKafkaClient(two.boundPort("REPLICATION"), READ_TIMEOUT_MS))
        {
            client.send(heartbeat(HEARTBEAT_MAX), 5);
            assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 5, Errors.NONE);
        }
        assertEquals("REPLICATION", handler.nextReceived(READ_TIMEOUT_MS).context().listenerName());
        two.close();
        assertFalse(two.boundAddresses().containsKey("CLIENT"));
    }

    @Test
    void shouldSendFetchRecordsFromLogFilesAndMemoryIntact(@TempDir final Path dir) throws Exception
    {
        handler.serve(ApiKeys.FETCH, 4, ApiKeys.FETCH.latestVersion(false));
        final byte[] value = new byte[100_000];
        new Random(42).nextBytes(value);
        final MemoryRecords onDisk = MemoryRecords.withRecords(0L, Compression.NONE,
            new SimpleRecord(value), new SimpleRecord(value), new SimpleRecord(value));
        final MemoryRecords inMemory = MemoryRecords.withRecords(7L, Compression.NONE, new SimpleRecord(new byte[] {1, 2, 3}));
        final Uuid topicId = Uuid.randomUuid();
        try (FileRecords segment = FileRecords.open(dir.resolve("00000000000000000000.log").toFile()))
        {
            segment.append(onDisk);
            segment.flush();
            handler.respondWith(r ->
            {
                if (r.request().apiKey() != ApiKeys.FETCH)
                {
                    return handler.answerNow(r);
                }
                final FetchResponseData data = new FetchResponseData().setResponses(List.of(
                    new FetchResponseData.FetchableTopicResponse().setTopicId(topicId).setPartitions(List.of(
                        new FetchResponseData.PartitionData().setPartitionIndex(0).setHighWatermark(3).setRecords(segment),
                        new FetchResponseData.PartitionData().setPartitionIndex(1).setHighWatermark(8).setRecords(inMemory)))));
                return CompletableFuture.completedFuture(FetchResponse.of(data));
            });

            final RawKafkaClient client = connect();
            final short version = ApiKeys.FETCH.latestVersion(false);
            client.send(new FetchRequest(new FetchRequestData().setMaxWaitMs(0).setReplicaState(
                new FetchRequestData.ReplicaState().setReplicaId(-1)), version), 91);
            final RawKafkaClient.Received received = client.receive(ApiKeys.FETCH, version);
            assertEquals(91, received.header().correlationId());
            final List<FetchResponseData.PartitionData> partitions =
                ((FetchResponse)received.body()).data().responses().get(0).partitions();
            assertEquals(onDisk.buffer(), ((MemoryRecords)partitions.get(0).records()).buffer());
            assertEquals(inMemory.buffer(), ((MemoryRecords)partitions.get(1).records()).buffer());

            client.send(heartbeat(HEARTBEAT_MAX), 92);
            assertHeartbeat(client.receive(ApiKeys.HEARTBEAT, HEARTBEAT_MAX), 92, Errors.NONE);
        }
    }

    private static void assertRange(final ApiVersionsResponse response, final ApiKeys key, final int min, final int max)
    {
        final ApiVersion range = response.apiVersion(key.id);
        assertNotNull(range, key + " advertised");
        assertEquals(min, range.minVersion(), key + " min");
        assertEquals(max, range.maxVersion(), key + " max");
    }
}

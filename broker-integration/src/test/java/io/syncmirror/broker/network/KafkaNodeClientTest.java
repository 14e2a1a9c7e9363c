package io.syncmirror.broker.network;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class KafkaNodeClientTest
{
    private static final long WAIT_S = 10;
    private static final int NODE_ID = 1;

    private final FakeRequestHandler handler = new FakeRequestHandler()
        .serve(ApiKeys.HEARTBEAT, 0, 2)
        .serve(ApiKeys.METADATA, 0, ApiKeys.METADATA.latestVersion(false));
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private KafkaSocketServer server;
    private int port;

    @BeforeEach
    void startServer()
    {
        server = new KafkaSocketServer(List.of(new Listener("PLAINTEXT", "127.0.0.1", 0)), handler,
            SocketServerConfig.defaults().withNetworkThreads(1));
        port = server.start().get("PLAINTEXT").getPort();
        handler.brokers(List.of(new Node(NODE_ID, "127.0.0.1", port)));
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

    private KafkaNodeClient client(final NodeClientConfig config, final int targetPort)
    {
        final KafkaNodeClient client = KafkaNodeClient.start(new Node(NODE_ID, "127.0.0.1", targetPort), config);
        toClose.add(client);
        return client;
    }

    private static HeartbeatRequest.Builder heartbeat()
    {
        return new HeartbeatRequest.Builder(new HeartbeatRequestData().setGroupId("g").setMemberId("m"));
    }

    private static Throwable failure(final CompletableFuture<?> future) throws Exception
    {
        final ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(WAIT_S, TimeUnit.SECONDS));
        return e.getCause();
    }

    @Test
    void shouldRoundTripThroughTheSocketServerAtTheHighestCommonVersion() throws Exception
    {
        final KafkaNodeClient client = client(NodeClientConfig.defaults("test"), port);
        final CompletableFuture<HeartbeatResponse> heartbeat = client.send(heartbeat());
        assertEquals(Errors.NONE, heartbeat.get(WAIT_S, TimeUnit.SECONDS).error());
        assertEquals(2, handler.nextReceived(0).request().version(), "negotiated down to the served maximum");

        final CompletableFuture<MetadataResponse> metadata = client.send(
            new MetadataRequest.Builder(List.of(), false));
        final MetadataResponse response = metadata.get(WAIT_S, TimeUnit.SECONDS);
        assertEquals(FakeRequestHandler.CLUSTER_ID, response.clusterId());
        assertEquals(port, response.brokersById().get(NODE_ID).port());
        assertTrue(client.isReady());
    }

    @Test
    void shouldCompletePipelinedRequestsInOrder() throws Exception
    {
        handler.holdResponses();
        final KafkaNodeClient client = client(NodeClientConfig.defaults("test"), port);
        final List<CompletableFuture<HeartbeatResponse>> sent = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            sent.add(client.send(heartbeat()));
        }
        final List<FakeRequestHandler.Received> received = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            received.add(handler.nextReceived(WAIT_S * 1000));
        }
        final Errors[] errors = {Errors.NONE, Errors.UNKNOWN_MEMBER_ID, Errors.REBALANCE_IN_PROGRESS,
            Errors.ILLEGAL_GENERATION, Errors.NOT_COORDINATOR};
        for (int i = 4; i >= 0; i--)
        {
            received.get(i).future().complete(FakeRequestHandler.heartbeat(errors[i]));
        }
        for (int i = 0; i < 5; i++)
        {
            assertEquals(errors[i], sent.get(i).get(WAIT_S, TimeUnit.SECONDS).error());
        }
    }

    @Test
    void shouldFailWithUnsupportedVersionWhenTheNodeDoesNotServeTheApi() throws Exception
    {
        final KafkaNodeClient client = client(NodeClientConfig.defaults("test"), port);
        final CompletableFuture<AbstractResponse> describe = client.send(
            new DescribeClusterRequest.Builder(new DescribeClusterRequestData()));
        assertInstanceOf(UnsupportedVersionException.class, failure(describe));
    }

    @Test
    void shouldFailInFlightRequestsWithDisconnectWhenTheServerGoesAway() throws Exception
    {
        handler.holdResponses();
        final KafkaNodeClient client = client(NodeClientConfig.defaults("test"), port);
        final CompletableFuture<HeartbeatResponse> heartbeat = client.send(heartbeat());
        handler.nextReceived(WAIT_S * 1000);
        server.close();
        assertInstanceOf(DisconnectException.class, failure(heartbeat));
    }

    @Test
    void shouldFailWithDisconnectWhenTheNodeIsUnreachable() throws Exception
    {
        final int deadPort;
        try (ServerSocket socket = new ServerSocket(0))
        {
            deadPort = socket.getLocalPort();
        }
        final KafkaNodeClient client = client(NodeClientConfig.defaults("test"), deadPort);
        final long startNs = System.nanoTime();
        assertInstanceOf(DisconnectException.class, failure(client.send(heartbeat())));
        assertTrue(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs) < NodeClientConfig.REQUEST_TIMEOUT_MS_DEFAULT,
            "fails on the failed attempt, not at the request timeout");
        assertFalse(client.isReady());
    }

    @Test
    void shouldFailWithTimeoutWhenTheNodeDoesNotAnswer() throws Exception
    {
        handler.holdResponses();
        final KafkaNodeClient client = client(NodeClientConfig.defaults("test").withRequestTimeoutMs(300), port);
        assertInstanceOf(TimeoutException.class, failure(client.send(heartbeat())));
    }

    @Test
    void shouldReconnectAfterTheServerComesBack() throws Exception
    {
        final KafkaNodeClient client = client(NodeClientConfig.defaults("test").withReconnectBackoffMs(10, 50), port);
        assertEquals(Errors.NONE, client.<HeartbeatResponse>send(heartbeat()).get(WAIT_S, TimeUnit.SECONDS).error());
        server.close();
        server = new KafkaSocketServer(List.of(new Listener("PLAINTEXT", "127.0.0.1", port)), handler,
            SocketServerConfig.defaults().withNetworkThreads(1));
        server.start();

        HeartbeatResponse response = null;
        for (int attempt = 0; attempt < 100 && response == null; attempt++)
        {
            try
            {
                response = client.<HeartbeatResponse>send(heartbeat()).get(WAIT_S, TimeUnit.SECONDS);
            }
            catch (final ExecutionException e)
            {
                assertInstanceOf(DisconnectException.class, e.getCause());
                Thread.sleep(20);
            }
        }
        assertEquals(Errors.NONE, response.error());
    }

    @Test
    void shouldFailOutstandingRequestsWhenClosed() throws Exception
    {
        handler.holdResponses();
        final KafkaNodeClient client = client(NodeClientConfig.defaults("test"), port);
        final CompletableFuture<HeartbeatResponse> heartbeat = client.send(heartbeat());
        handler.nextReceived(WAIT_S * 1000);
        client.close();
        assertInstanceOf(DisconnectException.class, failure(heartbeat));
        assertInstanceOf(DisconnectException.class, failure(client.send(heartbeat())));
    }

    @Test
    void shouldKeepOneClientPerTargetAndCloseThemAll() throws Exception
    {
        final NodeClients clients = new NodeClients(NodeClientConfig.defaults("broker-0"));
        toClose.add(clients);
        final NodeClient first = clients.get(NODE_ID, "127.0.0.1", port);
        assertSame(first, clients.get(NODE_ID, "127.0.0.1", port));
        assertNotSame(first, clients.get(NODE_ID + 1, "127.0.0.1", port));
        assertEquals(Errors.NONE, first.<HeartbeatResponse>send(heartbeat()).get(WAIT_S, TimeUnit.SECONDS).error());

        handler.holdResponses();
        final CompletableFuture<HeartbeatResponse> pending = first.send(heartbeat());
        clients.close();
        assertInstanceOf(DisconnectException.class, failure(pending));
        assertThrows(IllegalStateException.class, () -> clients.get(NODE_ID, "127.0.0.1", port));
    }
}

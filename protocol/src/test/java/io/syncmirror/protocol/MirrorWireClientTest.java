package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class MirrorWireClientTest
{
    private static final String LOOPBACK = "127.0.0.1";

    private static MirrorWireClient connect(final FakeMirrorBroker broker, final int requestTimeoutMs)
        throws IOException
    {
        return MirrorWireClient.connect(LOOPBACK, broker.port(), "test-client", 2_000, requestTimeoutMs);
    }

    @Test
    void shouldSendAVersionTwoHeaderAndReturnTheDecodedResponse() throws Exception
    {
        final ApiMessage canned = MirrorMessageSamples.response(MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS);
        try (FakeMirrorBroker broker = new FakeMirrorBroker(
                (header, request, socket, out) -> FakeMirrorBroker.reply(out, header, canned));
            MirrorWireClient client = connect(broker, 5_000))
        {
            final ApiMessage request = MirrorMessageSamples.request(MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS);
            final DescribeClusterMirrorsResponseData response = client.send(request,
                DescribeClusterMirrorsResponseData.class);
            assertEquals(canned, response);
            assertEquals(request, broker.requests().get(0));
            final MirrorRequestHeader header = broker.headers().get(0);
            assertEquals(MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS, header.apiKey());
            assertEquals(0, header.apiVersion());
            assertEquals("test-client", header.clientId());
        }
    }

    @Test
    void shouldUseANewCorrelationIdPerRequestOnOneConnection() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults());
            MirrorWireClient client = connect(broker, 5_000))
        {
            for (int i = 0; i < 3; i++)
            {
                client.send(new DeleteClusterMirrorRequestData().setMirrorName("m" + i),
                    DeleteClusterMirrorResponseData.class);
            }
            assertEquals(1, broker.connections());
            final List<Integer> ids = new ArrayList<>();
            broker.headers().forEach(h -> ids.add(h.correlationId()));
            assertEquals(3, ids.stream().distinct().count(), ids.toString());
        }
    }

    @Test
    void shouldFailFastWithTheAddressWhenTheConnectionIsRefused() throws Exception
    {
        final int port;
        try (ServerSocket unused = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            port = unused.getLocalPort();
        }
        final long startNs = System.nanoTime();
        final IOException e = assertThrows(IOException.class,
            () -> MirrorWireClient.connect(LOOPBACK, port, null, 5_000, 5_000));
        assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(3), "refusal must not wait for a timeout");
        assertTrue(e.getMessage().contains("127.0.0.1:" + port), e.getMessage());
        assertTrue(e.getMessage().startsWith("Cannot connect"), e.getMessage());
    }

    @Test
    void shouldNameTheBrokerAndRpcWhenTheBrokerClosesMidRequestAndReconnectOnTheNextSend() throws Exception
    {
        final AtomicInteger seen = new AtomicInteger();
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            {
                if (seen.getAndIncrement() == 0)
                {
                    socket.close();
                }
                else
                {
                    FakeMirrorBroker.reply(out, header, header.apiKey().newResponseData());
                }
            });
            MirrorWireClient client = connect(broker, 5_000))
        {
            final IOException e = assertThrows(IOException.class,
                () -> client.send(new DeleteClusterMirrorRequestData().setMirrorName("m")));
            assertTrue(e.getMessage().contains("127.0.0.1:" + broker.port()), e.getMessage());
            assertTrue(e.getMessage().contains("DeleteClusterMirror"), e.getMessage());
            assertFalse(client.isConnected());

            client.send(new DeleteClusterMirrorRequestData().setMirrorName("m"), DeleteClusterMirrorResponseData.class);
            assertEquals(2, broker.connections());
        }
    }

    @Test
    void shouldRejectAResponseToAnotherRequestAndCloseTheConnection() throws Exception
    {
        final AtomicInteger seen = new AtomicInteger();
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            {
                final int shift = seen.getAndIncrement() == 0 ? 1 : 0;
                final ByteBuffer frame = MirrorMessages.serializeResponse(
                    new MirrorResponseHeader(header.correlationId() + shift), header.apiKey().newResponseData(),
                    (short)0);
                FakeMirrorBroker.writeFrame(out, frame);
            });
            MirrorWireClient client = connect(broker, 5_000))
        {
            final IOException e = assertThrows(IOException.class,
                () -> client.send(new CreateClusterMirrorRequestData().setMirrorName("m")));
            assertTrue(e.getMessage().contains("correlation id"), e.getMessage());
            assertTrue(e.getMessage().contains("CreateClusterMirror"), e.getMessage());
            assertFalse(client.isConnected());
            client.send(new CreateClusterMirrorRequestData().setMirrorName("m"));
        }
    }

    @Test
    void shouldTimeOutAndCloseWhenTheBrokerNeverAnswers() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) -> { });
            MirrorWireClient client = connect(broker, 300))
        {
            final long startNs = System.nanoTime();
            final IOException e = assertThrows(IOException.class,
                () -> client.send(new DescribeClusterMirrorsRequestData()));
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertTrue(elapsedMs >= 250 && elapsedMs < 5_000, elapsedMs + " ms");
            assertTrue(e.getMessage().contains("Timed out after 300 ms"), e.getMessage());
            assertTrue(e.getMessage().contains("DescribeClusterMirrors"), e.getMessage());
            assertTrue(e.getMessage().contains("127.0.0.1:" + broker.port()), e.getMessage());
            assertFalse(client.isConnected());
        }
    }

    @Test
    void shouldRejectAMalformedResponseBodyAsAnIOException() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            {
                final ByteBuffer frame = ByteBuffer.allocate(6);
                new MirrorResponseHeader(header.correlationId()).write(frame);
                frame.put((byte)7);
                FakeMirrorBroker.writeFrame(out, frame.flip());
            });
            MirrorWireClient client = connect(broker, 5_000))
        {
            final IOException e = assertThrows(IOException.class,
                () -> client.send(new DeleteClusterMirrorRequestData()));
            assertTrue(e.getMessage().startsWith("Malformed DeleteClusterMirror response"), e.getMessage());
        }
    }

    @Test
    void shouldRejectAnImpossibleResponseSizeWithoutAllocatingIt() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            {
                out.writeInt(Integer.MAX_VALUE);
                out.flush();
            });
            MirrorWireClient client = connect(broker, 5_000))
        {
            final IOException e = assertThrows(IOException.class,
                () -> client.send(new DeleteClusterMirrorRequestData()));
            assertTrue(e.getMessage().contains("response size"), e.getMessage());
        }
    }

    @Test
    void shouldSerializeConcurrentCallersSoEachGetsItsOwnAnswer() throws Exception
    {
        final CountDownLatch start = new CountDownLatch(1);
        final ExecutorService pool = Executors.newFixedThreadPool(4);
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
                FakeMirrorBroker.reply(out, header, new DeleteClusterMirrorResponseData()
                    .setErrorMessage(((DeleteClusterMirrorRequestData)request).mirrorName())));
            MirrorWireClient client = connect(broker, 5_000))
        {
            final List<Future<Boolean>> results = new ArrayList<>();
            for (int t = 0; t < 4; t++)
            {
                final int thread = t;
                results.add(pool.submit(() ->
                {
                    start.await();
                    for (int i = 0; i < 25; i++)
                    {
                        final String name = "m-" + thread + "-" + i;
                        final DeleteClusterMirrorResponseData response = client.send(
                            new DeleteClusterMirrorRequestData().setMirrorName(name),
                            DeleteClusterMirrorResponseData.class);
                        if (!name.equals(response.errorMessage()))
                        {
                            return false;
                        }
                    }
                    return true;
                }));
            }
            start.countDown();
            for (final Future<Boolean> result : results)
            {
                assertTrue(result.get(15, TimeUnit.SECONDS));
            }
            assertEquals(1, broker.connections());
        }
        finally
        {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldRefuseANonMirrorRequestAndAWrongResponseTypeBeforeSending() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults());
            MirrorWireClient client = connect(broker, 5_000))
        {
            assertThrows(IllegalArgumentException.class, () -> client.send(new MetadataRequestData()));
            assertThrows(IllegalArgumentException.class,
                () -> client.send(new DeleteClusterMirrorRequestData(), CreateClusterMirrorResponseData.class));
            assertTrue(broker.requests().isEmpty());
        }
    }

    @Test
    void shouldFailSendsAfterClose() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults()))
        {
            final MirrorWireClient client = connect(broker, 5_000);
            client.close();
            client.close();
            final IOException e = assertThrows(IOException.class,
                () -> client.send(new DeleteClusterMirrorRequestData()));
            assertTrue(e.getMessage().contains("closed"), e.getMessage());
        }
    }

    @Test
    void shouldParseHostPortIncludingBracketedIpv6()
    {
        assertEquals(new MirrorWireClient.HostPort("broker-1.example", 9092),
            MirrorWireClient.parse("broker-1.example:9092"));
        assertEquals(new MirrorWireClient.HostPort("127.0.0.1", 1), MirrorWireClient.parse(" 127.0.0.1:1 "));
        assertEquals(new MirrorWireClient.HostPort("::1", 65535), MirrorWireClient.parse("[::1]:65535"));
        assertEquals("[::1]:9092", MirrorWireClient.parse("[::1]:9092").toString());
    }

    @Test
    void shouldRejectMalformedHostPortWithAMessageNamingTheInput()
    {
        for (final String bad : new String[] {"", "broker", "broker:", ":9092", "broker:abc", "broker:0",
            "broker:65536", "broker:-1", "::1:9092", "a,b:9092", "a b:9092", "[]:9092"})
        {
            final IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MirrorWireClient.parse(bad), bad);
            assertTrue(e.getMessage().contains("'" + bad + "'") || bad.isEmpty(), e.getMessage());
        }
        assertNull(assertThrows(IllegalArgumentException.class, () -> MirrorWireClient.parse(null)).getCause());
    }
}

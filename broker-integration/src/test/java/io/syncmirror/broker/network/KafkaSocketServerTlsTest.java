package io.syncmirror.broker.network;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.network.ByteBufferSend;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.DefaultRecordsSend;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.server.SecurityConfig;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.WireSecurity;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The socket server's TLS listener, with Kafka's own client channel stack on the other side: handshakes,
 * certificates as principals, refused peers, garbage instead of a handshake, and a response's records sent in
 * chunks through the encryption.
 */
@Timeout(60)
class KafkaSocketServerTlsTest
{
    private static final long WAIT_S = 10;
    private static final int NODE_ID = 1;

    @TempDir
    Path dir;

    private final FakeRequestHandler handler = new FakeRequestHandler()
        .serve(ApiKeys.METADATA, 0, ApiKeys.METADATA.latestVersion(false));
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private KafkaSocketServer server;
    private int port;
    private TestCertificates ca;

    @AfterEach
    void closeAll() throws Exception
    {
        for (final AutoCloseable closeable : toClose)
        {
            closeable.close();
        }
        if (server != null)
        {
            server.close();
        }
    }

    private void startServer(final String clientAuth) throws Exception
    {
        ca = new TestCertificates(dir, "test-ca");
        // Parsed by the broker's own definitions of Kafka's keys, as the broker hands them to the listener.
        final Map<String, String> props = new HashMap<>(ca.sslConfigs(ca.keystore("broker")));
        props.put(BrokerSecurityConfigs.SSL_CLIENT_AUTH_CONFIG, clientAuth);
        final ConfigDef definition = new ConfigDef();
        SecurityConfig.define(definition);
        final Map<String, ?> configs = new AbstractConfig(definition, props, false).values();
        server = new KafkaSocketServer(List.of(new Listener("SSL", "127.0.0.1", 0,
            ListenerSecurity.ssl("SSL", configs))), handler, SocketServerConfig.defaults().withNetworkThreads(1));
        port = server.start().get("SSL").getPort();
        handler.brokers(List.of(new Node(NODE_ID, "127.0.0.1", port)));
    }

    private KafkaNodeClient client(final Map<String, String> ssl)
    {
        final Map<String, Object> security = new HashMap<>(ssl);
        security.put("security.protocol", "SSL");
        final KafkaNodeClient client = KafkaNodeClient.start(new Node(NODE_ID, "127.0.0.1", port),
            NodeClientConfig.defaults("tls-test").withRequestTimeoutMs(5_000), Time.SYSTEM, security);
        toClose.add(client);
        return client;
    }

    private MetadataResponse metadata(final KafkaNodeClient client) throws Exception
    {
        final CompletableFuture<MetadataResponse> response = client.send(new MetadataRequest.Builder(List.of(), false));
        return response.get(WAIT_S, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("over TLS without client authentication a Kafka client is served and its principal is ANONYMOUS")
    void shouldServeTlsClientsAsAnonymousWithoutClientAuthentication() throws Exception
    {
        startServer("none");
        final MetadataResponse response = metadata(client(ca.sslConfigs(null)));
        assertEquals(FakeRequestHandler.CLUSTER_ID, response.clusterId());
        final FakeRequestHandler.Received received = handler.nextReceived(0);
        assertEquals(KafkaPrincipal.ANONYMOUS, received.context().principal());
        assertEquals(SecurityProtocol.SSL, received.context().securityProtocol());
    }

    @Test
    @DisplayName("with ssl.client.auth=required the client's certificate is its principal (Kafka's mapping), and a "
        + "client without one is refused while the listener goes on serving others")
    void shouldTakeTheClientCertificateAsPrincipalAndRefuseClientsWithoutOne() throws Exception
    {
        startServer("required");
        final KafkaNodeClient anonymous = client(ca.sslConfigs(null));
        final CompletableFuture<MetadataResponse> refused = anonymous.send(new MetadataRequest.Builder(List.of(),
            false));
        assertThrows(ExecutionException.class, () -> refused.get(WAIT_S, TimeUnit.SECONDS));
        assertNull(handler.nextReceived(0), "nothing reached the handler from the refused client");

        metadata(client(ca.sslConfigs(ca.keystore("client-app"))));
        assertEquals(new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "CN=client-app"),
            handler.nextReceived(0).context().principal());
    }

    @Test
    @DisplayName("a client that does not trust the listener's certificate fails its handshake; the listener serves "
        + "the next client")
    void shouldFailTheHandshakeOfAClientThatDoesNotTrustTheBroker() throws Exception
    {
        startServer("none");
        final TestCertificates other = new TestCertificates(dir, "other-ca");
        final CompletableFuture<MetadataResponse> refused = client(other.sslConfigs(null)).send(
            new MetadataRequest.Builder(List.of(), false));
        assertThrows(ExecutionException.class, () -> refused.get(WAIT_S, TimeUnit.SECONDS));
        assertEquals(FakeRequestHandler.CLUSTER_ID, metadata(client(ca.sslConfigs(null))).clusterId());
    }

    @Test
    @DisplayName("bytes that are no TLS handshake (a plaintext Kafka request, garbage) close that connection only")
    void shouldCloseAConnectionThatSendsGarbageInsteadOfAHandshake() throws Exception
    {
        startServer("none");
        final byte[] garbage = new byte[4096];
        new SplittableRandom(7).nextBytes(garbage);
        try (Socket socket = new Socket("127.0.0.1", port))
        {
            socket.setSoTimeout((int)TimeUnit.SECONDS.toMillis(WAIT_S));
            final OutputStream out = socket.getOutputStream();
            out.write(garbage);
            out.flush();
            final InputStream in = socket.getInputStream();
            // The server may answer with a TLS alert before it closes; what matters is that it closes.
            final byte[] buffer = new byte[1024];
            int read;
            do
            {
                read = in.read(buffer);
            }
            while (read > 0);
            assertEquals(-1, read, "the connection is closed");
        }
        assertNull(handler.nextReceived(0));
        assertEquals(1, server.failedAuthentications(), "the garbage counted as a failed handshake");
        assertEquals(FakeRequestHandler.CLUSTER_ID, metadata(client(ca.sslConfigs(null))).clusterId());
        assertEquals(1, server.failedAuthentications());
    }

    @Test
    @DisplayName("the mirror RPC client speaks TLS with Kafka's client settings: served when it trusts the listener, "
        + "refused at the handshake when it does not, and a SASL mechanism it does not serve refused before any "
        + "byte is sent")
    void shouldSecureTheMirrorRpcClientWithKafkaClientSettings() throws Exception
    {
        startServer("required");
        final Map<String, Object> settings = new HashMap<>(ca.sslConfigs(ca.keystore("mirror-link")));
        settings.put("security.protocol", "SSL");
        try (MirrorWireClient client = MirrorWireClient.connect("127.0.0.1", port, "tls-test", 5_000, 5_000,
            WireSecurity.forClientConfigs(settings)))
        {
            assertTrue(client.apiVersions().apiKeys().size() > 0, "ApiVersions answered over TLS");
        }

        final Map<String, Object> untrusting =
            new HashMap<>(new TestCertificates(dir, "elsewhere-ca").sslConfigs(null));
        untrusting.put("security.protocol", "SSL");
        final IOException handshake = assertThrows(IOException.class, () -> MirrorWireClient.connect("127.0.0.1",
            port, "tls-test", 5_000, 5_000, WireSecurity.forClientConfigs(untrusting)));
        assertTrue(handshake.getMessage().contains("127.0.0.1:" + port), handshake.getMessage());

        final IOException sasl = assertThrows(IOException.class, () -> MirrorWireClient.connect("127.0.0.1", port,
            "tls-test", 5_000, 5_000, WireSecurity.forClientConfigs(Map.of("security.protocol", "SASL_SSL"))));
        assertTrue(sasl.getMessage().contains("sasl.mechanism=GSSAPI"), sasl.getMessage());
    }

    @Test
    @DisplayName("records in a segment file (Kafka's FileRecords, as a Fetch response sends them) read as chunks "
        + "straight from the file hold their exact bytes, no chunk over CHUNK_BYTES")
    void shouldReadFileRecordsAsChunks() throws Exception
    {
        final SimpleRecord[] records = new SimpleRecord[300];
        final SplittableRandom random = new SplittableRandom(13);
        for (int i = 0; i < records.length; i++)
        {
            final byte[] value = new byte[1000];
            random.nextBytes(value);
            records[i] = new SimpleRecord(value);
        }
        final MemoryRecords memory = MemoryRecords.withRecords(Compression.NONE, records);
        try (FileRecords file = FileRecords.open(dir.resolve("00000000000000000000.log").toFile()))
        {
            file.append(memory);
            file.flush();
            final SendChunks chunks = new SendChunks(new DefaultRecordsSend<>(file));
            final ByteBuffer all = ByteBuffer.allocate(file.sizeInBytes());
            while (!chunks.isEndOfInput())
            {
                final ByteBuf chunk = chunks.readChunk(UnpooledByteBufAllocator.DEFAULT);
                assertTrue(chunk.readableBytes() > 0 && chunk.readableBytes() <= SendChunks.CHUNK_BYTES);
                all.put(chunk.nioBuffer());
                chunk.release();
            }
            assertEquals(memory.buffer(), all.flip(), "the file's bytes, in order");
        }
    }

    @Test
    @DisplayName("a Send read as chunks holds its exact bytes, in order, no chunk over CHUNK_BYTES")
    void shouldReadASendAsChunksOfBoundedSize() throws Exception
    {
        final byte[] body = new byte[3 * SendChunks.CHUNK_BYTES + 1234];
        new SplittableRandom(11).nextBytes(body);
        final SendChunks chunks = new SendChunks(new ByteBufferSend(ByteBuffer.wrap(body)));
        final ByteBufAllocator allocator = UnpooledByteBufAllocator.DEFAULT;
        final ByteBuffer all = ByteBuffer.allocate(body.length);
        int count = 0;
        while (!chunks.isEndOfInput())
        {
            final ByteBuf chunk = chunks.readChunk(allocator);
            assertTrue(chunk.readableBytes() > 0 && chunk.readableBytes() <= SendChunks.CHUNK_BYTES);
            all.put(chunk.nioBuffer());
            chunk.release();
            count++;
        }
        assertNull(chunks.readChunk(allocator));
        assertEquals(4, count);
        assertEquals(body.length, chunks.progress());
        assertArrayEquals(body, all.array());
    }
}

package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link MirrorWireClient}'s Kafka-API side: Fetch v20, ApiVersions and raw requests against a scripted peer. */
@Timeout(20)
class MirrorWireClientKafkaApisTest
{
    private static final short FETCH_V20 = 20;

    /** A peer on 127.0.0.1 answering each request frame with what its script returns; one connection at a time. */
    private static final class ScriptedPeer implements AutoCloseable
    {
        final ServerSocket server;
        final List<RequestHeaderData> headers = new CopyOnWriteArrayList<>();
        final List<ByteBuffer> bodies = new CopyOnWriteArrayList<>();

        ScriptedPeer(final BiFunction<RequestHeaderData, ByteBuffer, ByteBuffer> script) throws IOException
        {
            server = new ServerSocket(0, 5, InetAddress.getLoopbackAddress());
            final Thread thread = new Thread(() -> serve(script), "scripted-peer");
            thread.setDaemon(true);
            thread.start();
        }

        private void serve(final BiFunction<RequestHeaderData, ByteBuffer, ByteBuffer> script)
        {
            while (!server.isClosed())
            {
                try (Socket socket = server.accept())
                {
                    final DataInputStream in = new DataInputStream(socket.getInputStream());
                    final DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    while (true)
                    {
                        final byte[] frame = new byte[in.readInt()];
                        in.readFully(frame);
                        final ByteBuffer buffer = ByteBuffer.wrap(frame);
                        final short key = buffer.getShort(0);
                        final short version = buffer.getShort(2);
                        final RequestHeaderData header = new RequestHeaderData(new ByteBufferAccessor(buffer),
                            ApiKeys.forId(key).requestHeaderVersion(version));
                        headers.add(header);
                        bodies.add(buffer.slice());
                        final ByteBuffer response = script.apply(header, buffer.slice());
                        out.writeInt(response.remaining());
                        out.write(response.array(), response.arrayOffset() + response.position(), response.remaining());
                        out.flush();
                    }
                }
                catch (final IOException e)
                {
                    // The client went away or the peer closed: wait for the next connection.
                }
            }
        }

        @Override
        public void close() throws IOException
        {
            server.close();
        }
    }

    private ScriptedPeer peer;
    private MirrorWireClient client;

    @AfterEach
    void closeAll() throws IOException
    {
        if (client != null)
        {
            client.close();
        }
        if (peer != null)
        {
            peer.close();
        }
    }

    private void start(final BiFunction<RequestHeaderData, ByteBuffer, ByteBuffer> script) throws IOException
    {
        peer = new ScriptedPeer(script);
        client = MirrorWireClient.connect("127.0.0.1", peer.server.getLocalPort(), "wire-test", 2_000, 2_000);
    }

    /** A response frame: a header of {@code headerVersion} with {@code correlationId}, then {@code body} at {@code version}. */
    private static ByteBuffer response(final int correlationId, final short headerVersion, final ApiMessage body,
        final short version)
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ResponseHeaderData header = new ResponseHeaderData().setCorrelationId(correlationId);
        final ByteBuffer buffer = ByteBuffer.allocate(header.size(cache, headerVersion) + body.size(cache, version));
        header.write(new ByteBufferAccessor(buffer), cache, headerVersion);
        body.write(new ByteBufferAccessor(buffer), cache, version);
        return buffer.flip();
    }

    @Test
    void shouldSendFetchV20WithAVersionTwoHeaderAndReadTheV18LayoutResponse() throws Exception
    {
        final FetchResponseData canned = new FetchResponseData().setSessionId(77);
        start((header, body) -> response(header.correlationId(), (short)1, canned, (short)18));
        final Random random = new Random(1);
        final FetchRequestData request = FetchRequestCodecTest.sampleFetch(random);
        final MirrorReplicaInfo info = FetchRequestCodecTest.sampleMirrorReplicaInfo(random);

        assertEquals(canned, client.fetch(request, info, FETCH_V20));

        final RequestHeaderData header = peer.headers.get(0);
        assertEquals(ApiKeys.FETCH.id, header.requestApiKey());
        assertEquals(FETCH_V20, header.requestApiVersion());
        assertEquals("wire-test", header.clientId());
        final FetchRequestCodec.DecodedFetchRequest decoded = FetchRequestCodec.parse(peer.bodies.get(0), FETCH_V20);
        assertEquals(request, decoded.data());
        assertEquals(info, decoded.mirrorReplicaInfo().orElseThrow());
    }

    @Test
    void shouldReadTheApiVersionsResponseUnderAVersionZeroHeader() throws Exception
    {
        final ApiVersionsResponseData canned = new ApiVersionsResponseData();
        canned.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.FETCH.id)
            .setMinVersion((short)4).setMaxVersion(FETCH_V20));
        start((header, body) -> response(header.correlationId(), (short)0, canned, MirrorWireClient.API_VERSIONS_VERSION));

        assertEquals(FETCH_V20, client.apiVersions().apiKeys().find(ApiKeys.FETCH.id).maxVersion());
        assertEquals(ApiKeys.API_VERSIONS.id, peer.headers.get(0).requestApiKey());
    }

    @Test
    void shouldCloseTheConnectionOnAResponseToAnotherRequest() throws Exception
    {
        start((header, body) -> response(header.correlationId() + 1, (short)1, new FetchResponseData(), (short)18));
        final IOException e = assertThrows(IOException.class,
            () -> client.fetch(new FetchRequestData(), null, FETCH_V20));
        assertTrue(e.getMessage().contains("correlation id"), e.getMessage());
        assertFalse(client.isConnected());
    }

    @Test
    void shouldCloseTheConnectionOnAMalformedResponseBody() throws Exception
    {
        start((header, body) ->
        {
            final ByteBuffer frame = ByteBuffer.allocate(4 + 1 + 3);
            frame.putInt(header.correlationId()).put((byte)0).put(new byte[] {(byte)0xFF, (byte)0xFF, (byte)0xFF});
            return frame.flip();
        });
        final IOException e = assertThrows(IOException.class,
            () -> client.fetch(new FetchRequestData(), null, FETCH_V20));
        assertTrue(e.getMessage().startsWith("Malformed Fetch response"), e.getMessage());
        assertFalse(client.isConnected());
    }

    @Test
    void shouldReturnTheRawResponseBodyAfterTheHeader() throws Exception
    {
        start((header, body) -> ByteBuffer.allocate(4 + 1 + 2).putInt(header.correlationId()).put((byte)0)
            .put((byte)7).put((byte)8).flip());
        final ByteBuffer reply = client.sendRaw(ApiKeys.PRODUCE.id, (short)14, ByteBuffer.wrap(new byte[] {1, 2}));
        assertEquals(ByteBuffer.wrap(new byte[] {7, 8}), reply);
        assertEquals(ByteBuffer.wrap(new byte[] {1, 2}), peer.bodies.get(0));
    }
}

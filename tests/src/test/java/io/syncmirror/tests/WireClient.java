package io.syncmirror.tests;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * A blocking Kafka-wire client over a plain socket to 127.0.0.1 that sends any kafka-clients request message at
 * any version, header included, and parses the answer strictly (every byte of the frame consumed). Not
 * thread-safe: one test thread per instance.
 */
final class WireClient implements AutoCloseable
{
    /** An API's advertised version range. */
    record Range(short min, short max)
    {
        @Override
        public String toString()
        {
            return min + ".." + max;
        }
    }

    /** A response as read off the wire: its header's correlation id and the body parsed at the version sent. */
    record Received(int correlationId, AbstractResponse body)
    {
    }

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;
    private int correlationId;

    WireClient(final int port, final int readTimeoutMs) throws IOException
    {
        socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(readTimeoutMs);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
    }

    /** Sends {@code body} as {@code key} v{@code version} and returns the correlation id it carries. */
    int send(final ApiKeys key, final short version, final ApiMessage body) throws IOException
    {
        final RequestHeaderData header = new RequestHeaderData()
            .setRequestApiKey(key.id)
            .setRequestApiVersion(version)
            .setClientId("wire-client")
            .setCorrelationId(++correlationId);
        final ByteBuffer payload = RequestUtils.serialize(header, key.requestHeaderVersion(version), body, version);
        final byte[] frame = new byte[4 + payload.remaining()];
        ByteBuffer.wrap(frame).putInt(payload.remaining()).put(payload);
        out.write(frame);
        out.flush();
        return correlationId;
    }

    /**
     * Sends an already serialized {@code body} under a request header claiming {@code key} v{@code version}, written
     * at {@code headerVersion}: for the versions beyond kafka-clients, whose bodies the protocol codecs write.
     */
    int sendSerialized(final ApiKeys key, final short version, final short headerVersion, final ByteBuffer body)
        throws IOException
    {
        final RequestHeaderData header = new RequestHeaderData()
            .setRequestApiKey(key.id)
            .setRequestApiVersion(version)
            .setClientId("wire-client")
            .setCorrelationId(++correlationId);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final int headerSize = header.size(cache, headerVersion);
        final ByteBuffer frame = ByteBuffer.allocate(4 + headerSize + body.remaining());
        frame.putInt(headerSize + body.remaining());
        header.write(new ByteBufferAccessor(frame), cache, headerVersion);
        frame.put(body.duplicate());
        out.write(frame.array());
        out.flush();
        return correlationId;
    }

    /** Reads one response frame, checks its correlation id and returns the body after a header of {@code headerVersion}. */
    ByteBuffer receiveSerialized(final int expectedCorrelationId, final short headerVersion) throws IOException
    {
        final byte[] payload = new byte[in.readInt()];
        in.readFully(payload);
        final ByteBuffer buffer = ByteBuffer.wrap(payload);
        final ResponseHeader header = ResponseHeader.parse(buffer, headerVersion);
        if (header.correlationId() != expectedCorrelationId)
        {
            throw new IOException("answered with correlation id " + header.correlationId() + ", sent " +
                expectedCorrelationId);
        }
        return buffer.slice();
    }

    /** Reads one response frame and parses it as {@code key} v{@code version}; throws if any byte is left over. */
    Received receive(final ApiKeys key, final short version) throws IOException
    {
        final byte[] payload = new byte[in.readInt()];
        in.readFully(payload);
        final ByteBuffer buffer = ByteBuffer.wrap(payload);
        final ResponseHeader header = ResponseHeader.parse(buffer, key.responseHeaderVersion(version));
        final AbstractResponse body = AbstractResponse.parseResponse(key, new ByteBufferAccessor(buffer), version);
        if (buffer.hasRemaining())
        {
            throw new IOException(buffer.remaining() + " bytes left after the " + key + " v" + version + " response");
        }
        return new Received(header.correlationId(), body);
    }

    /** Sends and receives one request, checking that the answer carries the request's correlation id. */
    AbstractResponse roundTrip(final ApiKeys key, final short version, final ApiMessage body) throws IOException
    {
        final int sent = send(key, version, body);
        final Received received = receive(key, version);
        if (received.correlationId() != sent)
        {
            throw new IOException(key + " v" + version + " answered with correlation id " +
                received.correlationId() + ", sent " + sent);
        }
        return received.body();
    }

    /** The peer's ApiVersions answer (at kafka-clients' highest version), as key id to range, ascending. */
    Map<Short, Range> apiVersions() throws IOException
    {
        final short version = ApiKeys.API_VERSIONS.latestVersion();
        final ApiVersionsResponse response = (ApiVersionsResponse)roundTrip(ApiKeys.API_VERSIONS, version,
            new ApiVersionsRequestData().setClientSoftwareName("wire-client").setClientSoftwareVersion("1.0"));
        if (response.data().errorCode() != Errors.NONE.code())
        {
            throw new IOException("ApiVersions answered " + Errors.forCode(response.data().errorCode()));
        }
        final Map<Short, Range> ranges = new TreeMap<>();
        for (final ApiVersionsResponseData.ApiVersion api : response.data().apiKeys())
        {
            ranges.put(api.apiKey(), new Range(api.minVersion(), api.maxVersion()));
        }
        return ranges;
    }

    /** Whether the peer closed the connection before the read timeout, with no byte sent first. */
    boolean closedByPeer() throws IOException
    {
        try
        {
            return in.read() < 0;
        }
        catch (final EOFException | SocketException e)
        {
            return true;
        }
        catch (final SocketTimeoutException e)
        {
            return false;
        }
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}

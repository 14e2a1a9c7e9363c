package io.syncmirror.broker.network;

import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;

import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;
import org.apache.kafka.common.requests.ResponseHeader;

/**
 * A blocking Kafka-wire test client that writes frames by hand over a plain socket, so tests can send what
 * real clients never would (garbage, oversize prefixes, unknown versions). Not thread-safe.
 */
final class RawKafkaClient implements AutoCloseable
{
    /** A response as read off the wire. */
    record Received(ResponseHeader header, AbstractResponse body)
    {
    }

    private final Socket socket;
    private final OutputStream out;
    private final DataInputStream in;

    RawKafkaClient(final int port, final int readTimeoutMs) throws IOException
    {
        socket = new Socket("127.0.0.1", port);
        socket.setTcpNoDelay(true);
        socket.setSoTimeout(readTimeoutMs);
        out = socket.getOutputStream();
        in = new DataInputStream(socket.getInputStream());
    }

    /** Sends {@code request} with a header of its own key and version. */
    void send(final AbstractRequest request, final int correlationId) throws IOException
    {
        final RequestHeader header = new RequestHeader(request.apiKey(), request.version(), "raw-client", correlationId);
        sendFrame(request.serializeWithHeader(header));
    }

    /** Sends a header claiming {@code key} v{@code version} followed by {@code body} written at {@code bodyVersion}. */
    void sendWithHeader(final ApiKeys key, final short version, final int correlationId, final Message body,
        final short bodyVersion) throws IOException
    {
        final RequestHeaderData header = new RequestHeaderData()
            .setRequestApiKey(key.id)
            .setRequestApiVersion(version)
            .setClientId("raw-client")
            .setCorrelationId(correlationId);
        sendFrame(RequestUtils.serialize(header, key.requestHeaderVersion(version), body, bodyVersion));
    }

    void sendFrame(final ByteBuffer payload) throws IOException
    {
        final ByteBuffer frame = ByteBuffer.allocate(4 + payload.remaining());
        frame.putInt(payload.remaining()).put(payload.duplicate()).flip();
        sendRaw(frame.array());
    }

    void sendRaw(final byte[] bytes) throws IOException
    {
        out.write(bytes);
        out.flush();
    }

    /** Reads one response frame, parsed as {@code key} v{@code version} with that API's response header. */
    Received receive(final ApiKeys key, final short version) throws IOException
    {
        return receive(key, version, key.responseHeaderVersion(version));
    }

    Received receive(final ApiKeys key, final short version, final short headerVersion) throws IOException
    {
        final int size = in.readInt();
        final byte[] payload = new byte[size];
        in.readFully(payload);
        final ByteBuffer buffer = ByteBuffer.wrap(payload);
        final ResponseHeader header = ResponseHeader.parse(buffer, headerVersion);
        final AbstractResponse body = AbstractResponse.parseResponse(key, new ByteBufferAccessor(buffer), version);
        if (buffer.hasRemaining())
        {
            throw new IOException(buffer.remaining() + " bytes left after " + key + " v" + version + " response");
        }
        return new Received(header, body);
    }

    /** Whether the peer closed the connection within the read timeout (no byte arrives before end of stream). */
    boolean closedByPeer() throws IOException
    {
        try
        {
            return in.read() < 0;
        }
        catch (final EOFException e)
        {
            return true;
        }
        catch (final SocketTimeoutException e)
        {
            return false;
        }
        catch (final IOException e)
        {
            // A reset counts as closed: the server may close with unread request bytes in its buffer.
            return true;
        }
    }

    /** Whether nothing arrives within {@code waitMs}; a byte that does arrive is consumed. */
    boolean silent(final int waitMs) throws IOException
    {
        final int timeoutMs = socket.getSoTimeout();
        socket.setSoTimeout(waitMs);
        try
        {
            in.read();
            return false;
        }
        catch (final SocketTimeoutException e)
        {
            return true;
        }
        finally
        {
            socket.setSoTimeout(timeoutMs);
        }
    }

    @Override
    public void close() throws IOException
    {
        socket.close();
    }
}

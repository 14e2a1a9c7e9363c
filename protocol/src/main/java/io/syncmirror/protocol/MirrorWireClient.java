package io.syncmirror.protocol;

import java.io.BufferedOutputStream;
import java.io.Closeable;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.util.Objects;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.ApiMessage;

/**
 * A small blocking client for the mirror RPCs over one plain TCP connection to one broker. Thread-safe: every
 * method is synchronized, so concurrent callers take turns and exactly one request is in flight at a time.
 *
 * <p>It exists because kafka-clients' {@code NetworkClient} refuses to send an api key that its
 * {@code ApiKeys} does not know, and the mirror RPCs use keys 95 and up. It speaks Kafka's framing: each
 * request is an int32 size followed by a version 2 request header and the body, each response an int32 size,
 * a version 1 response header and the body. The version sent is the RPC's latest (every mirror RPC has only
 * version 0). There is no TLS or SASL: it is meant for a cluster's plaintext listener, as the reference broker
 * offers.
 *
 * <p>Failure handling keeps the connection's state simple: a request that times out, a connection that drops,
 * a response with the wrong correlation id or a malformed response closes the socket and throws an
 * {@link IOException} naming the broker and the RPC, because whatever arrives later on that socket can no
 * longer be matched to a request. The next {@link #send} connects again. Errors the broker reports inside a
 * response are not exceptions: they are error codes in the returned data, for the caller to judge.
 */
public final class MirrorWireClient implements Closeable
{
    /** The largest response accepted; Kafka's {@code socket.request.max.bytes} default, to bound allocation. */
    static final int MAX_RESPONSE_BYTES = 100 * 1024 * 1024;

    private final String host;
    private final int port;
    private final String clientId;
    private final int connectTimeoutMs;
    private final int requestTimeoutMs;

    private Socket socket;
    private InputStream in;
    private DataOutputStream out;
    private int nextCorrelationId;
    private boolean closed;

    private MirrorWireClient(final String host, final int port, final String clientId, final int connectTimeoutMs,
        final int requestTimeoutMs)
    {
        this.host = host;
        this.port = port;
        this.clientId = clientId;
        this.connectTimeoutMs = connectTimeoutMs;
        this.requestTimeoutMs = requestTimeoutMs;
    }

    /**
     * Connects to a broker, failing fast if it cannot be reached.
     *
     * @param clientId         the client id sent in every request header, or null for none
     * @param connectTimeoutMs how long to wait for a TCP connection, each time one is made; positive
     * @param requestTimeoutMs how long to wait for the whole response to each request; positive
     * @throws IOException if the host is unknown or the connection fails or times out
     */
    public static MirrorWireClient connect(final String host, final int port, final String clientId,
        final int connectTimeoutMs, final int requestTimeoutMs) throws IOException
    {
        Objects.requireNonNull(host, "host");
        checkPort(port, host + ":" + port);
        if (connectTimeoutMs <= 0 || requestTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("timeouts must be positive, got connect " + connectTimeoutMs
                + " ms and request " + requestTimeoutMs + " ms");
        }
        final MirrorWireClient client = new MirrorWireClient(host, port, clientId, connectTimeoutMs,
            requestTimeoutMs);
        synchronized (client)
        {
            client.ensureConnected();
        }
        return client;
    }

    /**
     * Parses {@code host:port}, where the host may be a name, an IPv4 address or a bracketed IPv6 address
     * ({@code [::1]:9092}).
     *
     * @throws IllegalArgumentException naming the input if it is not of that form or the port is not 1 to 65535
     */
    public static HostPort parse(final String hostPort)
    {
        if (hostPort == null)
        {
            throw new IllegalArgumentException("expected HOST:PORT but got nothing");
        }
        final String trimmed = hostPort.trim();
        final int colon = trimmed.lastIndexOf(':');
        if (colon <= 0 || colon == trimmed.length() - 1)
        {
            throw new IllegalArgumentException("expected HOST:PORT but got '" + hostPort + "'");
        }
        String host = trimmed.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]") && host.length() > 2)
        {
            host = host.substring(1, host.length() - 1);
        }
        else if (host.indexOf(':') >= 0 || host.indexOf('[') >= 0 || host.indexOf(']') >= 0)
        {
            throw new IllegalArgumentException("expected HOST:PORT but got '" + hostPort
                + "' (write an IPv6 address in brackets: [::1]:9092)");
        }
        if (host.isBlank() || host.indexOf(',') >= 0 || host.chars().anyMatch(Character::isWhitespace))
        {
            throw new IllegalArgumentException("expected HOST:PORT but got '" + hostPort + "'");
        }
        final int port;
        try
        {
            port = Integer.parseInt(trimmed.substring(colon + 1));
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException("port of '" + hostPort + "' is not a number");
        }
        checkPort(port, hostPort);
        return new HostPort(host, port);
    }

    private static void checkPort(final int port, final String what)
    {
        if (port < 1 || port > 65535)
        {
            throw new IllegalArgumentException("port of '" + what + "' must be 1 to 65535");
        }
    }

    /**
     * Sends a mirror request and waits for its response.
     *
     * @return the response data, of the class {@link MirrorApiKeys#newResponseData()} gives for the request's key
     * @throws IllegalArgumentException if {@code request} is not a mirror RPC
     * @throws IOException              if the client is closed, the broker cannot be reached, the connection drops,
     *                                  the response does not arrive within the request timeout, or it is malformed
     *                                  or answers another request; the connection is then closed
     */
    public synchronized ApiMessage send(final ApiMessage request) throws IOException
    {
        final MirrorApiKeys key = MirrorApiKeys.forId(request.apiKey());
        if (key == null)
        {
            throw new IllegalArgumentException("api key " + request.apiKey() + " of "
                + request.getClass().getSimpleName() + " is not a mirror RPC");
        }
        if (closed)
        {
            throw new IOException("Cannot send " + key.apiName() + " to " + address() + ": the client is closed");
        }
        final short version = key.latestVersion();
        final int correlationId = nextCorrelationId;
        nextCorrelationId = nextCorrelationId == Integer.MAX_VALUE ? 0 : nextCorrelationId + 1;
        // Encoding errors (a null in a non-nullable field) are the caller's bug: they escape before any I/O.
        final ByteBuffer frame = MirrorMessages.serializeRequest(
            new MirrorRequestHeader(key, version, correlationId, clientId), request);
        ensureConnected();
        final long deadlineNs = System.nanoTime() + requestTimeoutMs * 1_000_000L;
        try
        {
            out.writeInt(frame.remaining());
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
            out.flush();
            final int size = readInt(deadlineNs);
            if (size < 4 || size > MAX_RESPONSE_BYTES)
            {
                throw new IOException("response size " + size + " is outside 4 to " + MAX_RESPONSE_BYTES);
            }
            final byte[] body = new byte[size];
            readFully(body, deadlineNs);
            final ByteBuffer buffer = ByteBuffer.wrap(body);
            final MirrorResponseHeader header = MirrorResponseHeader.parse(buffer);
            if (header.correlationId() != correlationId)
            {
                throw new IOException("response has correlation id " + header.correlationId() + " but the request had "
                    + correlationId);
            }
            return MirrorMessages.parseResponse(key, version, buffer);
        }
        catch (final SocketTimeoutException e)
        {
            disconnect();
            throw new IOException("Timed out after " + requestTimeoutMs + " ms waiting for the " + key.apiName()
                + " response from " + address(), e);
        }
        catch (final EOFException e)
        {
            disconnect();
            throw new IOException("Connection to " + address() + " closed by the broker during " + key.apiName(), e);
        }
        catch (final IOException e)
        {
            disconnect();
            throw new IOException(key.apiName() + " to " + address() + " failed: " + e.getMessage(), e);
        }
        catch (final ApiException e)
        {
            // The codecs signal a malformed response with InvalidRequestException or UnsupportedVersionException.
            disconnect();
            throw new IOException("Malformed " + key.apiName() + " response from " + address() + ": " + e.getMessage(),
                e);
        }
    }

    /**
     * Sends a mirror request and waits for its response, as {@link #send(ApiMessage)}, typed.
     *
     * @throws IllegalArgumentException if {@code type} is not the response class of the request's RPC
     */
    public <T extends ApiMessage> T send(final ApiMessage request, final Class<T> type) throws IOException
    {
        final MirrorApiKeys key = MirrorApiKeys.forId(request.apiKey());
        if (key != null && !type.isInstance(key.newResponseData()))
        {
            throw new IllegalArgumentException(key.apiName() + " is answered by "
                + key.newResponseData().getClass().getSimpleName() + ", not " + type.getSimpleName());
        }
        return type.cast(send(request));
    }

    /** The broker this client talks to, as {@code host:port}. */
    public String address()
    {
        return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
    }

    /** Whether a connection is open now; false after a failure until the next {@link #send}. */
    public synchronized boolean isConnected()
    {
        return socket != null;
    }

    /** Closes the connection; later sends fail. Idempotent. */
    @Override
    public synchronized void close()
    {
        closed = true;
        disconnect();
    }

    private void ensureConnected() throws IOException
    {
        if (socket != null)
        {
            return;
        }
        final Socket s = new Socket();
        try
        {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), connectTimeoutMs);
            in = s.getInputStream();
            out = new DataOutputStream(new BufferedOutputStream(s.getOutputStream()));
            socket = s;
        }
        catch (final UnknownHostException e)
        {
            closeQuietly(s);
            throw new IOException("Cannot connect to " + address() + ": unknown host", e);
        }
        catch (final SocketTimeoutException e)
        {
            closeQuietly(s);
            throw new IOException("Cannot connect to " + address() + ": timed out after " + connectTimeoutMs + " ms",
                e);
        }
        catch (final IOException e)
        {
            closeQuietly(s);
            throw new IOException("Cannot connect to " + address() + ": " + e.getMessage(), e);
        }
    }

    private void disconnect()
    {
        if (socket != null)
        {
            closeQuietly(socket);
            socket = null;
            in = null;
            out = null;
        }
    }

    private static void closeQuietly(final Socket s)
    {
        try
        {
            s.close();
        }
        catch (final IOException e)
        {
            // Nothing to do: the socket is being abandoned either way.
        }
    }

    private int readInt(final long deadlineNs) throws IOException
    {
        final byte[] bytes = new byte[4];
        readFully(bytes, deadlineNs);
        return ByteBuffer.wrap(bytes).getInt();
    }

    /** Reads exactly {@code into.length} bytes, giving up at the deadline rather than per read. */
    private void readFully(final byte[] into, final long deadlineNs) throws IOException
    {
        int read = 0;
        while (read < into.length)
        {
            final long remainingMs = (deadlineNs - System.nanoTime()) / 1_000_000L;
            if (remainingMs <= 0)
            {
                throw new SocketTimeoutException("request timeout");
            }
            socket.setSoTimeout((int)Math.min(Integer.MAX_VALUE, remainingMs));
            final int n = in.read(into, read, into.length - read);
            if (n < 0)
            {
                throw new EOFException("end of stream after " + read + " of " + into.length + " bytes");
            }
            read += n;
        }
    }

    /** A host and port, as {@link #parse} reads them. */
    public record HostPort(String host, int port)
    {
        @Override
        public String toString()
        {
            return host.indexOf(':') >= 0 ? "[" + host + "]:" + port : host + ":" + port;
        }
    }
}

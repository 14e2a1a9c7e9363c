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
import java.util.function.Supplier;

import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ApiVersionsRequestData;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.RequestHeaderData;
import org.apache.kafka.common.message.SaslAuthenticateRequestData;
import org.apache.kafka.common.message.SaslAuthenticateResponseData;
import org.apache.kafka.common.message.SaslHandshakeRequestData;
import org.apache.kafka.common.message.SaslHandshakeResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * A small blocking client for the mirror RPCs, and for the Fetch and Produce versions beyond kafka-clients, over one
 * plain TCP connection to one broker. Thread-safe: every method is synchronized, so concurrent callers take turns
 * and exactly one request is in flight at a time.
 *
 * <p>It exists because kafka-clients' {@code NetworkClient} refuses to send an api key that its
 * {@code ApiKeys} does not know, and the mirror RPCs use keys 95 and up; nor can it send Fetch v19/v20 or Produce
 * v14, which {@link #fetch} and {@link #produce} send through {@link FetchRequestCodec} and
 * {@link KafkaApiExtensions} (a sync mirror fetcher reporting MirrorReplicaInfo, a test negotiating Produce v14),
 * and {@link #sendRaw} sends any request body a caller encoded. It speaks Kafka's framing: each
 * request is an int32 size followed by a version 2 request header and the body, each response an int32 size,
 * a version 1 response header and the body. The version sent is the RPC's latest (every mirror RPC has only
 * version 0). The connection is plaintext or TLS, and logs in with SASL PLAIN or SCRAM after connecting, as its
 * {@link WireSecurity} says (Kafka's client settings).
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

    /** The SASL exchange's versions: the handshake with Kafka-framed tokens, and re-authentication aware tokens. */
    static final short SASL_HANDSHAKE_VERSION = 1;
    static final short SASL_AUTHENTICATE_VERSION = 2;

    /** The ApiVersions version {@link #apiVersions()} sends: the first with features, known to every peer. */
    static final short API_VERSIONS_VERSION = 3;

    private final String host;
    private final int port;
    private final String clientId;
    private final int connectTimeoutMs;
    private final int requestTimeoutMs;
    private final WireSecurity security;

    private Socket socket;
    private InputStream in;
    private DataOutputStream out;
    private int nextCorrelationId;
    private boolean closed;

    private MirrorWireClient(final String host, final int port, final String clientId, final int connectTimeoutMs,
        final int requestTimeoutMs, final WireSecurity security)
    {
        this.security = Objects.requireNonNull(security, "security");
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
        return connect(host, port, clientId, connectTimeoutMs, requestTimeoutMs, WireSecurity.PLAINTEXT);
    }

    /**
     * As above, over a connection secured as {@code security} says (the TLS handshake, if any, within the connect
     * timeout).
     *
     * @throws IOException also when the TLS handshake fails or the security is one this client does not serve
     */
    public static MirrorWireClient connect(final String host, final int port, final String clientId,
        final int connectTimeoutMs, final int requestTimeoutMs, final WireSecurity security) throws IOException
    {
        Objects.requireNonNull(host, "host");
        checkPort(port, host + ":" + port);
        if (connectTimeoutMs <= 0 || requestTimeoutMs <= 0)
        {
            throw new IllegalArgumentException("timeouts must be positive, got connect " + connectTimeoutMs
                + " ms and request " + requestTimeoutMs + " ms");
        }
        final MirrorWireClient client = new MirrorWireClient(host, port, clientId, connectTimeoutMs,
            requestTimeoutMs, security);
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
        checkOpen(key.apiName());
        final short version = key.latestVersion();
        final int correlationId = nextCorrelationId();
        // Encoding errors (a null in a non-nullable field) are the caller's bug: they escape before any I/O.
        final ByteBuffer frame = MirrorMessages.serializeRequest(
            new MirrorRequestHeader(key, version, correlationId, clientId), request);
        final ByteBuffer body = exchange(key.apiName(), frame, correlationId, MirrorResponseHeader.HEADER_VERSION,
            true);
        try
        {
            return MirrorMessages.parseResponse(key, version, body);
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
     * Sends one request of any api key with a body the caller encoded, and returns the response body. The request
     * header is the version Kafka gives the key and version (2 for every flexible version, also for the Fetch and
     * Produce versions beyond kafka-clients), 2 for a key kafka-clients does not know; the response header likewise
     * (1 for flexible versions, 0 for ApiVersions).
     *
     * @param body the request body, from its position to its limit; not consumed
     * @return the response body, positioned after the response header
     * @throws IOException as {@link #send(ApiMessage)}, the connection then being closed
     */
    public synchronized ByteBuffer sendRaw(final short apiKey, final short apiVersion, final ByteBuffer body)
        throws IOException
    {
        return sendRaw(apiKey, apiVersion, body, true);
    }

    /**
     * Sends a Fetch request at {@code version} (up to 20, through {@link FetchRequestCodec}) and reads the response,
     * which has the version 18 layout at versions 19 and 20.
     *
     * @param info the mirror replica info to send at version 20 and above, or null for none; dropped below 20
     */
    public synchronized FetchResponseData fetch(final FetchRequestData request, final MirrorReplicaInfo info, final short version)
        throws IOException
    {
        final ByteBuffer body = FetchRequestCodec.serialize(request, info, version);
        final ByteBuffer response = sendRaw(ApiKeys.FETCH.id, version, body, true);
        return decode(ApiKeys.FETCH, () -> KafkaApiExtensions.parseFetchResponse(response, version));
    }

    /**
     * Sends a Produce request at {@code version} (up to 14, which has the version 13 layout) and reads the
     * response; with acks=0 no response comes and null is returned once the request is written.
     */
    public synchronized ProduceResponseData produce(final ProduceRequestData request, final short version) throws IOException
    {
        final ByteBuffer body = KafkaApiExtensions.serializeProduceRequest(request, version);
        final ByteBuffer response = sendRaw(ApiKeys.PRODUCE.id, version, body, request.acks() != 0);
        if (response == null)
        {
            return null;
        }
        return decode(ApiKeys.PRODUCE, () -> KafkaApiExtensions.parseProduceResponse(response, version));
    }

    /**
     * Asks the broker which versions it serves (ApiVersions v3) and which features it supports and finalized, e.g.
     * whether it serves Fetch v20 and has {@code mirror.sync.version} enabled.
     */
    public synchronized ApiVersionsResponseData apiVersions() throws IOException
    {
        final ApiVersionsRequestData request = new ApiVersionsRequestData()
            .setClientSoftwareName("syncmirror").setClientSoftwareVersion("0.1.0");
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer body = ByteBuffer.allocate(request.size(cache, API_VERSIONS_VERSION));
        request.write(new ByteBufferAccessor(body), cache, API_VERSIONS_VERSION);
        final ByteBuffer response = sendRaw(ApiKeys.API_VERSIONS.id, API_VERSIONS_VERSION, body.flip(), true);
        return decode(ApiKeys.API_VERSIONS, () ->
        {
            final ApiVersionsResponseData data = new ApiVersionsResponseData();
            data.read(new ByteBufferAccessor(response), API_VERSIONS_VERSION);
            return data;
        });
    }

    private synchronized ByteBuffer sendRaw(final short apiKey, final short apiVersion, final ByteBuffer body,
        final boolean expectResponse) throws IOException
    {
        final ApiKeys known = ApiKeys.hasId(apiKey) ? ApiKeys.forId(apiKey) : null;
        final MirrorApiKeys mirror = MirrorApiKeys.forId(apiKey);
        final String apiName = known != null ? known.name : mirror != null ? mirror.apiName() : "api key " + apiKey;
        checkOpen(apiName);
        final short requestHeaderVersion = known != null ? known.requestHeaderVersion(apiVersion)
            : MirrorRequestHeader.HEADER_VERSION;
        final short responseHeaderVersion = known != null ? known.responseHeaderVersion(apiVersion)
            : MirrorResponseHeader.HEADER_VERSION;
        final int correlationId = nextCorrelationId();
        final RequestHeaderData header = new RequestHeaderData().setRequestApiKey(apiKey)
            .setRequestApiVersion(apiVersion).setCorrelationId(correlationId).setClientId(clientId);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer frame = ByteBuffer.allocate(header.size(cache, requestHeaderVersion) + body.remaining());
        header.write(new ByteBufferAccessor(frame), cache, requestHeaderVersion);
        frame.put(body.duplicate()).flip();
        return exchange(apiName + " v" + apiVersion, frame, correlationId, responseHeaderVersion, expectResponse);
    }

    private void checkOpen(final String apiName) throws IOException
    {
        if (closed)
        {
            throw new IOException("Cannot send " + apiName + " to " + address() + ": the client is closed");
        }
    }

    private int nextCorrelationId()
    {
        final int correlationId = nextCorrelationId;
        nextCorrelationId = nextCorrelationId == Integer.MAX_VALUE ? 0 : nextCorrelationId + 1;
        return correlationId;
    }

    /** Decodes a response body, turning a malformed one into an IOException that closes the connection. */
    private synchronized <T> T decode(final ApiKeys key, final Supplier<T> decoder) throws IOException
    {
        try
        {
            return decoder.get();
        }
        catch (final RuntimeException e)
        {
            disconnect();
            throw new IOException("Malformed " + key.name + " response from " + address() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Writes one request frame (without its size prefix) and, if a response is expected, reads the response frame,
     * checks its header's correlation id and returns the body after the header.
     */
    private ByteBuffer exchange(final String apiName, final ByteBuffer frame, final int correlationId,
        final short responseHeaderVersion, final boolean expectResponse) throws IOException
    {
        ensureConnected();
        final long deadlineNs = System.nanoTime() + requestTimeoutMs * 1_000_000L;
        try
        {
            out.writeInt(frame.remaining());
            out.write(frame.array(), frame.arrayOffset() + frame.position(), frame.remaining());
            out.flush();
            if (!expectResponse)
            {
                return null;
            }
            final int size = readInt(deadlineNs);
            if (size < 4 || size > MAX_RESPONSE_BYTES)
            {
                throw new IOException("response size " + size + " is outside 4 to " + MAX_RESPONSE_BYTES);
            }
            final byte[] body = new byte[size];
            readFully(body, deadlineNs);
            final ByteBuffer buffer = ByteBuffer.wrap(body);
            final int responseCorrelationId;
            try
            {
                responseCorrelationId = responseHeaderVersion == 0 ? buffer.getInt()
                    : MirrorResponseHeader.parse(buffer).correlationId();
            }
            catch (final RuntimeException e)
            {
                throw new IOException("malformed response header: " + e.getMessage(), e);
            }
            if (responseCorrelationId != correlationId)
            {
                throw new IOException("response has correlation id " + responseCorrelationId + " but the request had "
                    + correlationId);
            }
            return buffer;
        }
        catch (final SocketTimeoutException e)
        {
            disconnect();
            throw new IOException("Timed out after " + requestTimeoutMs + " ms waiting for the " + apiName
                + " response from " + address(), e);
        }
        catch (final EOFException e)
        {
            disconnect();
            throw new IOException("Connection to " + address() + " closed by the broker during " + apiName, e);
        }
        catch (final IOException e)
        {
            disconnect();
            throw new IOException(apiName + " to " + address() + " failed: " + e.getMessage(), e);
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
        try
        {
            security.refuseIfUnserved();
        }
        catch (final IOException e)
        {
            throw new IOException("Cannot connect to " + address() + ": " + e.getMessage(), e);
        }
        final Socket s = new Socket();
        try
        {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), connectTimeoutMs);
            // A handshake that stalls must not outlive the connect bound; reads set their own timeouts.
            s.setSoTimeout(connectTimeoutMs);
            final Socket secured = security.secure(s, host, port);
            in = secured.getInputStream();
            out = new DataOutputStream(new BufferedOutputStream(secured.getOutputStream()));
            socket = secured;
            if (security.sasl() != null)
            {
                try
                {
                    authenticate(security.sasl());
                }
                catch (final IOException | RuntimeException e)
                {
                    disconnect();
                    throw e;
                }
            }
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

    /**
     * Kafka's SASL exchange on the connection just made: SaslHandshake v1 naming the mechanism, then
     * SaslAuthenticate v2 with the client's tokens until it and the broker are done. A refusal closes the
     * connection and throws with the broker's error.
     */
    private void authenticate(final WireSecurity.SaslLogin login) throws IOException
    {
        final SaslHandshakeRequestData handshake = new SaslHandshakeRequestData().setMechanism(login.mechanism());
        final SaslHandshakeResponseData handshaken = new SaslHandshakeResponseData();
        handshaken.read(new ByteBufferAccessor(sendRaw(ApiKeys.SASL_HANDSHAKE.id, SASL_HANDSHAKE_VERSION,
            serialize(handshake, SASL_HANDSHAKE_VERSION), true)), SASL_HANDSHAKE_VERSION);
        if (handshaken.errorCode() != Errors.NONE.code())
        {
            disconnect();
            throw new IOException("SASL handshake with " + address() + " for " + login.mechanism() + " refused: " +
                Errors.forCode(handshaken.errorCode()) + " (enabled there: " + handshaken.mechanisms() + ")");
        }
        final SaslClient client = security.newSaslClient(host);
        try
        {
            byte[] token = client.hasInitialResponse() ? client.evaluateChallenge(new byte[0]) : new byte[0];
            while (true)
            {
                final SaslAuthenticateResponseData answer = new SaslAuthenticateResponseData();
                answer.read(new ByteBufferAccessor(sendRaw(ApiKeys.SASL_AUTHENTICATE.id, SASL_AUTHENTICATE_VERSION,
                    serialize(new SaslAuthenticateRequestData().setAuthBytes(token), SASL_AUTHENTICATE_VERSION),
                    true)), SASL_AUTHENTICATE_VERSION);
                if (answer.errorCode() != Errors.NONE.code())
                {
                    disconnect();
                    throw new IOException("SASL authentication with " + address() + " failed: " +
                        Errors.forCode(answer.errorCode()) + ": " + answer.errorMessage());
                }
                if (client.isComplete())
                {
                    return;
                }
                token = client.evaluateChallenge(answer.authBytes());
                if (client.isComplete() && (token == null || token.length == 0))
                {
                    // SCRAM: the broker's final message verified; nothing more to send.
                    return;
                }
            }
        }
        catch (final SaslException e)
        {
            disconnect();
            throw new IOException("SASL authentication with " + address() + " failed: " + e.getMessage(), e);
        }
        finally
        {
            client.dispose();
        }
    }

    private static ByteBuffer serialize(final ApiMessage message, final short version)
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer body = ByteBuffer.allocate(message.size(cache, version));
        message.write(new ByteBufferAccessor(body), cache, version);
        return body.flip();
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

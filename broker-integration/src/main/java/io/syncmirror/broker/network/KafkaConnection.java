package io.syncmirror.broker.network;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeCompletionEvent;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.SaslAuthenticateRequest;
import org.apache.kafka.common.requests.SaslHandshakeRequest;
import org.apache.kafka.common.requests.ResponseHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.protocol.FetchRequestCodec;
import io.syncmirror.protocol.KafkaApiExtensions;
import io.syncmirror.protocol.MirrorErrorResponses;
import io.syncmirror.protocol.MirrorMessages;
import io.syncmirror.protocol.MirrorReplicaInfo;
import io.syncmirror.protocol.MirrorRequestHeader;

/**
 * One accepted connection: parses request frames, hands requests to the {@link RequestHandler} and writes
 * the responses back in request order. Not thread-safe except {@link #onComplete}: everything else runs on
 * the connection's event loop, which owns all of its state.
 *
 * <p>Ordering: each parsed request takes a slot at the tail of a FIFO; a response is written only when its
 * slot reaches the head. Handler futures complete on any thread; such a completion marks its slot done (a
 * volatile store) and, unless a drain is already scheduled, queues one drain task on the event loop, so a
 * burst of completions costs one task and one flush. Completions on the event loop itself drain at once; inside
 * a read burst the flush is left to {@code channelReadComplete}, so pipelined requests answered synchronously
 * go out in one write.
 *
 * <p>Back-pressure: at {@code maxInFlight} unanswered requests the connection stops reading and resumes when
 * half of them are answered. Frames already read when the limit is hit are still dispatched, so the bound is
 * soft by at most one socket read.
 *
 * <p>Bad input (size prefix, unparsable header or body, a version kafka-clients has no schema for) closes
 * this connection with one warning. A version kafka-clients cannot parse cannot be answered either: the
 * response would be encoded with the same missing schema, and the client could not decode any other version.
 * The exceptions are the sync-mirroring versions Fetch 19/20 and Produce 14 when the handler serves them
 * ({@link RequestHandler#maxVersionBeyondKafka}): the protocol codecs parse them into kafka-clients' requests at
 * the layout versions 18 and 13, and the responses are written in those layouts under the version's header.
 *
 * <p>A request for an API or a version this node does not advertise also closes the connection, as Kafka 4.4's
 * socket server does ("Received request for disabled api"): clients pick their versions from ApiVersions, so
 * such a request comes from a broken client. The requests read before it are answered first. ApiVersions itself is
 * answered at any version, and the mirror RPCs keep answering an unserved key with UNSUPPORTED_VERSION.
 */
final class KafkaConnection extends ChannelInboundHandlerAdapter
{
    private static final Logger LOG = LoggerFactory.getLogger(KafkaConnection.class);

    private final RequestHandler handler;
    private final ApiVersionsResponder apiVersions;
    private final long connectionId;
    private final String listenerName;
    private final ListenerSecurity security;
    private final AuthenticationMetrics.Listener authentications;
    /** Complete from the start on a listener without SASL; owned by the event loop. */
    private final SaslAuthentication sasl;
    private final int maxInFlight;
    private final AtomicBoolean drainScheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drainScheduled;

    // Owned by the event loop.
    private final ArrayDeque<Slot> slots = new ArrayDeque<>();
    private ChannelHandlerContext ctx;
    private InetAddress clientAddress;
    private String client;
    private boolean reading;
    private boolean unflushed;
    private boolean closed;
    /** ANONYMOUS until a TLS handshake names someone; set before the first request is read. */
    private KafkaPrincipal principal = KafkaPrincipal.ANONYMOUS;
    /** Reads no more and closes once the requests before the one that set it are answered. */
    private boolean closing;

    KafkaConnection(
        final RequestHandler handler,
        final ApiVersionsResponder apiVersions,
        final long connectionId,
        final ListenerSecurity security,
        final int maxInFlight,
        final AuthenticationMetrics.Listener authentications)
    {
        this.authentications = authentications;
        this.handler = handler;
        this.apiVersions = apiVersions;
        this.connectionId = connectionId;
        this.listenerName = security.listenerName();
        this.security = security;
        this.sasl = new SaslAuthentication(security);
        this.maxInFlight = maxInFlight;
    }

    @Override
    public void handlerAdded(final ChannelHandlerContext ctx)
    {
        this.ctx = ctx;
        final SocketAddress remote = ctx.channel().remoteAddress();
        this.clientAddress = remote instanceof InetSocketAddress inet ? inet.getAddress() : null;
        this.client = String.valueOf(remote);
        if (security.protocol() == SecurityProtocol.PLAINTEXT)
        {
            // As Kafka counts them: a plaintext connection is authenticated (as ANONYMOUS) once it is open.
            authentications.succeeded();
        }
    }

    @Override
    public void channelRead(final ChannelHandlerContext ctx, final Object msg)
    {
        reading = true;
        if (!closed && !closing)
        {
            onFrame((ByteBuffer)msg);
        }
    }

    @Override
    public void channelReadComplete(final ChannelHandlerContext ctx)
    {
        reading = false;
        maybeFlush();
    }

    @Override
    public void channelInactive(final ChannelHandlerContext ctx)
    {
        closed = true;
        slots.clear();
        sasl.dispose();
        ctx.fireChannelInactive();
    }

    /**
     * A TLS handshake's outcome: the connection's principal from the peer's certificate (the handshake completes
     * before any request is decrypted, so every request sees it), or a failed handshake logged once; the TLS
     * handler closes the connection.
     */
    @Override
    public void userEventTriggered(final ChannelHandlerContext ctx, final Object event)
    {
        if (event instanceof SslHandshakeCompletionEvent handshake)
        {
            if (handshake.isSuccess())
            {
                principal = security.principal(ctx.pipeline().get(SslHandler.class).engine().getSession(),
                    clientAddress);
                if (security.protocol() == SecurityProtocol.SSL)
                {
                    // On SASL_SSL the login that follows is what authenticates.
                    authentications.succeeded();
                }
            }
            else if (handshake.cause() instanceof java.nio.channels.ClosedChannelException)
            {
                // The peer went away mid-handshake (a client giving up on a connection attempt): no failed login.
                closed = true;
                LOG.debug("Connection {} from {} on listener {} closed during its TLS handshake", connectionId,
                    client, listenerName);
            }
            else
            {
                closed = true;
                authentications.failed();
                LOG.info("TLS handshake failed on connection {} from {} on listener {}: {}", connectionId, client,
                    listenerName, abbreviated(handshake.cause().toString()));
            }
            return;
        }
        ctx.fireUserEventTriggered(event);
    }

    @Override
    public void exceptionCaught(final ChannelHandlerContext ctx, final Throwable cause)
    {
        if (closed)
        {
            // A failed TLS handshake was logged with its cause already.
            ctx.close();
            return;
        }
        if (cause instanceof IOException)
        {
            LOG.debug("Connection {} from {} on listener {}: {}", connectionId, client, listenerName,
                cause.toString());
        }
        else
        {
            LOG.warn("Closing connection {} from {} on listener {}: {}", connectionId, client, listenerName,
                cause.toString());
        }
        closed = true;
        ctx.close();
    }

    /** At most 200 characters of {@code text}: Netty's NotSslRecordException quotes the whole record in hex. */
    private static String abbreviated(final String text)
    {
        return text.length() <= 200 ? text : text.substring(0, 200) + "... (" + text.length() + " characters)";
    }

    /** The largest request frame this connection may send now (smaller before its SASL authentication). */
    int maxFrameBytes(final int maxRequestBytes)
    {
        return sasl.maxFrameBytes(maxRequestBytes);
    }

    /** Closes this connection for input it cannot parse, with one warning. Event loop only. */
    void closeOnBadInput(final ChannelHandlerContext anyCtx, final String reason)
    {
        if (closed)
        {
            return;
        }
        closed = true;
        LOG.warn("Closing connection {} from {} on listener {}: {}", connectionId, client, listenerName,
            reason);
        anyCtx.channel().close();
    }

    /**
     * Closes this connection, with one warning, for a request it will not answer, once every request read before it
     * is answered: they are well-formed, and their answers go out first. Nothing more is read. Event loop only.
     */
    private void closeOnceAnswered(final String reason)
    {
        if (closed || closing)
        {
            return;
        }
        closing = true;
        LOG.warn("Closing connection {} from {} on listener {}: {}", connectionId, client, listenerName, reason);
        ctx.channel().config().setAutoRead(false);
        drain();
    }

    private void onFrame(final ByteBuffer frame)
    {
        if (frame.remaining() >= 2 && MirrorRequestHeader.isMirrorApiKey(MirrorRequestHeader.peekApiKey(frame)))
        {
            if (!sasl.complete())
            {
                authentications.failed();
                closeOnBadInput(ctx, "a mirror request before SASL authentication");
                return;
            }
            onMirrorFrame(frame);
            return;
        }
        final RequestHeader header;
        try
        {
            header = RequestHeader.parse(frame);
        }
        catch (final RuntimeException e)
        {
            closeOnBadInput(ctx, "unparsable request header: " + e);
            return;
        }
        final ApiKeys key = header.apiKey();
        final short version = header.apiVersion();
        if (!sasl.complete() && key != ApiKeys.API_VERSIONS && key != ApiKeys.SASL_HANDSHAKE &&
            key != ApiKeys.SASL_AUTHENTICATE)
        {
            // As Kafka's authenticator: nothing but the SASL exchange is served before it completes.
            authentications.failed();
            closeOnBadInput(ctx, key + " before SASL authentication (correlation id " + header.correlationId() + ")");
            return;
        }
        if (key == ApiKeys.API_VERSIONS && !key.isVersionSupported(version))
        {
            final Slot slot = new Slot(header.correlationId(), key, (short)0, (short)0, null);
            slots.addLast(slot);
            slot.complete(apiVersions.unsupportedVersion(), null);
            afterDispatch();
            return;
        }
        if (!key.isVersionSupported(version))
        {
            if (apiVersions.servesBeyondKafka(key, version))
            {
                onBeyondKafkaFrame(header, frame);
                return;
            }
            closeOnBadInput(ctx, key + " v" + version + " has no schema in this build, so it can be neither " +
                "parsed nor answered (correlation id " + header.correlationId() + ")");
            return;
        }
        final AbstractRequest request;
        try
        {
            request = AbstractRequest.parseRequest(key, version, new ByteBufferAccessor(frame)).request;
        }
        catch (final RuntimeException e)
        {
            closeOnBadInput(ctx, "unparsable " + key + " v" + version + " body (correlation id " +
                header.correlationId() + "): " + e);
            return;
        }

        if (key == ApiKeys.SASL_HANDSHAKE || key == ApiKeys.SASL_AUTHENTICATE)
        {
            onSasl(header, request);
            return;
        }
        if (key != ApiKeys.API_VERSIONS && !apiVersions.serves(key, version))
        {
            // As Kafka's socket server: a client only sends what ApiVersions listed, so anything else is a broken
            // client, answered by closing its connection.
            closeOnceAnswered(apiVersions.maxServed(key) < 0 ?
                "request for api " + key + " v" + version + ", which this node does not serve (correlation id " +
                    header.correlationId() + ")" :
                "request for " + key + " v" + version + ", outside the advertised range [" +
                    apiVersions.minServed(key) + ", " + apiVersions.maxServed(key) + "] (correlation id " +
                    header.correlationId() + ")");
            return;
        }
        final Slot slot = new Slot(header.correlationId(), key, version, version, request);
        slots.addLast(slot);
        if (key == ApiKeys.API_VERSIONS)
        {
            slot.complete(apiVersions.respond((ApiVersionsRequest)request), null);
        }
        else
        {
            dispatch(slot, new RequestContext(header, clientAddress, connectionId, listenerName, Optional.empty(),
                principal(), security.protocol()), request);
        }
        afterDispatch();
    }

    /** Who the connection authenticated as: its SASL identity on a SASL listener, else its certificate's. */
    private KafkaPrincipal principal()
    {
        return security.sasl() != null ? sasl.principal() : principal;
    }

    /**
     * A SaslHandshake or SaslAuthenticate, answered here in turn with the others: a failed step closes the
     * connection once its answer (Kafka's error) is written.
     */
    private void onSasl(final RequestHeader header, final AbstractRequest request)
    {
        final boolean loggedIn = sasl.complete();
        final SaslAuthentication.Outcome outcome = request instanceof SaslHandshakeRequest handshake ?
            sasl.onHandshake(handshake) : sasl.onAuthenticate((SaslAuthenticateRequest)request, clientAddress,
                tlsSession());
        final Slot slot = new Slot(header.correlationId(), header.apiKey(), header.apiVersion(), header.apiVersion(),
            request);
        slots.addLast(slot);
        slot.complete(outcome.response(), null);
        if (outcome.close())
        {
            authentications.failed();
            LOG.info("SASL authentication failed on connection {} from {} on listener {}: {}", connectionId, client,
                listenerName, outcome.reason());
            closeOnceAnswered(outcome.reason());
            return;
        }
        if (!loggedIn && sasl.complete())
        {
            authentications.succeeded();
        }
        afterDispatch();
    }

    private Optional<javax.net.ssl.SSLSession> tlsSession()
    {
        final SslHandler tls = ctx.pipeline().get(SslHandler.class);
        return tls == null ? Optional.empty() : Optional.of(tls.engine().getSession());
    }

    /**
     * A served Fetch v19/v20 or Produce v14 request, which kafka-clients has no schema for: decoded by the protocol
     * codecs into kafka-clients' request at the layout version (Fetch 18, Produce 13), handed over with the header
     * as sent and Fetch v20's MirrorReplicaInfo in the context, and answered in the layout version's encoding. A
     * body the codecs reject closes the connection, as an unparsable body of any version does.
     */
    private void onBeyondKafkaFrame(final RequestHeader header, final ByteBuffer frame)
    {
        final ApiKeys key = header.apiKey();
        final short version = header.apiVersion();
        final short layout = KafkaApiExtensions.layoutVersion(key, version);
        final AbstractRequest request;
        Optional<MirrorReplicaInfo> mirrorReplicaInfo = Optional.empty();
        try
        {
            if (key == ApiKeys.FETCH)
            {
                final FetchRequestCodec.DecodedFetchRequest decoded = FetchRequestCodec.parse(frame, version);
                request = new FetchRequest(decoded.data(), layout);
                mirrorReplicaInfo = decoded.mirrorReplicaInfo();
            }
            else if (key == ApiKeys.PRODUCE)
            {
                request = new ProduceRequest(KafkaApiExtensions.parseProduceRequest(frame, version), layout);
            }
            else
            {
                throw new IllegalStateException("no codec for " + key + " v" + version);
            }
        }
        catch (final RuntimeException e)
        {
            closeOnBadInput(ctx, "unparsable " + key + " v" + version + " body (correlation id " +
                header.correlationId() + "): " + e);
            return;
        }
        final Slot slot = new Slot(header.correlationId(), key, version, layout, request);
        slots.addLast(slot);
        dispatch(slot, new RequestContext(header, clientAddress, connectionId, listenerName, mirrorReplicaInfo,
            principal(), security.protocol()),
            request);
        afterDispatch();
    }

    /**
     * A request of a mirror RPC (an api key kafka-clients does not know). No mirror RPC is served yet: a well-formed
     * request gets its standard error response, UNSUPPORTED_VERSION, on a connection that stays open, as an
     * unserved Kafka API does; a malformed one, or a version without a schema, closes the connection.
     */
    private void onMirrorFrame(final ByteBuffer frame)
    {
        final MirrorRequestHeader header;
        final ApiMessage request;
        try
        {
            header = MirrorRequestHeader.parse(frame);
            if (!header.isApiVersionSupported())
            {
                closeOnBadInput(ctx, header.apiKey().apiName() + " v" + header.apiVersion() + " has no schema in " +
                    "this build (correlation id " + header.correlationId() + ")");
                return;
            }
            request = MirrorMessages.parseRequest(header, frame);
        }
        catch (final RuntimeException e)
        {
            closeOnBadInput(ctx, "unparsable mirror request: " + e);
            return;
        }
        final Slot slot = new Slot(header.correlationId(), null, header.apiVersion(), header.apiVersion(), null);
        slots.addLast(slot);
        final MirrorRequestHandler mirrors = handler.mirrorHandler();
        if (mirrors == null || !mirrors.serves(header.apiKey()))
        {
            final ApiMessage response = MirrorErrorResponses.errorResponse(request, 0,
                Errors.UNSUPPORTED_VERSION.code(), header.apiKey().apiName() + " is not served by this node");
            slot.encoded = MirrorMessages.serializeResponse(header.toResponseHeader(), response, header.apiVersion());
            slot.complete(null, null);
            afterDispatch();
            return;
        }
        CompletableFuture<ApiMessage> future;
        try
        {
            future = mirrors.handle(new RequestContext(null, clientAddress, connectionId, listenerName,
                Optional.empty(), principal(), security.protocol()), header, request);
        }
        catch (final RuntimeException e)
        {
            future = CompletableFuture.failedFuture(e);
        }
        if (future == null)
        {
            future = CompletableFuture.failedFuture(new IllegalStateException("no answer for " +
                header.apiKey().apiName()));
        }
        future.whenComplete((response, error) -> onMirrorComplete(slot, header, request, response, error));
        afterDispatch();
    }

    /** Encodes a mirror RPC's answer (or its error response) into its slot; callable from any thread. */
    private void onMirrorComplete(final Slot slot, final MirrorRequestHeader header, final ApiMessage request,
        final ApiMessage response, final Throwable error)
    {
        ApiMessage answer = response;
        if (error != null || response == null)
        {
            final Throwable cause = error instanceof CompletionException &&
                error.getCause() != null ? error.getCause() : error;
            final Errors code = cause == null ? Errors.UNKNOWN_SERVER_ERROR : Errors.forException(cause);
            if (code == Errors.UNKNOWN_SERVER_ERROR)
            {
                LOG.warn("{} failed on {}", header.apiKey().apiName(), ctx.channel(), cause);
            }
            answer = MirrorErrorResponses.errorResponse(request, 0, code.code(),
                cause == null ? "no response" : cause.getMessage());
        }
        try
        {
            slot.encoded = MirrorMessages.serializeResponse(header.toResponseHeader(), answer, header.apiVersion());
            onComplete(slot, null, null);
        }
        catch (final RuntimeException e)
        {
            onComplete(slot, null, e);
        }
    }

    private void dispatch(final Slot slot, final RequestContext context, final AbstractRequest request)
    {
        final CompletableFuture<AbstractResponse> future;
        try
        {
            future = handler.handle(context, request);
        }
        catch (final RuntimeException e)
        {
            slot.complete(null, e);
            return;
        }
        if (future == null)
        {
            slot.complete(null, new IllegalStateException("handler returned no future for " + request.apiKey()));
            return;
        }
        future.whenComplete((response, error) -> onComplete(slot, response, error));
    }

    private void afterDispatch()
    {
        drain();
        if (slots.size() >= maxInFlight && ctx.channel().config().isAutoRead())
        {
            ctx.channel().config().setAutoRead(false);
        }
    }

    /** Records a handler's answer; callable from any thread. */
    private void onComplete(final Slot slot, final AbstractResponse response, final Throwable error)
    {
        slot.complete(response, error);
        if (ctx.executor().inEventLoop())
        {
            drain();
            if (!reading)
            {
                maybeFlush();
            }
        }
        else if (drainScheduled.compareAndSet(false, true))
        {
            try
            {
                ctx.executor().execute(drainTask);
            }
            catch (final RejectedExecutionException e)
            {
                // The server is shutting down and the connection with it: nobody is left to answer.
                drainScheduled.set(false);
            }
        }
    }

    private void drainScheduled()
    {
        // Cleared before scanning: a completion that sees the flag still set is visible to the scan below.
        drainScheduled.set(false);
        drain();
        maybeFlush();
    }

    private void drain()
    {
        assert ctx.executor().inEventLoop() : "slots are owned by the connection's event loop";
        Slot head;
        while ((head = slots.peekFirst()) != null && head.done)
        {
            slots.pollFirst();
            if (!closed)
            {
                write(head);
            }
        }
        if (closing)
        {
            if (slots.isEmpty() && !closed)
            {
                closed = true;
                unflushed = false;
                // Closed once every answer written before is on the wire, not dropped with the outbound buffer.
                ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            }
            return;
        }
        if (!closed && !ctx.channel().config().isAutoRead() && slots.size() <= maxInFlight / 2)
        {
            ctx.channel().config().setAutoRead(true);
        }
    }

    private void maybeFlush()
    {
        if (unflushed)
        {
            unflushed = false;
            ctx.flush();
        }
    }

    private void write(final Slot slot)
    {
        if (slot.encoded != null)
        {
            final ByteBuf sized = ctx.alloc().buffer(4 + slot.encoded.remaining());
            sized.writeInt(slot.encoded.remaining());
            sized.writeBytes(slot.encoded);
            ctx.write(sized, ctx.voidPromise());
            unflushed = true;
            return;
        }
        AbstractResponse response = slot.response;
        if (slot.error != null)
        {
            response = errorResponse(slot, unwrap(slot.error));
            if (response == null)
            {
                return;
            }
        }
        if (response == null)
        {
            return;
        }
        Object message;
        try
        {
            message = encode(slot, response);
        }
        catch (final RuntimeException e)
        {
            LOG.warn("Connection {}: cannot encode {} v{} response (correlation id {}), answering with its error: {}",
                connectionId, slot.key, slot.version, slot.correlationId, e.toString());
            final AbstractResponse fallback = errorResponse(slot, e);
            if (fallback == null)
            {
                return;
            }
            try
            {
                message = encode(slot, fallback);
            }
            catch (final RuntimeException e2)
            {
                closeOnBadInput(ctx, "cannot encode " + slot.key + " v" + slot.version + " error response: " + e2);
                return;
            }
        }
        ctx.write(message, ctx.voidPromise());
        unflushed = true;
    }

    private AbstractResponse errorResponse(final Slot slot, final Throwable error)
    {
        if (slot.request == null)
        {
            closeOnBadInput(ctx, "no request to answer " + slot.key + " failure: " + error);
            return null;
        }
        try
        {
            return slot.request.getErrorResponse(0, error);
        }
        catch (final RuntimeException e)
        {
            closeOnBadInput(ctx, "cannot build " + slot.key + " error response for " + error + ": " + e);
            return null;
        }
    }

    private Object encode(final Slot slot, final AbstractResponse response)
    {
        // The header follows the version sent; the body, the layout of that version kafka-clients can write.
        final ResponseHeader header = new ResponseHeader(slot.correlationId, slot.key.responseHeaderVersion(slot.version));
        final short layout = slot.layoutVersion;
        if (slot.key == ApiKeys.FETCH || slot.key == ApiKeys.FETCH_SNAPSHOT)
        {
            // Fetch records may be log segment files, a Raft leader's FetchSnapshot chunk a slice of a snapshot
            // file: Kafka's own Send writes them with transferTo, straight to the socket in plaintext; through TLS
            // they must be read into buffers to be encrypted, a chunk at a time.
            final var send = response.toSend(header, layout);
            return security.encrypted() ? new SendChunks(send) : new SendFileRegion(send);
        }
        // Sized first, then written straight into the outgoing buffer: no intermediate heap copy.
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ResponseHeaderData headerData = header.data();
        final int sizeBytes = headerData.size(cache, header.headerVersion()) + response.data().size(cache, layout);
        final ByteBuf out = ctx.alloc().ioBuffer(KafkaFrameDecoder.SIZE_PREFIX_BYTES + sizeBytes);
        try
        {
            out.writeInt(sizeBytes);
            final ByteBufferAccessor writable = new ByteBufferAccessor(out.nioBuffer(out.writerIndex(), sizeBytes));
            headerData.write(writable, cache, header.headerVersion());
            response.data().write(writable, cache, layout);
            if (writable.buffer().hasRemaining())
            {
                throw new IllegalStateException(slot.key + " v" + slot.version + " response wrote " +
                    writable.buffer().position() + " of " + sizeBytes + " sized bytes");
            }
            out.writerIndex(out.writerIndex() + sizeBytes);
            return out;
        }
        catch (final RuntimeException e)
        {
            out.release();
            throw e;
        }
    }

    private static Throwable unwrap(final Throwable error)
    {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException) && cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        return cause;
    }

    /** One request's place in the response order. */
    private static final class Slot
    {
        final int correlationId;
        final ApiKeys key;
        /** The version the client sent, which picks the response header. */
        final short version;
        /** The version whose layout the response body has: {@link #version} unless it is beyond kafka-clients. */
        final short layoutVersion;
        final AbstractRequest request;
        AbstractResponse response;
        /** A response already encoded without its size prefix (the mirror RPCs, which kafka-clients cannot encode). */
        ByteBuffer encoded;
        Throwable error;
        volatile boolean done;

        Slot(final int correlationId, final ApiKeys key, final short version, final short layoutVersion,
            final AbstractRequest request)
        {
            this.correlationId = correlationId;
            this.key = key;
            this.version = version;
            this.layoutVersion = layoutVersion;
            this.request = request;
        }

        void complete(final AbstractResponse response, final Throwable error)
        {
            this.response = response;
            this.error = error;
            // Release: the fields above are visible to whichever thread sees done.
            done = true;
        }
    }
}

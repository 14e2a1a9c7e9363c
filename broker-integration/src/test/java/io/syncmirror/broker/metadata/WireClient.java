package io.syncmirror.broker.metadata;

import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.errors.DisconnectException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.RequestUtils;

import io.syncmirror.broker.network.NodeClient;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.network.RequestHandler;

/**
 * A {@link NodeClient} fake that serializes each request and response to bytes and back at the version both
 * sides support, then calls a {@link RequestHandler} directly: the wire formats are exercised without sockets.
 * Thread-safe.
 */
public final class WireClient implements NodeClient
{
    private final RequestHandler handler;
    private final AtomicInteger correlation = new AtomicInteger();
    private volatile boolean down;

    public WireClient(final RequestHandler handler)
    {
        this.handler = handler;
    }

    /** Makes every later send fail as a lost connection would. */
    public void disconnect()
    {
        down = true;
    }

    @Override
    public <R extends AbstractResponse> CompletableFuture<R> send(final AbstractRequest.Builder<?> builder)
    {
        if (down)
        {
            return CompletableFuture.failedFuture(new DisconnectException("disconnected"));
        }
        final ApiKeys key = builder.apiKey();
        final short version = (short) Math.min(builder.latestAllowedVersion(), handler.maxVersion(key));
        final AbstractRequest built = builder.build(version);
        final RequestHeader header = new RequestHeader(key, version, "wire-client", correlation.incrementAndGet());
        final ByteBuffer requestBytes = built.serializeWithHeader(header);
        final RequestHeader parsedHeader = RequestHeader.parse(requestBytes);
        final AbstractRequest parsed = AbstractRequest.parseRequest(key, version, new ByteBufferAccessor(requestBytes))
            .request;
        final RequestContext context = new RequestContext(parsedHeader, InetAddress.getLoopbackAddress(), 1,
            "PLAINTEXT");
        return handler.handle(context, parsed).thenApply(response ->
        {
            final ByteBuffer responseBytes = RequestUtils.serialize(header.toResponseHeader().data(),
                key.responseHeaderVersion(version), response.data(), version);
            return cast(AbstractResponse.parseResponse(responseBytes, header));
        });
    }

    // The caller names the response type of the request it built, as with the real client.
    @SuppressWarnings("unchecked")
    private static <R extends AbstractResponse> R cast(final AbstractResponse response)
    {
        return (R) response;
    }

    @Override
    public boolean isReady()
    {
        return !down;
    }

    @Override
    public void close()
    {
        down = true;
    }
}

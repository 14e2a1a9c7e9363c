package io.syncmirror.broker.network;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.ApiMessage;

import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.MirrorRequestHeader;

/**
 * What the socket server hands parsed cluster-mirroring requests to (API keys 95 and above, which kafka-clients'
 * classes cannot parse). The server advertises the keys {@link #serves} in ApiVersions, answers the others with
 * UNSUPPORTED_VERSION, and writes the responses in request order with the other responses of the connection.
 * Thread-safety: {@link #handle} is called on the connection's event loop and must not block; its future may
 * complete on any thread. An exceptional completion is answered with the request's error response.
 */
public interface MirrorRequestHandler
{
    /** Whether this node serves the RPC at all. */
    boolean serves(MirrorApiKeys key);

    CompletableFuture<ApiMessage> handle(MirrorRequestHeader header, ApiMessage request);

    /**
     * The same with who sent it ({@code context} has no Kafka request header: a mirror RPC's is
     * {@code header}); a handler that authorizes callers overrides this one.
     */
    default CompletableFuture<ApiMessage> handle(final RequestContext context, final MirrorRequestHeader header,
        final ApiMessage request)
    {
        return handle(header, request);
    }
}

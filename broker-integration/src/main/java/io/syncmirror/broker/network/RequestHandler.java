package io.syncmirror.broker.network;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;

/**
 * What the socket server hands parsed requests to: the broker's API layer.
 *
 * <p>The server answers ApiVersions itself from {@link #maxVersion}/{@link #minVersion}, closes the connection
 * of a request for an API or version outside that range without calling {@link #handle} (as Kafka 4.4 does), and
 * writes responses of one connection in request order whatever order their futures complete in.
 *
 * <p>Thread-safety: {@link #handle} is called on the connection's event loop; the future may be completed on
 * any thread.
 */
public interface RequestHandler
{
    /** The highest version of {@code key} served, or -1 when the API is not served at all. */
    short maxVersion(ApiKeys key);

    /** The lowest version of {@code key} served. */
    short minVersion(ApiKeys key);

    /**
     * The highest version of {@code key} served beyond kafka-clients' highest, or -1 (the default) for none: the
     * sync-mirroring versions Fetch 19/20 and Produce 14, which the socket server decodes with the protocol
     * module's codecs. Honoured only for an API whose {@link #maxVersion} reaches kafka-clients' highest, and capped
     * at what the codecs know. Such a request reaches {@link #handle} as kafka-clients' request at the layout
     * version (Fetch 18, Produce 13), with the version sent in {@code context.header()} and Fetch v20's
     * MirrorReplicaInfo in {@link RequestContext#mirrorReplicaInfo()}; its response is encoded in that layout.
     * While this is -1, those versions are neither advertised nor parsed: a request at one closes its connection,
     * as any version without a schema does.
     */
    default short maxVersionBeyondKafka(final ApiKeys key)
    {
        return -1;
    }

    /**
     * Handles one request. The future completes with the response, or with {@code null} when no response is
     * sent (Produce with acks=0). An exceptional completion is answered with the request's error response
     * for that exception.
     */
    CompletableFuture<AbstractResponse> handle(RequestContext context, AbstractRequest request);

    /** The handler of the cluster-mirroring RPCs, or null when this node serves none of them. */
    default MirrorRequestHandler mirrorHandler()
    {
        return null;
    }
}

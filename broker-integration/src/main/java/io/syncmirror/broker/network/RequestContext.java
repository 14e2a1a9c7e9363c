package io.syncmirror.broker.network;

import java.net.InetAddress;
import java.util.Objects;
import java.util.Optional;

import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;

import io.syncmirror.protocol.MirrorReplicaInfo;

/**
 * Where a request came from: its header, the client's address and the connection it arrived on, and the fields of
 * request versions beyond kafka-clients that its request object cannot hold. Immutable.
 *
 * <p>A Fetch v19/v20 or Produce v14 request reaches the handler as kafka-clients' request at the layout version
 * (Fetch 18, Produce 13: {@code request.version()}), while {@code header.apiVersion()} is the version the client
 * sent, which decides e.g. whether a Produce response may carry the sync-mirroring error codes.
 *
 * @param header            the parsed request header (api key, version as sent, correlation id, client id)
 * @param clientAddress     the peer's address
 * @param connectionId      a broker-unique id of the connection, stable for its lifetime (fetch sessions and
 *                          per-connection state key on it)
 * @param listenerName      the listener the connection was accepted on
 * @param mirrorReplicaInfo a Fetch v20+ request's MirrorReplicaInfo; empty for every other request and when the
 *                          field is at its defaults (nothing reported)
 * @param principal         who the connection authenticated as ({@code ANONYMOUS} on a plaintext listener, the
 *                          certificate's mapped name on a TLS one with client authentication)
 * @param securityProtocol  the security protocol of the listener the connection was accepted on
 */
public record RequestContext(RequestHeader header, InetAddress clientAddress, long connectionId, String listenerName,
    Optional<MirrorReplicaInfo> mirrorReplicaInfo, KafkaPrincipal principal, SecurityProtocol securityProtocol)
{
    public RequestContext
    {
        Objects.requireNonNull(mirrorReplicaInfo, "mirrorReplicaInfo");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(securityProtocol, "securityProtocol");
    }

    /** A context on a plaintext connection. */
    public RequestContext(final RequestHeader header, final InetAddress clientAddress, final long connectionId,
        final String listenerName, final Optional<MirrorReplicaInfo> mirrorReplicaInfo)
    {
        this(header, clientAddress, connectionId, listenerName, mirrorReplicaInfo, KafkaPrincipal.ANONYMOUS,
            SecurityProtocol.PLAINTEXT);
    }

    /** A context on a plaintext connection, without MirrorReplicaInfo. */
    public RequestContext(final RequestHeader header, final InetAddress clientAddress, final long connectionId,
        final String listenerName)
    {
        this(header, clientAddress, connectionId, listenerName, Optional.empty());
    }
}

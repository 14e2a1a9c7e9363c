package io.syncmirror.broker.authorization;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.resource.ResourceType;

import io.syncmirror.broker.network.MirrorRequestHandler;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.MirrorRequestHeader;

/**
 * The cluster-mirroring RPCs behind an authorizer. Until their own permissions (the spec's ALTER on
 * CLUSTER_MIRRORS for operator actions) are in place, every one needs CLUSTER_ACTION on the cluster: brokers and
 * super users may call them, nobody else; a denied call is answered with the RPC's error response,
 * CLUSTER_AUTHORIZATION_FAILED. Thread-safe: stateless.
 */
final class MirrorRpcAuthorization implements MirrorRequestHandler
{
    private final MirrorRequestHandler delegate;
    private final BrokerAuthorizer authorizer;

    MirrorRpcAuthorization(final MirrorRequestHandler delegate, final BrokerAuthorizer authorizer)
    {
        this.delegate = delegate;
        this.authorizer = authorizer;
    }

    @Override
    public boolean serves(final MirrorApiKeys key)
    {
        return delegate.serves(key);
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final MirrorRequestHeader header, final ApiMessage request)
    {
        return CompletableFuture.failedFuture(new ClusterAuthorizationException(header.apiKey().apiName() +
            " without its caller cannot be authorized"));
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final RequestContext context, final MirrorRequestHeader header,
        final ApiMessage request)
    {
        if (!authorizer.authorize(context, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER, "kafka-cluster"))
        {
            return CompletableFuture.failedFuture(new ClusterAuthorizationException(header.apiKey().apiName() +
                " needs CLUSTER_ACTION on the cluster"));
        }
        return delegate.handle(context, header, request);
    }
}

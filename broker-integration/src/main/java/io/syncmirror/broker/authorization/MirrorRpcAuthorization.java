package io.syncmirror.broker.authorization;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.resource.Resource;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.network.MirrorRequestHandler;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.protocol.ClusterMirrorsResource;
import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.MirrorRequestHeader;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;

/**
 * The cluster-mirroring RPCs behind an authorizer, with the permissions of the two spec texts (docs/security.md
 * has the table): an operator's mirror management on the destination (create, delete, add and remove topics,
 * failover, the mirror type) needs ALTER on CLUSTER_MIRRORS ({@link ClusterMirrorsResource}), or CLUSTER_ACTION on
 * the cluster as KIP-1279 has it; describing mirrors DESCRIBE on CLUSTER_MIRRORS (or CLUSTER_ACTION); an operator's
 * {@code --release-sync} on the source ALTER on CLUSTER_MIRRORS; the broker-to-broker RPCs (Register, a
 * destination's Unregister, LastMirroredOffsets, the controller's BumpLeaderEpochs) CLUSTER_ACTION on the cluster.
 * A denied call is answered with the RPC's error response, CLUSTER_AUTHORIZATION_FAILED. Thread-safe: stateless.
 */
final class MirrorRpcAuthorization implements MirrorRequestHandler
{
    /** Kafka's audit logger, where its authorizer records a Kafka request's denial. */
    private static final Logger LOG = LoggerFactory.getLogger("kafka.authorizer.logger");

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
        final String denial = denial(context, header.apiKey(), request);
        if (denial == null)
        {
            return delegate.handle(context, header, request);
        }
        LOG.info("Principal = {} is Denied {} from host = {}: it needs {}", context.principal(),
            header.apiKey().apiName(), context.clientAddress() == null ? "?" : context.clientAddress().getHostAddress(),
            denial);
        return CompletableFuture.failedFuture(new ClusterAuthorizationException(header.apiKey().apiName() + " needs " +
            denial));
    }

    /** What {@code key} needs that the caller lacks, or null when it may call it. */
    String denial(final RequestContext context, final MirrorApiKeys key, final ApiMessage request)
    {
        return switch (key)
        {
            case CREATE_CLUSTER_MIRROR, DELETE_CLUSTER_MIRROR, ADD_TOPICS_TO_MIRROR, REMOVE_TOPICS_FROM_MIRROR,
                ALTER_MIRROR_TOPIC_TYPE -> mirrors(context, AclOperation.ALTER) || cluster(context) ? null :
                "ALTER on " + ClusterMirrorsResource.NAME + " or CLUSTER_ACTION on the cluster";
            case DESCRIBE_CLUSTER_MIRRORS -> mirrors(context, AclOperation.DESCRIBE) || cluster(context) ? null :
                "DESCRIBE on " + ClusterMirrorsResource.NAME + " or CLUSTER_ACTION on the cluster";
            case UNREGISTER_MIRROR_SYNC_TOPIC -> ((UnregisterMirrorSyncTopicRequestData)request).release() ?
                mirrors(context, AclOperation.ALTER) ? null : "ALTER on " + ClusterMirrorsResource.NAME :
                cluster(context) ? null : "CLUSTER_ACTION on the cluster";
            default -> cluster(context) ? null : "CLUSTER_ACTION on the cluster";
        };
    }

    private boolean mirrors(final RequestContext context, final AclOperation operation)
    {
        return authorizer.authorize(context, operation, ResourceType.CLUSTER, ClusterMirrorsResource.NAME);
    }

    private boolean cluster(final RequestContext context)
    {
        return authorizer.authorize(context, AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER,
            Resource.CLUSTER_NAME);
    }
}

package io.syncmirror.broker.mirror;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.network.MirrorRequestHandler;
import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.MirrorErrorResponses;
import io.syncmirror.protocol.MirrorRequestHeader;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;

/**
 * The mirror RPCs a voter's controller listener serves: the controller operations other nodes forward to it
 * ({@link ControllerForwarder}), run here while this node's controller is the active one and answered
 * NOT_CONTROLLER otherwise, at once, so that the forwarder moves on to the next voter. Never forwarded again: two
 * voters that each believed the other active would bounce a request between them until it timed out, as a
 * forwarded CreateTopics once did before the controller listener had its own dispatcher. Describes and
 * LastMirroredOffsets are a broker listener's, and not served here; of AlterMirrorTopicType only the effective
 * type is the controller's, and of Register and Unregister only the registration change a ledger decided. Thread-safety: stateless; any network thread may call it.
 */
final class ControllerListenerMirrorApis implements MirrorRequestHandler
{
    private final int nodeId;
    private final MirrorApis apis;

    ControllerListenerMirrorApis(final int nodeId, final MirrorApis apis)
    {
        this.nodeId = nodeId;
        this.apis = apis;
    }

    @Override
    public boolean serves(final MirrorApiKeys key)
    {
        return switch (key)
        {
            case CREATE_CLUSTER_MIRROR, DELETE_CLUSTER_MIRROR, ADD_TOPICS_TO_MIRROR, REMOVE_TOPICS_FROM_MIRROR,
                BUMP_LEADER_EPOCHS, REGISTER_MIRROR_SYNC_TOPIC, UNREGISTER_MIRROR_SYNC_TOPIC,
                ALTER_MIRROR_TOPIC_TYPE -> true;
            case DESCRIBE_CLUSTER_MIRRORS, LAST_MIRRORED_OFFSETS -> false;
        };
    }

    @Override
    public CompletableFuture<ApiMessage> handle(final MirrorRequestHeader header, final ApiMessage request)
    {
        if (request instanceof AlterMirrorTopicTypeRequestData alter && !alter.effective())
        {
            return CompletableFuture.completedFuture(MirrorErrorResponses.errorResponse(request, 0,
                Errors.INVALID_REQUEST.code(), "a controller listener commits only effective mirror types; send "
                    + "the desired type to a broker listener"));
        }
        if (request instanceof RegisterMirrorSyncTopicRequestData register && !register.registrationChangeOnly() ||
            request instanceof UnregisterMirrorSyncTopicRequestData unregister && !unregister.registrationChangeOnly())
        {
            return CompletableFuture.completedFuture(MirrorErrorResponses.errorResponse(request, 0,
                Errors.INVALID_REQUEST.code(), "a controller listener commits only the registration changes a sync "
                    + "registration ledger decided; send Register and Unregister to a broker listener"));
        }
        if (!apis.localController())
        {
            return CompletableFuture.completedFuture(MirrorErrorResponses.errorResponse(request, 0,
                Errors.NOT_CONTROLLER.code(), "node " + nodeId + " is not the active controller"));
        }
        return apis.handleAsController(request);
    }
}

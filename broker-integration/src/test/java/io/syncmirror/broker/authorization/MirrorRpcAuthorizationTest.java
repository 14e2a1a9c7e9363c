package io.syncmirror.broker.authorization;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.metadata.authorizer.StandardAcl;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.metadata.BrokerMetadataApplier;
import io.syncmirror.broker.metadata.MetadataListener;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.network.MirrorRequestHandler;
import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.protocol.ClusterMirrorsResource;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.MirrorRequestHeader;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The cluster-mirroring RPCs' permission table with Kafka's StandardAuthorizer: an operator with ALTER on
 * CLUSTER_MIRRORS manages mirrors and releases sync registrations, one with DESCRIBE only describes, a broker (or
 * mirror link) with CLUSTER_ACTION runs the broker-to-broker RPCs and, as KIP-1279 has it, mirror management, but
 * releases nothing; anyone else is refused before the handler sees the request.
 */
class MirrorRpcAuthorizationTest
{
    private static int nextId = 1;

    private static MetadataRecord.Acl acl(final ResourceType type, final String name, final String user,
        final AclOperation operation)
    {
        return MetadataRecord.Acl.of(new Uuid(7, nextId++), new StandardAcl(type, name, PatternType.LITERAL,
            "User:" + user, "*", operation, AclPermissionType.ALLOW));
    }

    private static RequestContext as(final String user)
    {
        return new RequestContext(null, InetAddress.getLoopbackAddress(), 1, "EXTERNAL", Optional.empty(),
            new KafkaPrincipal("User", user), SecurityProtocol.SASL_SSL);
    }

    @Test
    @DisplayName("each mirror RPC needs its permission: ALTER or DESCRIBE on CLUSTER_MIRRORS for an operator's, "
        + "CLUSTER_ACTION for a broker's, ALTER on CLUSTER_MIRRORS for --release-sync; a denied call never reaches "
        + "the handler and fails with CLUSTER_AUTHORIZATION_FAILED")
    void shouldAuthorizeEachRpcAsTheSpecSays()
    {
        try (BrokerAuthorizer authorizer = BrokerAuthorizer.create(Map.of("authorizer.class.name",
            BrokerAuthorizer.STANDARD_AUTHORIZER), "c", 1))
        {
            final BrokerMetadataApplier applier = new BrokerMetadataApplier(1, 0, MetadataListener.NONE);
            applier.addImageListener(authorizer);
            final List<MetadataRecord> acls = List.of(
                acl(ResourceType.CLUSTER, ClusterMirrorsResource.NAME, "ops", AclOperation.ALTER),
                acl(ResourceType.CLUSTER, ClusterMirrorsResource.NAME, "viewer", AclOperation.DESCRIBE),
                acl(ResourceType.CLUSTER, "kafka-cluster", "link", AclOperation.CLUSTER_ACTION));
            applier.apply(MetadataRecordCodec.encodeBatch(0, 0, acls), acls.size());
            final List<MirrorApiKeys> handled = new ArrayList<>();
            final MirrorRpcAuthorization rpcs = new MirrorRpcAuthorization(new Recording(handled), authorizer);
            final UnregisterMirrorSyncTopicRequestData release = new UnregisterMirrorSyncTopicRequestData()
                .setRelease(true);
            final UnregisterMirrorSyncTopicRequestData unregister = new UnregisterMirrorSyncTopicRequestData();

            for (final MirrorApiKeys key : List.of(MirrorApiKeys.CREATE_CLUSTER_MIRROR,
                MirrorApiKeys.DELETE_CLUSTER_MIRROR, MirrorApiKeys.ADD_TOPICS_TO_MIRROR,
                MirrorApiKeys.REMOVE_TOPICS_FROM_MIRROR, MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE))
            {
                assertNull(rpcs.denial(as("ops"), key, null), "ops: " + key);
                assertNull(rpcs.denial(as("link"), key, null), "CLUSTER_ACTION (KIP-1279): " + key);
                assertTrue(rpcs.denial(as("viewer"), key, null) != null, "viewer: " + key);
                assertTrue(rpcs.denial(as("nobody"), key, null) != null, "nobody: " + key);
            }
            assertNull(rpcs.denial(as("viewer"), MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS, null));
            assertTrue(rpcs.denial(as("nobody"), MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS, null) != null);
            assertNull(rpcs.denial(as("ops"), MirrorApiKeys.UNREGISTER_MIRROR_SYNC_TOPIC, release));
            assertTrue(rpcs.denial(as("link"), MirrorApiKeys.UNREGISTER_MIRROR_SYNC_TOPIC, release) != null,
                "a release is an operator's act, not a broker's");
            assertNull(rpcs.denial(as("link"), MirrorApiKeys.UNREGISTER_MIRROR_SYNC_TOPIC, unregister));
            assertTrue(rpcs.denial(as("ops"), MirrorApiKeys.UNREGISTER_MIRROR_SYNC_TOPIC, unregister) != null);
            for (final MirrorApiKeys key : List.of(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC,
                MirrorApiKeys.LAST_MIRRORED_OFFSETS, MirrorApiKeys.BUMP_LEADER_EPOCHS))
            {
                assertNull(rpcs.denial(as("link"), key, null), "link: " + key);
                assertTrue(rpcs.denial(as("ops"), key, null) != null, "ops: " + key);
            }

            final MirrorRequestHeader create = new MirrorRequestHeader(MirrorApiKeys.CREATE_CLUSTER_MIRROR,
                (short)0, 1, "test");
            final CompletableFuture<ApiMessage> refused = rpcs.handle(as("viewer"), create,
                new CreateClusterMirrorRequestData());
            final ExecutionException cause = assertThrows(ExecutionException.class, refused::get);
            assertInstanceOf(ClusterAuthorizationException.class, cause.getCause());
            assertTrue(handled.isEmpty(), "a refused call reached the handler");
            rpcs.handle(as("ops"), create, new CreateClusterMirrorRequestData());
            assertEquals(List.of(MirrorApiKeys.CREATE_CLUSTER_MIRROR), handled);
        }
    }

    /** Records what reaches it. */
    private record Recording(List<MirrorApiKeys> handled) implements MirrorRequestHandler
    {
        @Override
        public boolean serves(final MirrorApiKeys key)
        {
            return true;
        }

        @Override
        public CompletableFuture<ApiMessage> handle(final MirrorRequestHeader header, final ApiMessage request)
        {
            handled.add(header.apiKey());
            return CompletableFuture.completedFuture(null);
        }
    }
}

package io.syncmirror.broker.authorization;

import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.RequestHeader;
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
import io.syncmirror.broker.network.RequestContext;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Kafka's StandardAuthorizer as the broker hosts it: its configuration, and ACLs fed from the metadata image. */
class BrokerAuthorizerTest
{
    private static final Map<String, String> CONFIG = Map.of("authorizer.class.name",
        BrokerAuthorizer.STANDARD_AUTHORIZER, "super.users", "User:broker");
    private static final Uuid ACL_ID = new Uuid(1, 2);

    private static RequestContext as(final String user)
    {
        return new RequestContext(new RequestHeader(ApiKeys.PRODUCE, (short)11, "client", 1),
            InetAddress.getLoopbackAddress(), 1, "EXTERNAL", Optional.empty(), new KafkaPrincipal("User", user),
            SecurityProtocol.SASL_SSL);
    }

    private static MetadataRecord.Acl aliceWritesOrders()
    {
        return MetadataRecord.Acl.of(ACL_ID, new StandardAcl(ResourceType.TOPIC, "orders", PatternType.LITERAL,
            "User:alice", "*", AclOperation.WRITE, AclPermissionType.ALLOW));
    }

    private static void apply(final BrokerMetadataApplier applier, final long offset,
        final List<MetadataRecord> records)
    {
        applier.apply(MetadataRecordCodec.encodeBatch(offset, 0, records), offset + records.size());
    }

    @Test
    @DisplayName("authorizer.class.name: none without it, Kafka's StandardAuthorizer with it, any other class "
        + "refused with a ConfigException naming the key")
    void shouldHostOnlyTheStandardAuthorizer()
    {
        assertNull(BrokerAuthorizer.create(Map.of(), "c", 1));
        final ConfigException refused = assertThrows(ConfigException.class, () -> BrokerAuthorizer.create(
            Map.of("authorizer.class.name", "kafka.security.authorizer.AclAuthorizer"), "c", 1));
        assertTrue(refused.getMessage().contains("authorizer.class.name"), refused.getMessage());
    }

    @Test
    @DisplayName("super users pass before the initial load and others wait for it; then the image's ACLs decide, "
        + "and an ACL removed from the image stops allowing")
    void shouldAuthorizeFromTheImagesAcls()
    {
        try (BrokerAuthorizer authorizer = BrokerAuthorizer.create(CONFIG, "c", 1))
        {
            final BrokerMetadataApplier applier = new BrokerMetadataApplier(1, 0, MetadataListener.NONE);
            applier.addImageListener(authorizer);
            assertTrue(authorizer.authorize(as("broker"), AclOperation.CLUSTER_ACTION, ResourceType.CLUSTER,
                "kafka-cluster"), "a super user before the load");
            assertFalse(authorizer.authorize(as("alice"), AclOperation.WRITE, ResourceType.TOPIC, "orders"),
                "anyone else before the load");

            apply(applier, 0, List.of(aliceWritesOrders()));
            assertTrue(authorizer.authorize(as("alice"), AclOperation.WRITE, ResourceType.TOPIC, "orders"));
            assertFalse(authorizer.authorize(as("alice"), AclOperation.WRITE, ResourceType.TOPIC, "payments"));
            assertFalse(authorizer.authorize(as("bob"), AclOperation.WRITE, ResourceType.TOPIC, "orders"));
            assertTrue(authorizer.authorizeAny(as("alice"), AclOperation.WRITE, ResourceType.TOPIC));

            apply(applier, 1, List.of(new MetadataRecord.RemoveAcl(ACL_ID)));
            assertFalse(authorizer.authorize(as("alice"), AclOperation.WRITE, ResourceType.TOPIC, "orders"));
        }
    }
}

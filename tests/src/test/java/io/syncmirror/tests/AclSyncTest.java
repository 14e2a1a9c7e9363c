package io.syncmirror.tests;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.tools.ClusterMirrorsCommand;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mirror ACL sync between two SASL_SSL clusters with Kafka's StandardAuthorizer: ACLs set on the source with
 * Kafka's {@code kafka-acls.sh} appear on the destination, a producer's WRITE is held back while the mirror topic is
 * read-only and is in force after failover, and an ACL removed at the source goes from the destination.
 */
@Timeout(180)
class AclSyncTest
{
    private static final String TOPIC = "orders";
    private static final String AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

    @TempDir
    Path dir;
    private ClusterSecurity security;
    private Path operatorConfig;

    @Test
    @DisplayName("ACLs set with kafka-acls.sh on the source appear on the destination after a sync (READ and the "
        + "group's in force, the producer's WRITE held: TOPIC_AUTHORIZATION_FAILED on the read-only mirror topic); "
        + "the consumer reads the mirror with its group; after failover the producer writes to the new primary; an "
        + "ACL removed at the source is removed from the destination")
    void shouldSyncAclsAndGrantTheProducerAtFailover() throws Exception
    {
        security = ClusterSecurity.saslSsl(dir);
        operatorConfig = ClusterSecurity.write(dir.resolve("operator.properties"), security.operatorConfig());
        final Path linkConfig = ClusterSecurity.write(dir.resolve("link.properties"), security.linkConfig());
        final Map<String, String> sourceBroker = new HashMap<>(security.brokerConfig());
        sourceBroker.put("authorizer.class.name", AUTHORIZER);
        // The mirror link reads the source's topics, groups and ACLs.
        sourceBroker.put("super.users", "User:broker;User:operator;User:mirror-link");
        final Map<String, String> destinationBroker = new HashMap<>(security.brokerConfig());
        destinationBroker.put("authorizer.class.name", AUTHORIZER);
        destinationBroker.put("super.users", "User:broker;User:operator");
        destinationBroker.put("mirror.metadata.refresh.interval.ms", "500");
        try (EmbeddedCluster source = EmbeddedCluster.start(1, sourceBroker);
             EmbeddedCluster destination = EmbeddedCluster.start(1, destinationBroker);
             Admin sourceAdmin = Clients.admin(source.bootstrapServers(), security.clientOverrides());
             Admin destinationAdmin = Clients.admin(destination.bootstrapServers(), security.clientOverrides()))
        {
            for (final Admin admin : List.of(sourceAdmin, destinationAdmin))
            {
                // Users are each cluster's own; ACL sync copies what they may do, not who they are.
                admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion("alice",
                    new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "alice-secret")))
                    .all().get(30, TimeUnit.SECONDS);
            }
            Clients.createTopic(sourceAdmin, TOPIC, 1, (short)1, Map.of());
            acls(source, "--add", "--allow-principal", "User:alice", "--producer", "--topic", TOPIC);
            acls(source, "--add", "--allow-principal", "User:alice", "--consumer", "--topic", TOPIC, "--group",
                "app");
            acls(source, "--add", "--allow-principal", "User:bob", "--operation", "Read", "--topic", TOPIC);
            final Map<String, Object> alice = alice();
            awaitProduce(source.bootstrapServers(), alice);

            mirrorCli("--bootstrap-server", destination.bootstrapServers(), "--command-config",
                operatorConfig.toString(), "--create", "--mirror", "dr", "--source-bootstrap-server",
                source.bootstrapServers(), "--source-config-file", linkConfig.toString(), "--mirror-config",
                "acl.sync.enable=true", "--include", TOPIC);

            final String described = mirrorCli("--bootstrap-server", destination.bootstrapServers(),
                "--command-config", operatorConfig.toString(), "--describe", "--mirror", "dr");
            assertTrue(described.contains("Configs: acl.sync.enable=true"), described);

            final AclBinding aliceRead = topicAcl("User:alice", AclOperation.READ);
            final AclBinding aliceWrite = topicAcl("User:alice", AclOperation.WRITE);
            final AclBinding bobRead = topicAcl("User:bob", AclOperation.READ);
            final AclBinding groupRead = new AclBinding(new ResourcePattern(ResourceType.GROUP, "app",
                PatternType.LITERAL), new AccessControlEntry("User:alice", "*", AclOperation.READ,
                AclPermissionType.ALLOW));
            Clients.awaitCondition(() -> aclsOf(destinationAdmin).containsAll(List.of(aliceRead, bobRead, groupRead)),
                60_000, "the source's ACLs never reached the destination");
            assertFalse(aclsOf(destinationAdmin).contains(aliceWrite), "WRITE on a read-only mirror topic is held");
            final KafkaTools.Output listed = acls(destination, "--list", "--topic", TOPIC);
            assertTrue(listed.out().contains("User:alice") && listed.out().contains("READ"), listed::toString);

            // Not idempotent: with WRITE on no topic here an idempotent producer is refused its producer id first.
            final Map<String, Object> plainProducer = new HashMap<>(alice);
            plainProducer.put("enable.idempotence", "false");
            final ExecutionException refused = assertThrows(ExecutionException.class,
                () -> produce(destination.bootstrapServers(), plainProducer));
            assertInstanceOf(TopicAuthorizationException.class, refused.getCause(), refused.toString());
            assertTrue(readsWithGroup(destination.bootstrapServers(), alice, "app"),
                "alice reads the mirror topic with group app on the destination");

            acls(source, "--remove", "--force", "--allow-principal", "User:bob", "--operation", "Read", "--topic",
                TOPIC);
            Clients.awaitCondition(() -> !aclsOf(destinationAdmin).contains(bobRead), 60_000,
                "an ACL removed at the source stayed on the destination");

            mirrorCli("--bootstrap-server", destination.bootstrapServers(), "--command-config",
                operatorConfig.toString(), "--stop", "--mirror", "dr", "--topics", TOPIC);
            assertTrue(aclsOf(destinationAdmin).contains(aliceWrite), "failover puts the held WRITE in force");
            awaitProduce(destination.bootstrapServers(), alice);
        }
    }

    private static AclBinding topicAcl(final String principal, final AclOperation operation)
    {
        return new AclBinding(new ResourcePattern(ResourceType.TOPIC, TOPIC, PatternType.LITERAL),
            new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW));
    }

    private static Set<AclBinding> aclsOf(final Admin admin)
    {
        try
        {
            return new HashSet<>(admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS));
        }
        catch (final Exception e)
        {
            throw new IllegalStateException(e);
        }
    }

    private static String mirrorCli(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int exit = ClusterMirrorsCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(out, true, StandardCharsets.UTF_8));
        assertEquals(0, exit, () -> String.join(" ", args) + "\n" + out.toString(StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8);
    }

    /** Whether the user, in {@code group}, reads a record of the topic within 30 s and commits it. */
    private static boolean readsWithGroup(final String bootstrap, final Map<String, Object> user, final String group)
    {
        final Map<String, Object> settings = new HashMap<>(user);
        settings.put("group.id", group);
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap, settings))
        {
            consumer.subscribe(List.of(TOPIC));
            final long deadline = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < deadline)
            {
                if (!consumer.poll(Duration.ofMillis(200)).isEmpty())
                {
                    consumer.commitSync();
                    return true;
                }
            }
            return false;
        }
    }

    private Map<String, Object> alice()
    {
        return AuthorizedClients.user(security, "alice", "alice-secret");
    }

    private KafkaTools.Output acls(final EmbeddedCluster cluster, final String... args) throws Exception
    {
        return AuthorizedClients.acls(cluster.bootstrapServers(), operatorConfig, args);
    }

    private static void awaitProduce(final String bootstrap, final Map<String, Object> user)
        throws InterruptedException
    {
        AuthorizedClients.awaitProduce(bootstrap, TOPIC, user);
    }

    private static void produce(final String bootstrap, final Map<String, Object> user) throws Exception
    {
        AuthorizedClients.produce(bootstrap, TOPIC, user);
    }
}

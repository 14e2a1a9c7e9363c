package io.syncmirror.tests;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreatePartitionsResult;
import org.apache.kafka.clients.admin.CreateTopicsResult;
import org.apache.kafka.clients.admin.DescribeConsumerGroupsResult;
import org.apache.kafka.clients.admin.DescribeConfigsResult;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.tools.AclCommand;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.ClusterMirrorsResource;
import io.syncmirror.tools.ClusterMirrorsCommand;
import io.syncmirror.tools.MirrorAclCommand;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kafka's StandardAuthorizer on a 3-node SASL_SSL cluster whose brokers and operator are super users: ACLs set and
 * removed with Kafka's own {@code kafka-acls.sh} ({@link AclCommand}) are kept in the cluster metadata and enforced on
 * every broker, with Kafka's errors for what a principal may not do.
 */
@Timeout(180)
class AuthorizationTest
{
    private static final String TOPIC = "orders";
    private static final String SECRET = "secret";

    @TempDir
    Path dir;
    private ClusterSecurity security;
    private Path operatorConfig;

    @Test
    @DisplayName("ACLs through kafka-acls.sh and StandardAuthorizer: WRITE lets a user produce and its absence is "
        + "TOPIC_AUTHORIZATION_FAILED (CLUSTER_AUTHORIZATION_FAILED for a producer id without WRITE anywhere); "
        + "--consumer lets a group read and commit, a group without READ is GROUP_AUTHORIZATION_FAILED; topics and "
        + "groups a user may not describe stay out of its metadata and lists; CreateTopics and DescribeConfigs of "
        + "allowed and denied topics are split per topic, ListOffsets, CreatePartitions, DescribeGroups and "
        + "OffsetFetch "
        + "answered per resource; ACL and SCRAM admin need the cluster permissions; ALTER on "
        + "CLUSTER_MIRRORS lets a user create and describe a mirror and its absence is CLUSTER_AUTHORIZATION_FAILED; "
        + "a removed ACL stops the producer on every broker")
    void shouldEnforceAclsSetWithKafkasTool() throws Exception
    {
        security = ClusterSecurity.saslSsl(dir);
        final Map<String, String> broker = new HashMap<>(security.brokerConfig());
        broker.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        broker.put("super.users", "User:broker;User:operator");
        operatorConfig = ClusterSecurity.write(dir.resolve("operator.properties"), security.operatorConfig());
        try (EmbeddedCluster cluster = EmbeddedCluster.startWithQuorum(3, 3, broker);
             Admin operator = Clients.admin(cluster.bootstrapServers(), security.clientOverrides()))
        {
            Clients.createTopic(operator, TOPIC, 2, (short)3, Map.of());
            Clients.createTopic(operator, SECRET, 1, (short)3, Map.of());
            operator.alterUserScramCredentials(List.of(
                new UserScramCredentialUpsertion("alice", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512,
                    4096), "alice-secret"),
                new UserScramCredentialUpsertion("bob", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                    "bob-secret"))).all().get(30, TimeUnit.SECONDS);

            acls(cluster, "--add", "--allow-principal", "User:alice", "--operation", "Write", "--topic", TOPIC,
                "--topic", "alice-topic");
            acls(cluster, "--add", "--allow-principal", "User:alice", "--consumer", "--topic", TOPIC, "--group",
                "app");
            acls(cluster, "--add", "--allow-principal", "User:bob", "--operation", "Read", "--topic", TOPIC);
            final KafkaTools.Output listed = acls(cluster, "--list", "--topic", TOPIC);
            assertTrue(listed.out().contains("User:alice") && listed.out().contains("WRITE") &&
                listed.out().contains("User:bob"), listed::toString);

            final Map<String, Object> alice = user("alice", "alice-secret");
            final Map<String, Object> bob = user("bob", "bob-secret");
            awaitProduce(cluster, alice);
            // An idempotent producer with WRITE on no topic at all is refused its producer id, as on Kafka. The
            // producer reports it from send() or from the record's future, whichever comes after the refusal.
            final Exception bobNoId = assertThrows(Exception.class, () -> produce(cluster.bootstrapServers(), bob));
            assertInstanceOf(ClusterAuthorizationException.class, bobNoId.getCause(), bobNoId.toString());
            acls(cluster, "--add", "--allow-principal", "User:bob", "--operation", "Write", "--topic", "bob-topic");
            final ExecutionException bobWrites = assertThrows(ExecutionException.class,
                () -> produce(cluster.bootstrapServers(), bob));
            assertInstanceOf(TopicAuthorizationException.class, bobWrites.getCause(), bobWrites.toString());

            final List<ConsumerRecord<byte[], byte[]>> read = consume(cluster, alice, "app");
            assertTrue(!read.isEmpty(), "alice reads with group app");
            final Exception bobReads = assertThrows(Exception.class, () -> consume(cluster, bob, "bob-app"));
            assertInstanceOf(GroupAuthorizationException.class, bobReads, bobReads.toString());
            // ListGroups: every group to the operator, none that bob may not describe.
            assertTrue(groups(operator).contains("app"));
            try (Admin asBob = Clients.admin(cluster.bootstrapServers(), bob))
            {
                assertTrue(!groups(asBob).contains("app"), "bob may not describe group app");
            }

            try (Admin asAlice = Clients.admin(cluster.bootstrapServers(), alice))
            {
                final Set<String> visible = asAlice.listTopics().names().get(30, TimeUnit.SECONDS);
                assertEquals(Set.of(TOPIC), visible, "alice describes only " + TOPIC);
                final ExecutionException aclDenied = assertThrows(ExecutionException.class, () -> asAlice
                    .createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, SECRET,
                        PatternType.LITERAL), new AccessControlEntry("User:alice", "*", AclOperation.READ,
                        AclPermissionType.ALLOW)))).all().get(30, TimeUnit.SECONDS));
                assertInstanceOf(ClusterAuthorizationException.class, aclDenied.getCause(), aclDenied.toString());
                final ExecutionException scramDenied = assertThrows(ExecutionException.class, () -> asAlice
                    .describeUserScramCredentials().all().get(30, TimeUnit.SECONDS));
                assertInstanceOf(ClusterAuthorizationException.class, scramDenied.getCause(),
                    scramDenied.toString());
            }

            mixedAdminRequests(cluster, alice);
            perResourceAnswers(cluster, operator, alice);
            mirrorPermissions(cluster);

            acls(cluster, "--remove", "--force", "--allow-principal", "User:alice", "--operation", "Write",
                "--topic", TOPIC);
            for (int node = 1; node <= 3; node++)
            {
                final String only = "127.0.0.1:" + cluster.port(node);
                Clients.awaitCondition(() ->
                {
                    try
                    {
                        produce(only, alice);
                        return false;
                    }
                    catch (final Exception e)
                    {
                        return e.getCause() instanceof TopicAuthorizationException;
                    }
                }, 30_000, "alice's WRITE is still honoured by broker " + node);
            }
        }
    }

    /**
     * Admin requests naming resources alice may and may not use are split as Kafka splits them: one CreateTopics of
     * two topics creates the one she may create and answers TOPIC_AUTHORIZATION_FAILED for the other; one
     * DescribeConfigs of two topics describes the one she may describe.
     */
    private void mixedAdminRequests(final EmbeddedCluster cluster, final Map<String, Object> alice) throws Exception
    {
        acls(cluster, "--add", "--allow-principal", "User:alice", "--operation", "Create", "--topic", "alice-new");
        acls(cluster, "--add", "--allow-principal", "User:alice", "--operation", "DescribeConfigs", "--topic", TOPIC);
        try (Admin asAlice = Clients.admin(cluster.bootstrapServers(), alice))
        {
            final CreateTopicsResult created = asAlice.createTopics(List.of(new NewTopic("alice-new", 1, (short)3),
                new NewTopic("alice-forbidden", 1, (short)3)));
            created.values().get("alice-new").get(30, TimeUnit.SECONDS);
            final ExecutionException forbidden = assertThrows(ExecutionException.class,
                () -> created.values().get("alice-forbidden").get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, forbidden.getCause(), forbidden.toString());

            final ConfigResource orders = new ConfigResource(ConfigResource.Type.TOPIC, TOPIC);
            final ConfigResource secret = new ConfigResource(ConfigResource.Type.TOPIC, SECRET);
            final DescribeConfigsResult described = asAlice.describeConfigs(List.of(orders, secret));
            assertTrue(described.values().get(orders).get(30, TimeUnit.SECONDS).entries().size() > 0);
            final ExecutionException hidden = assertThrows(ExecutionException.class,
                () -> described.values().get(secret).get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, hidden.getCause(), hidden.toString());
        }
    }

    /**
     * Reads and changes that name resources alice may and may not use are answered per resource, as Kafka answers
     * them: ListOffsets and CreatePartitions per topic, DescribeGroups and OffsetFetch per group (OffsetFetch's
     * all-topics form leaves out the topics she may not describe).
     */
    private void perResourceAnswers(final EmbeddedCluster cluster, final Admin operator,
        final Map<String, Object> alice) throws Exception
    {
        acls(cluster, "--add", "--allow-principal", "User:alice", "--operation", "Alter", "--topic", "alice-new");
        try (Admin asAlice = Clients.admin(cluster.bootstrapServers(), alice))
        {
            final TopicPartition orders = new TopicPartition(TOPIC, 0);
            final TopicPartition secret = new TopicPartition(SECRET, 0);
            final TopicPartition orders1 = new TopicPartition(TOPIC, 1);
            final ListOffsetsResult offsets = asAlice.listOffsets(Map.of(orders, OffsetSpec.latest(), orders1,
                OffsetSpec.latest(), secret, OffsetSpec.latest()));
            // Her records went to one partition or both, as the producer's partitioner chose.
            assertTrue(offsets.partitionResult(orders).get(30, TimeUnit.SECONDS).offset()
                + offsets.partitionResult(orders1).get(30, TimeUnit.SECONDS).offset() > 0);
            final ExecutionException hiddenOffsets = assertThrows(ExecutionException.class,
                () -> offsets.partitionResult(secret).get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, hiddenOffsets.getCause(), hiddenOffsets.toString());

            final CreatePartitionsResult grown = asAlice.createPartitions(Map.of("alice-new",
                NewPartitions.increaseTo(2), SECRET, NewPartitions.increaseTo(2)));
            grown.values().get("alice-new").get(30, TimeUnit.SECONDS);
            final ExecutionException notGrown = assertThrows(ExecutionException.class,
                () -> grown.values().get(SECRET).get(30, TimeUnit.SECONDS));
            assertInstanceOf(TopicAuthorizationException.class, notGrown.getCause(), notGrown.toString());

            final DescribeConsumerGroupsResult described = asAlice.describeConsumerGroups(List.of("app", "bob-app"));
            assertEquals("app", described.describedGroups().get("app").get(30, TimeUnit.SECONDS).groupId());
            final ExecutionException hiddenGroup = assertThrows(ExecutionException.class,
                () -> described.describedGroups().get("bob-app").get(30, TimeUnit.SECONDS));
            assertInstanceOf(GroupAuthorizationException.class, hiddenGroup.getCause(), hiddenGroup.toString());

            operator.alterConsumerGroupOffsets("app", Map.of(secret, new OffsetAndMetadata(0))).all()
                .get(30, TimeUnit.SECONDS);
            final Map<TopicPartition, OffsetAndMetadata> committed = asAlice.listConsumerGroupOffsets("app")
                .partitionsToOffsetAndMetadata().get(30, TimeUnit.SECONDS);
            assertEquals(Set.of(TOPIC), committed.keySet().stream().map(TopicPartition::topic)
                .collect(java.util.stream.Collectors.toSet()), "the offsets of the topics she may describe only");
            assertTrue(operator.listConsumerGroupOffsets("app").partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS).containsKey(secret));
        }
    }

    /**
     * The mirror RPCs' permissions: ALTER on CLUSTER_MIRRORS, granted with syncmirror-mirror-acls.sh, lets alice
     * create and describe a mirror with the mirror CLI; bob, without it, is refused both.
     */
    private void mirrorPermissions(final EmbeddedCluster cluster) throws Exception
    {
        final ByteArrayOutputStream granted = new ByteArrayOutputStream();
        final ByteArrayOutputStream grantErrors = new ByteArrayOutputStream();
        assertEquals(0, MirrorAclCommand.run(new String[] {"--bootstrap-server", cluster.bootstrapServers(),
            "--command-config", operatorConfig.toString(), "--add", "--allow-principal", "User:alice", "--operation",
            "Alter"}, new PrintStream(granted, true, StandardCharsets.UTF_8),
            new PrintStream(grantErrors, true, StandardCharsets.UTF_8)), grantErrors::toString);
        assertTrue(granted.toString(StandardCharsets.UTF_8).contains("User:alice ALLOW ALTER"), granted::toString);
        final KafkaTools.Output listed = acls(cluster, "--list");
        assertTrue(listed.out().contains(ClusterMirrorsResource.NAME), listed::toString);

        final Path aliceConfig = ClusterSecurity.write(dir.resolve("alice.properties"), strings(user("alice",
            "alice-secret")));
        final Path bobConfig = ClusterSecurity.write(dir.resolve("bob.properties"), strings(user("bob",
            "bob-secret")));
        final String created = mirrorCli(0, "--bootstrap-server", cluster.bootstrapServers(), "--command-config",
            aliceConfig.toString(), "--create", "--mirror", "dr", "--source-bootstrap-server", "127.0.0.1:9");
        assertTrue(!created.contains("Error"), created);
        mirrorCli(0, "--bootstrap-server", cluster.bootstrapServers(), "--command-config", aliceConfig.toString(),
            "--describe", "--mirror", "dr");
        final String refused = mirrorCli(-1, "--bootstrap-server", cluster.bootstrapServers(), "--command-config",
            bobConfig.toString(), "--create", "--mirror", "dr-bob", "--source-bootstrap-server", "127.0.0.1:9");
        assertTrue(refused.contains("CLUSTER_AUTHORIZATION_FAILED") || refused.contains("authoriz"), refused);
        final String hidden = mirrorCli(-1, "--bootstrap-server", cluster.bootstrapServers(), "--command-config",
            bobConfig.toString(), "--describe", "--mirror", "dr");
        assertTrue(hidden.contains("CLUSTER_AUTHORIZATION_FAILED") || hidden.contains("authoriz"), hidden);
    }

    private static Set<String> groups(final Admin admin) throws Exception
    {
        final Set<String> out = new java.util.HashSet<>();
        admin.listGroups().all().get(30, TimeUnit.SECONDS).forEach(g -> out.add(g.groupId()));
        return out;
    }

    /** Runs the mirror CLI in this JVM; {@code expectedExit} -1 means any failure. Returns what it printed. */
    private static String mirrorCli(final int expectedExit, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final int exit = ClusterMirrorsCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(out, true, StandardCharsets.UTF_8));
        final String printed = out.toString(StandardCharsets.UTF_8);
        assertTrue(expectedExit < 0 ? exit != 0 : exit == expectedExit, () -> "exit " + exit + ": " +
            String.join(" ", args) + "\n" + printed);
        return printed;
    }

    private static Map<String, String> strings(final Map<String, Object> settings)
    {
        final Map<String, String> out = new HashMap<>();
        settings.forEach((k, v) -> out.put(k, String.valueOf(v)));
        return out;
    }

    /** Subscribes with {@code group}, reads until it has records, commits them; throws what the consumer throws. */
    private static List<ConsumerRecord<byte[], byte[]>> consume(final EmbeddedCluster cluster,
        final Map<String, Object> user, final String group)
    {
        final Map<String, Object> settings = new HashMap<>(user);
        settings.put("group.id", group);
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), settings))
        {
            consumer.subscribe(List.of(TOPIC));
            final List<ConsumerRecord<byte[], byte[]>> records = new java.util.ArrayList<>();
            final long deadline = System.currentTimeMillis() + 30_000;
            while (records.isEmpty() && System.currentTimeMillis() < deadline)
            {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            consumer.commitSync();
            return records;
        }
    }

    private KafkaTools.Output acls(final EmbeddedCluster cluster, final String... args) throws Exception
    {
        return AuthorizedClients.acls(cluster.bootstrapServers(), operatorConfig, args);
    }

    private Map<String, Object> user(final String name, final String password)
    {
        return AuthorizedClients.user(security, name, password);
    }

    private static void awaitProduce(final EmbeddedCluster cluster, final Map<String, Object> user)
        throws InterruptedException
    {
        AuthorizedClients.awaitProduce(cluster.bootstrapServers(), TOPIC, user);
    }

    private static void produce(final String bootstrap, final Map<String, Object> user) throws Exception
    {
        AuthorizedClients.produce(bootstrap, TOPIC, user);
    }
}

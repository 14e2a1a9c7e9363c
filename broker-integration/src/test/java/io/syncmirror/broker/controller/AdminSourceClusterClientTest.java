package io.syncmirror.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.ServerSocket;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.metadata.MirrorDefinition;

/** The Admin-based source client against a one-broker cluster of the reference broker acting as the source. */
@Timeout(120)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class AdminSourceClusterClientTest
{
    private EmbeddedCluster source;
    private Admin admin;
    private AdminSourceClusterClient client;

    @BeforeAll
    void start()
    {
        source = EmbeddedCluster.start(1, EmbeddedCluster.memoryStorage());
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, source.bootstrapServers());
        admin = Admin.create(props);
        client = new AdminSourceClusterClient(new MirrorDefinition("m", source.bootstrapServers(),
            Map.of("client.id", "source-client-test"), List.of(".*"), List.of()), 10_000);
    }

    @AfterAll
    void stop()
    {
        if (client != null)
        {
            client.close();
        }
        if (admin != null)
        {
            admin.close();
        }
        if (source != null)
        {
            source.close();
        }
    }

    @Test
    void shouldListAndDescribeSourceTopicsWithIdsPartitionsAndDynamicConfigs() throws Exception
    {
        admin.createTopics(List.of(
            new NewTopic("orders", 3, (short) 1).configs(Map.of("retention.ms", "86400000")),
            new NewTopic("risky", 1, (short) 1).configs(Map.of("unclean.leader.election.enable", "true"))))
            .all().get(30, TimeUnit.SECONDS);
        final Uuid ordersId = admin.describeTopics(List.of("orders")).allTopicNames().get().get("orders").topicId();

        assertTrue(client.listTopics().containsAll(List.of("orders", "risky")));
        final Map<String, SourceClusterClient.SourceTopic> described =
            client.describeTopics(List.of("orders", "risky", "absent"));
        assertFalse(described.containsKey("absent"), "topics unknown at the source are left out");
        final SourceClusterClient.SourceTopic orders = described.get("orders");
        assertEquals(ordersId, orders.topicId());
        assertEquals(3, orders.partitions());
        assertEquals(Map.of("retention.ms", "86400000"), orders.configs(), "only the topic's own overrides");
        assertFalse(orders.uncleanLeaderElectionEnable());
        assertTrue(described.get("risky").uncleanLeaderElectionEnable());
    }

    @Test
    void shouldReadCommittedOffsetsOfAGroup() throws Exception
    {
        admin.createTopics(List.of(new NewTopic("consumed", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
        final TopicPartition tp = new TopicPartition("consumed", 1);
        admin.alterConsumerGroupOffsets("g1", Map.of(tp, new OffsetAndMetadata(42, "meta")))
            .all().get(30, TimeUnit.SECONDS);
        final Map<TopicPartition, OffsetAndMetadata> offsets = client.listConsumerGroupOffsets("g1");
        assertEquals(42, offsets.get(tp).offset());
        assertFalse(client.listTopics().stream().anyMatch(t -> t.startsWith("__")), "internal topics are not listed");
        // A source without ListGroups (the reference broker serves no group listing) is named, not a timeout.
        try
        {
            assertTrue(client.listConsumerGroups().contains("g1"));
        }
        catch (final org.apache.kafka.common.errors.UnsupportedVersionException e)
        {
            assertTrue(e.getMessage().contains(source.bootstrapServers()), e.getMessage());
        }
    }

    @Test
    @DisplayName("AM-01 the manager over a real source creates the mirror topic with the source's id and configs")
    void shouldLetTheManagerMirrorARealSourceTopic() throws Exception
    {
        admin.createTopics(List.of(new NewTopic("mirrored.a", 2, (short) 1).configs(Map.of("retention.ms",
            "3600000")))).all().get(30, TimeUnit.SECONDS);
        final Uuid sourceId = admin.describeTopics(List.of("mirrored.a")).allTopicNames().get().get("mirrored.a")
            .topicId();
        final Controller controller = new Controller(new MemoryMetadataLog(), System::currentTimeMillis, Map.of());
        ControllerFixture.registerAndUnfence(controller, 1);
        try (ControllerApis apis = new ControllerApis(controller);
            MirrorMetadataManager manager = new MirrorMetadataManager(new MirrorController(apis),
                AdminSourceClusterClient.factory(10_000),
                () -> Map.of("bootstrap.servers", source.bootstrapServers()), 60_000, System::currentTimeMillis))
        {
            final MirrorController mirrors = new MirrorController(apis);
            assertTrue(mirrors.createMirror(new MirrorDefinition("m", source.bootstrapServers(), Map.of(),
                List.of("mirrored\\..*"), List.of())).get(10, TimeUnit.SECONDS).isOk());
            manager.syncNow().get(60, TimeUnit.SECONDS);
            final MirrorController.TopicView topic = mirrors.topics().get(10, TimeUnit.SECONDS).topic("mirrored.a")
                .orElseThrow();
            assertEquals(sourceId, topic.id());
            assertEquals(2, topic.partitions());
            assertEquals(Map.of("retention.ms", "3600000", "mirror.name", "m"), topic.config());
            // The reference broker serves no ListGroups, so group offsets cannot be read from it: said, not hidden.
            manager.lastError("m").ifPresent(error -> assertTrue(error.contains("LIST_GROUPS")
                || error.contains("consumer group"), error));
        }
    }

    @Test
    void shouldNameTheSourceWhenItIsUnreachable() throws Exception
    {
        final int port;
        try (ServerSocket socket = new ServerSocket(0))
        {
            port = socket.getLocalPort();
        }
        final String bootstrap = "127.0.0.1:" + port;
        try (AdminSourceClusterClient unreachable = new AdminSourceClusterClient(new MirrorDefinition("m", bootstrap,
            Map.of(), List.of(), List.of()), 1_500))
        {
            final SourceClusterClient.SourceUnavailableException e = assertThrows(
                SourceClusterClient.SourceUnavailableException.class, unreachable::listTopics);
            assertTrue(e.getMessage().contains(bootstrap), e.getMessage());
        }
    }
}

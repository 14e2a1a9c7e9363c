package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.replica.Partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Topic administration with Kafka's Admin client on a 3-broker cluster: create with configs, describe and alter
 * configs, refused configs and replication factors, delete and re-create, and how clients see an unknown topic
 * when the brokers do not auto-create topics. The tests share one cluster and use distinct topic names.
 */
@Timeout(180)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TopicAdminTest
{
    /** A broker-level default, so a topic without an override shows it as a static broker config. */
    private static final String BROKER_RETENTION_BYTES = "1073741824";

    private EmbeddedCluster cluster;

    @BeforeAll
    void startCluster()
    {
        cluster = EmbeddedCluster.start(3, Map.of("auto.create.topics.enable", "false",
            "log.retention.bytes", BROKER_RETENTION_BYTES));
    }

    @AfterAll
    void stopCluster()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private static Config topicConfig(final Admin admin, final String topic) throws Exception
    {
        final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return admin.describeConfigs(List.of(resource)).all().get().get(resource);
    }

    private static void assertEntry(final Config config, final String key, final String value,
        final ConfigEntry.ConfigSource source)
    {
        final ConfigEntry entry = config.get(key);
        assertNotNull(entry, key + " is not described");
        assertEquals(value, entry.value(), key);
        assertEquals(source, entry.source(), key + " source");
    }

    @Test
    void shouldDescribeTheConfigsATopicWasCreatedWithAsDynamicTopicConfigsAndDefaultsOtherwise() throws Exception
    {
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, "configured", 2, (short)3, Map.of(
                "retention.ms", "3600000",
                "retention.bytes", "1048576",
                "cleanup.policy", "compact",
                "min.insync.replicas", "2",
                "compression.type", "lz4"));
            final Config configured = topicConfig(admin, "configured");
            assertEntry(configured, "retention.ms", "3600000", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertEntry(configured, "retention.bytes", "1048576", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertEntry(configured, "cleanup.policy", "compact", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertEntry(configured, "min.insync.replicas", "2", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertEntry(configured, "compression.type", "lz4", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertEntry(configured, "segment.bytes", "1073741824", ConfigEntry.ConfigSource.DEFAULT_CONFIG);

            Clients.createTopic(admin, "plain", 1, (short)3, Map.of());
            final Config plain = topicConfig(admin, "plain");
            assertEntry(plain, "retention.ms", "604800000", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertEntry(plain, "retention.bytes", BROKER_RETENTION_BYTES,
                ConfigEntry.ConfigSource.STATIC_BROKER_CONFIG);
            assertEntry(plain, "cleanup.policy", "delete", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertEntry(plain, "min.insync.replicas", "1", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertEntry(plain, "compression.type", "producer", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
        }
    }

    @Test
    void shouldShowIncrementalSetAndDeleteInTheNextDescribeConfigsOnEveryBroker() throws Exception
    {
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, "altered", 1, (short)3, Map.of("retention.ms", "3600000"));
            final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "altered");
            admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new AlterConfigOp(new ConfigEntry("retention.ms", null), AlterConfigOp.OpType.DELETE),
                new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("max.message.bytes", "65536"), AlterConfigOp.OpType.SET))))
                .all().get();
            // Every broker answers DescribeConfigs from its own image; each connection is asked in turn.
            for (int node = 1; node <= cluster.size(); node++)
            {
                try (Admin direct = Clients.admin("127.0.0.1:" + cluster.port(node)))
                {
                    final Config config = topicConfig(direct, "altered");
                    assertEntry(config, "retention.ms", "604800000", ConfigEntry.ConfigSource.DEFAULT_CONFIG);
                    assertEntry(config, "cleanup.policy", "compact", ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
                    assertEntry(config, "max.message.bytes", "65536",
                        ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
                }
            }
            // A SET of a key already set replaces it.
            admin.incrementalAlterConfigs(Map.of(resource, List.of(
                new AlterConfigOp(new ConfigEntry("cleanup.policy", "delete,compact"), AlterConfigOp.OpType.SET))))
                .all().get();
            assertEntry(topicConfig(admin, "altered"), "cleanup.policy", "delete,compact",
                ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        }
    }

    @Test
    void shouldRefuseAnUnknownConfigKeyOrAnInvalidValueWithInvalidConfiguration() throws Exception
    {
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            final ExecutionException unknownKey = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("bad-key", 1, (short)1)
                    .configs(Map.of("no.such.config", "1")))).all().get());
            assertInstanceOf(InvalidConfigurationException.class, unknownKey.getCause());
            final ExecutionException badValue = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("bad-value", 1, (short)1)
                    .configs(Map.of("retention.ms", "soon")))).all().get());
            assertInstanceOf(InvalidConfigurationException.class, badValue.getCause());
            final ExecutionException badPolicy = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("bad-policy", 1, (short)1)
                    .configs(Map.of("cleanup.policy", "shred")))).all().get());
            assertInstanceOf(InvalidConfigurationException.class, badPolicy.getCause());
            final Set<String> names = admin.listTopics().names().get();
            assertFalse(names.contains("bad-key") || names.contains("bad-value") || names.contains("bad-policy"),
                "a refused topic was created: " + names);

            Clients.createTopic(admin, "strict", 1, (short)3, Map.of("retention.ms", "3600000"));
            final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "strict");
            final ExecutionException alterUnknown = assertThrows(ExecutionException.class,
                () -> admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry("no.such.config", "1"), AlterConfigOp.OpType.SET)))).all().get());
            assertInstanceOf(InvalidConfigurationException.class, alterUnknown.getCause());
            final ExecutionException alterBad = assertThrows(ExecutionException.class,
                () -> admin.incrementalAlterConfigs(Map.of(resource, List.of(new AlterConfigOp(
                    new ConfigEntry("min.insync.replicas", "zero"), AlterConfigOp.OpType.SET)))).all().get());
            assertInstanceOf(InvalidConfigurationException.class, alterBad.getCause());
            // A refused alter changes nothing, not even the valid operations sent with it.
            assertThrows(ExecutionException.class,
                () -> admin.incrementalAlterConfigs(Map.of(resource, List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "60000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("retention.bytes", "many"), AlterConfigOp.OpType.SET))))
                    .all().get());
            assertEntry(topicConfig(admin, "strict"), "retention.ms", "3600000",
                ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
        }
    }

    @Test
    void shouldRefuseAReplicationFactorAboveTheBrokerCountAndAnExistingTopic() throws Exception
    {
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            final ExecutionException tooMany = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("too-replicated", 1, (short)4))).all().get());
            assertInstanceOf(InvalidReplicationFactorException.class, tooMany.getCause());
            assertFalse(admin.listTopics().names().get().contains("too-replicated"));

            Clients.createTopic(admin, "taken", 1, (short)2, Map.of());
            final Uuid id = admin.describeTopics(List.of("taken")).allTopicNames().get().get("taken").topicId();
            final ExecutionException exists = assertThrows(ExecutionException.class,
                () -> admin.createTopics(List.of(new NewTopic("taken", 3, (short)3))).all().get());
            assertInstanceOf(TopicExistsException.class, exists.getCause());
            final var description = Clients.describe(admin, "taken");
            assertEquals(id, description.topicId(), "the existing topic was replaced");
            assertEquals(1, description.partitions().size());
            assertEquals(2, description.partitions().get(0).replicas().size());
        }
    }

    @Test
    void shouldDeleteATopicAndStartARecreatedOneWithANewIdAtOffsetZero() throws Exception
    {
        final String topic = "recycled";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)3, Map.of());
            final Uuid firstId = Clients.describe(admin, topic).topicId();
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
            {
                for (int i = 0; i < 10; i++)
                {
                    assertEquals(i, producer.send(new ProducerRecord<>(topic, 0, null, bytes("old-" + i))).get()
                        .offset());
                }
            }

            admin.deleteTopics(List.of(topic)).all().get();
            assertFalse(admin.listTopics().names().get().contains(topic), "listTopics still shows the topic");
            final ExecutionException described = assertThrows(ExecutionException.class,
                () -> Clients.describe(admin, topic));
            assertInstanceOf(UnknownTopicOrPartitionException.class, described.getCause());
            // Every broker drops its replica.
            Clients.awaitCondition(() -> replicasOf(tp) == 0, 30_000, "a broker still hosts the deleted partition");
            // With auto-creation off, a producer finds no metadata for it and gives up after max.block.ms.
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
                Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000)))
            {
                final ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(topic, 0, null, bytes("lost"))).get());
                assertInstanceOf(TimeoutException.class, refused.getCause());
                assertTrue(refused.getCause().getMessage().contains(topic), refused.getCause().getMessage());
            }
            assertFalse(admin.listTopics().names().get().contains(topic), "the producer re-created the topic");

            Clients.createTopic(admin, topic, 1, (short)3, Map.of());
            final Uuid secondId = Clients.describe(admin, topic).topicId();
            assertNotEquals(firstId, secondId);
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
            {
                assertEquals(0, producer.send(new ProducerRecord<>(topic, 0, null, bytes("new-0"))).get().offset());
            }
            try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), Map.of()))
            {
                final List<ConsumerRecord<byte[], byte[]>> records = Clients.readAll(consumer, List.of(tp), 2, 3_000);
                assertEquals(1, records.size(), "records of the deleted topic are served");
                assertEquals(0, records.get(0).offset());
                assertArrayEquals(bytes("new-0"), records.get(0).value());
            }
            for (int node = 1; node <= cluster.size(); node++)
            {
                final int broker = node;
                Clients.awaitCondition(() ->
                {
                    final Partition partition = cluster.broker(broker).replicaManager().partitionOrNull(tp);
                    return partition != null && partition.topicId().equals(secondId)
                        && partition.log().logEndOffset() == 1 && partition.log().logStartOffset() == 0;
                }, 30_000, "broker " + broker + " does not hold the re-created topic's one record at offset 0");
            }
        }
    }

    private int replicasOf(final TopicPartition tp)
    {
        int hosted = 0;
        for (int node = 1; node <= cluster.size(); node++)
        {
            if (cluster.broker(node).replicaManager().partitionOrNull(tp) != null)
            {
                hosted++;
            }
        }
        return hosted;
    }

    @Test
    void shouldReportAnUnknownTopicAsKafkaClientsDoWhenAutoCreationIsOff() throws Exception
    {
        final String topic = "never-created";
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            final ExecutionException described = assertThrows(ExecutionException.class,
                () -> Clients.describe(admin, topic));
            assertInstanceOf(UnknownTopicOrPartitionException.class, described.getCause());
            final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            final ExecutionException configs = assertThrows(ExecutionException.class,
                () -> admin.describeConfigs(List.of(resource)).all().get());
            assertInstanceOf(UnknownTopicOrPartitionException.class, configs.getCause());
            final ExecutionException deleted = assertThrows(ExecutionException.class,
                () -> admin.deleteTopics(List.of(topic)).all().get());
            assertInstanceOf(UnknownTopicOrPartitionException.class, deleted.getCause());

            // Kafka's consumer reports a topic the brokers call unknown as one without partitions.
            try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(),
                Map.of(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, true)))
            {
                assertEquals(List.of(), consumer.partitionsFor(topic));
            }
            // Kafka's producer waits max.block.ms for the topic to appear in metadata.
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
                Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000)))
            {
                final ExecutionException refused = assertThrows(ExecutionException.class,
                    () -> producer.send(new ProducerRecord<>(topic, bytes("nowhere"))).get());
                assertInstanceOf(TimeoutException.class, refused.getCause());
                assertTrue(refused.getCause().getMessage().contains(topic), refused.getCause().getMessage());
            }
            assertFalse(admin.listTopics().names().get().contains(topic), "a client's Metadata created the topic");
        }
    }

    private static byte[] bytes(final String value)
    {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}

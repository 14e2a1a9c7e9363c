package io.syncmirror.broker.mirror;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.metadata.MirrorDefinition;

/** Source leader lookups against a three-broker cluster of the reference broker acting as the source. */
@Timeout(120)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SourceClusterLeaderTest
{
    private EmbeddedCluster source;
    private Admin admin;
    private SourceCluster sourceCluster;

    @BeforeAll
    void start() throws Exception
    {
        source = EmbeddedCluster.start(3, EmbeddedCluster.memoryStorage());
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, source.bootstrapServers());
        admin = Admin.create(props);
        admin.createTopics(List.of(new NewTopic("orders", 6, (short)3), new NewTopic("refunds", 2, (short)3)))
            .all().get(30, TimeUnit.SECONDS);
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!everyPartitionLed("orders") || !everyPartitionLed("refunds"))
        {
            assertTrue(System.nanoTime() - deadlineNs < 0, "the topics' partitions never all had leaders");
            Thread.sleep(20);
        }
        sourceCluster = new SourceCluster(new MirrorDefinition("m", source.bootstrapServers(), Map.of(),
            List.of(".*"), List.of()), "source-cluster-test", 10_000);
    }

    @AfterAll
    void stop()
    {
        if (sourceCluster != null)
        {
            sourceCluster.close();
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
    @DisplayName("each partition's source leader is the one the source describes; one describe serves a topic's "
        + "partitions")
    void shouldFindEveryPartitionsLeaderFromOneDescribe() throws Exception
    {
        final TopicDescription described = described("orders");
        final long describesBefore = sourceCluster.describeRequests();
        for (final TopicPartitionInfo info : described.partitions())
        {
            final Optional<Node> leader = sourceCluster.leader("orders", described.topicId(), info.partition(),
                SourceCluster.ANY_AGE);
            assertEquals(Optional.of(info.leader()), leader, "leader of orders-" + info.partition());
        }
        assertEquals(describesBefore + 1, sourceCluster.describeRequests());
    }

    @Test
    @DisplayName("a partition the source topic lacks, and a source topic with another id, are errors that say so")
    void shouldRejectAMissingPartitionAndAnotherTopicId() throws Exception
    {
        final Uuid id = described("refunds").topicId();
        final KafkaException missing = assertThrows(KafkaException.class,
            () -> sourceCluster.leader("refunds", id, 2, true));
        assertTrue(missing.getMessage().contains("has no partition 2"), missing.getMessage());
        assertThrows(KafkaException.class, () -> sourceCluster.leader("refunds", id, -1, false));
        final KafkaException otherId = assertThrows(KafkaException.class,
            () -> sourceCluster.leader("refunds", Uuid.randomUuid(), 0, false));
        assertTrue(otherId.getMessage().contains("deleted and re-created"), otherId.getMessage());
        assertThrows(KafkaException.class, () -> sourceCluster.leader("absent", Uuid.randomUuid(), 0, true));
    }

    @Test
    @DisplayName("a describe ahead of many topics serves their lookups without another describe")
    void shouldServeLookupsFromADescribeAhead() throws Exception
    {
        final long since = System.nanoTime();
        assertTrue(sourceCluster.describeAhead(List.of("orders", "refunds"), since));
        final long describes = sourceCluster.describeRequests();
        final TopicDescription refunds = described("refunds");
        assertEquals(Optional.of(refunds.partitions().get(1).leader()),
            sourceCluster.leader("refunds", refunds.topicId(), 1, since));
        assertEquals(describes, sourceCluster.describeRequests());
    }

    private boolean everyPartitionLed(final String topic) throws Exception
    {
        return described(topic).partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
    }

    private TopicDescription described(final String topic) throws Exception
    {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    }
}

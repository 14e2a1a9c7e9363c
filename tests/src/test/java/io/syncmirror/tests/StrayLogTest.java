package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * A broker that was down while its topic was deleted (and a topic of the same name created) drops the old log
 * when it returns, and never serves the old records under the new topic.
 */
@Timeout(120)
class StrayLogTest
{
    private static void produce(final EmbeddedCluster cluster, final String topic, final String prefix,
        final int count) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < count; i++)
            {
                producer.send(new ProducerRecord<>(topic, 0, null, (prefix + i).getBytes(StandardCharsets.UTF_8)))
                    .get();
            }
        }
    }

    @Test
    void shouldDropTheLogOfATopicDeletedWhileTheBrokerWasDown() throws Exception
    {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(3, Map.of()))
        {
            final String topic = "stray";
            final TopicPartition tp = new TopicPartition(topic, 0);
            try (Admin admin = Clients.admin(cluster.bootstrapServers()))
            {
                Clients.createTopic(admin, topic, Map.of(0, List.of(1, 2, 3)), Map.of());
                produce(cluster, topic, "old-", 5);
                final var oldId = Clients.describe(admin, topic).topicId();
                Clients.awaitCondition(() -> cluster.broker(3).replicaManager().partitionOrNull(tp) != null &&
                    cluster.broker(3).replicaManager().partitionOrNull(tp).log().logEndOffset() == 5, 30_000,
                    "broker 3 never replicated the old records");

                cluster.stopBroker(3);
                admin.deleteTopics(List.of(topic)).all().get();
                Clients.createTopic(admin, topic, Map.of(0, List.of(1, 2)), Map.of());
                assertNotEquals(oldId, Clients.describe(admin, topic).topicId());
                produce(cluster, topic, "new-", 2);

                cluster.startBroker(3).awaitReady(30_000);
                Clients.awaitCondition(() -> !Files.exists(cluster.logDir(3).resolve(topic + "-0")), 30_000,
                    "broker 3 kept the log of the deleted topic");
                assertEquals(null, cluster.broker(3).replicaManager().partitionOrNull(tp));
            }
            try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), Map.of()))
            {
                final List<ConsumerRecord<byte[], byte[]>> records = Clients.readAll(consumer, List.of(tp), 2, 15_000);
                assertEquals(2, records.size());
                for (final ConsumerRecord<byte[], byte[]> record : records)
                {
                    assertFalse(new String(record.value(), StandardCharsets.UTF_8).startsWith("old-"));
                }
            }
        }
    }
}

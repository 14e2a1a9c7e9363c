package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** Real producer, consumer and Admin against a 3-broker cluster with RF 3 and min ISR 2. */
@Timeout(120)
class ReplicatedProduceConsumeTest
{
    private static EmbeddedCluster cluster;

    @BeforeAll
    static void startCluster()
    {
        cluster = EmbeddedCluster.start(3, Map.of("min.insync.replicas", "2"));
    }

    @AfterAll
    static void stopCluster()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    @Test
    void shouldReturnEveryAcknowledgedRecordAtItsOffsetWithItsBytes() throws Exception
    {
        final String topic = "replicated";
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 3, (short)3, Map.of("min.insync.replicas", "2"));
            final TopicDescription description = Clients.describe(admin, topic);
            assertEquals(3, description.partitions().size());
            assertNotNull(description.topicId());
        }
        final Random random = new Random(42);
        final int count = 600;
        final List<byte[]> values = new ArrayList<>();
        final List<Future<RecordMetadata>> acks = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < count; i++)
            {
                final byte[] value = new byte[1 + random.nextInt(2000)];
                random.nextBytes(value);
                values.add(value);
                acks.add(producer.send(new ProducerRecord<>(topic, i % 3,
                    ("key-" + i).getBytes(StandardCharsets.UTF_8), value)));
            }
            producer.flush();
        }
        final Map<String, byte[]> expected = new HashMap<>();
        for (int i = 0; i < count; i++)
        {
            final RecordMetadata metadata = acks.get(i).get();
            expected.put(metadata.partition() + "@" + metadata.offset(), values.get(i));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), Map.of()))
        {
            final List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0),
                new TopicPartition(topic, 1), new TopicPartition(topic, 2));
            final List<ConsumerRecord<byte[], byte[]>> records = Clients.readAll(consumer, partitions, count, 30_000);
            assertEquals(count, records.size());
            for (final ConsumerRecord<byte[], byte[]> record : records)
            {
                final byte[] value = expected.get(record.partition() + "@" + record.offset());
                assertNotNull(value, "record at " + record.partition() + "@" + record.offset() + " was never acked");
                assertArrayEquals(value, record.value(), "bytes differ at " + record.partition() + "@" +
                    record.offset());
            }
            // Offsets are dense from 0 in each partition: 200 records each.
            for (final TopicPartition partition : partitions)
            {
                assertEquals(count / 3, consumer.position(partition));
            }
        }
        assertEquals(count, expected.size(), "two acks named the same offset");
    }
}

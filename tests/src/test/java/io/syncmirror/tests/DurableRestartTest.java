package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** A broker restarted on the same log.dirs serves the same data, after a clean stop and after a crash. */
@Timeout(120)
class DurableRestartTest
{
    private static final String TOPIC = "durable";
    private EmbeddedCluster cluster;

    @BeforeEach
    void start() throws Exception
    {
        cluster = EmbeddedCluster.start(1, Map.of());
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, TOPIC, 1, (short)1, Map.of());
        }
    }

    @AfterEach
    void stop()
    {
        cluster.close();
    }

    private void produce(final int from, final int to) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = from; i < to; i++)
            {
                assertEquals(i, producer.send(new ProducerRecord<>(TOPIC, 0, null,
                    ("value-" + i).getBytes(StandardCharsets.UTF_8))).get().offset());
            }
        }
    }

    private void assertServes(final int count)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), Map.of()))
        {
            final List<ConsumerRecord<byte[], byte[]>> records = Clients.readAll(consumer,
                List.of(new TopicPartition(TOPIC, 0)), count, 30_000);
            assertEquals(count, records.size());
            for (int i = 0; i < count; i++)
            {
                assertEquals(i, records.get(i).offset());
                assertArrayEquals(("value-" + i).getBytes(StandardCharsets.UTF_8), records.get(i).value());
            }
        }
    }

    @Test
    void shouldServeTheSameRecordsAfterACleanRestart() throws Exception
    {
        produce(0, 100);
        cluster.stopBroker(1);
        cluster.startBroker(1).awaitReady(30_000);
        assertServes(100);
        produce(100, 120);
        assertServes(120);
    }

    @Test
    void shouldServeEveryAcknowledgedRecordAfterACrash() throws Exception
    {
        produce(0, 100);
        cluster.killBroker(1);
        cluster.startBroker(1).awaitReady(30_000);
        assertServes(100);
        produce(100, 120);
        assertServes(120);
    }
}

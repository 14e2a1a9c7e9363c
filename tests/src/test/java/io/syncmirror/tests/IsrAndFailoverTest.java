package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ISR shrink, min.insync.replicas and leader failover on a 3-broker cluster, with real clients. */
@Timeout(180)
class IsrAndFailoverTest
{
    private static final String TOPIC = "guarded";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    private EmbeddedCluster cluster;

    @BeforeEach
    void startCluster() throws Exception
    {
        cluster = EmbeddedCluster.start(3, Map.of("replica.lag.time.max.ms", "1500"));
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            // Broker 2 leads, so the controller's node (1) can be stopped or kept as the test needs.
            Clients.createTopic(admin, TOPIC, Map.of(0, List.of(2, 3, 1)), Map.of("min.insync.replicas", "2"));
        }
    }

    @AfterEach
    void stopCluster()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private static RecordMetadata send(final KafkaProducer<byte[], byte[]> producer, final String value)
        throws Exception
    {
        return producer.send(new ProducerRecord<>(TOPIC, 0, null, value.getBytes(StandardCharsets.UTF_8))).get();
    }

    private static Future<RecordMetadata> sendAsync(final KafkaProducer<byte[], byte[]> producer, final String value)
    {
        return producer.send(new ProducerRecord<>(TOPIC, 0, null, value.getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    void shouldShrinkTheIsrOfAPausedFollowerAndRefuseAcksAllUnderMinIsr() throws Exception
    {
        try (Admin admin = Clients.admin(cluster.bootstrapServers());
             KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
                 Map.of(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false, ProducerConfig.RETRIES_CONFIG, 0)))
        {
            send(producer, "before");
            // Kafka's rule: a follower that holds the whole log stays in sync however long it is quiet. The next
            // append leaves the paused one behind, and replica.lag.time.max.ms later it leaves the ISR; the
            // acks=all produce of that append waits for it.
            cluster.broker(3).pauseReplication();
            final Future<RecordMetadata> onePaused = sendAsync(producer, "one follower paused");
            Clients.awaitCondition(() -> Clients.sortedIsr(admin, TOPIC).equals(List.of(1, 2)),
                30_000, "follower 3 never left the ISR");
            assertEquals(1, onePaused.get().offset());

            cluster.broker(1).pauseReplication();
            // Appended, then left waiting when the ISR falls under min.insync.replicas (the HW freezes there).
            sendAsync(producer, "two followers paused");
            Clients.awaitCondition(() -> Clients.sortedIsr(admin, TOPIC).equals(List.of(2)),
                30_000, "follower 1 never left the ISR");
            final ExecutionException refused = assertThrows(ExecutionException.class,
                () -> send(producer, "under min.insync.replicas"));
            assertInstanceOf(NotEnoughReplicasException.class, refused.getCause());

            cluster.broker(1).resumeReplication();
            cluster.broker(3).resumeReplication();
            Clients.awaitCondition(() -> Clients.sortedIsr(admin, TOPIC).equals(List.of(1, 2, 3)), 30_000,
                "the followers never rejoined the ISR");
            assertEquals(3, send(producer, "rejoined").offset());
        }
    }

    @Test
    void shouldElectANewLeaderFromTheIsrAndLoseNoAcknowledgedRecord() throws Exception
    {
        final List<RecordMetadata> acked = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < 200; i++)
            {
                acked.add(send(producer, "record-" + i));
            }
            cluster.killBroker(2);
            try (Admin admin = Clients.admin(cluster.bootstrapServers()))
            {
                Clients.awaitCondition(() -> Clients.leaderOf(admin, TOPIC) > 0 && Clients.leaderOf(admin, TOPIC) != 2,
                    30_000,
                    "no new leader was elected");
                assertNotEquals(2, Clients.leaderOf(admin, TOPIC));
            }
            for (int i = 200; i < 250; i++)
            {
                acked.add(send(producer, "record-" + i));
            }
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), Map.of()))
        {
            final List<ConsumerRecord<byte[], byte[]>> records = Clients.readAll(consumer, List.of(TP), 250, 30_000);
            assertEquals(250, records.size());
            for (int i = 0; i < 250; i++)
            {
                assertEquals(acked.get(i).offset(), records.get(i).offset());
                assertArrayEquals(("record-" + i).getBytes(StandardCharsets.UTF_8), records.get(i).value());
            }
        }
        // The old leader returns as a follower and catches up into the ISR.
        cluster.startBroker(2);
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.awaitCondition(() -> Clients.sortedIsr(admin, TOPIC).equals(List.of(1, 2, 3)), 60_000,
                "the restarted broker never rejoined the ISR");
        }
        assertTrue(acked.get(249).offset() >= 249);
    }
}

package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A consumer's parked long-poll fetch returns as soon as a record is committed, not at fetch.max.wait.ms. */
@Timeout(120)
class LongPollTest
{
    @Test
    void shouldWakeAParkedConsumerFetchOnAnAppend() throws Exception
    {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(3, Map.of()))
        {
            final String topic = "long-poll";
            final TopicPartition tp = new TopicPartition(topic, 0);
            try (Admin admin = Clients.admin(cluster.bootstrapServers()))
            {
                Clients.createTopic(admin, topic, 1, (short)3, Map.of("min.insync.replicas", "2"));
            }
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of());
                 KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(),
                     Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20_000)))
            {
                consumer.assign(List.of(tp));
                consumer.seekToEnd(List.of(tp));
                consumer.position(tp);
                // The consumer's fetch is parked on the leader (20 s max wait) while the record is produced.
                final CompletableFuture<Long> sentAtNs = CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        Thread.sleep(1_000);
                        final long now = System.nanoTime();
                        producer.send(new ProducerRecord<>(topic, 0, null, "wake".getBytes(StandardCharsets.UTF_8)))
                            .get();
                        return now;
                    }
                    catch (final Exception ex)
                    {
                        throw new IllegalStateException(ex);
                    }
                });
                ConsumerRecords<byte[], byte[]> records = ConsumerRecords.empty();
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
                while (records.isEmpty() && System.nanoTime() < deadline)
                {
                    records = consumer.poll(Duration.ofSeconds(15));
                }
                final long receivedAtNs = System.nanoTime();
                assertEquals(1, records.count());
                final long latencyMs = TimeUnit.NANOSECONDS.toMillis(receivedAtNs - sentAtNs.get());
                assertTrue(latencyMs < 5_000, "the parked fetch returned only after " + latencyMs + " ms");
            }
        }
    }
}

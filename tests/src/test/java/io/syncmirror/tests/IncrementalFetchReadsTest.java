package io.syncmirror.tests;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Incremental fetches read only the partitions that may answer differently. A partition whose records did not
 * fit in a response is one of them, although nothing changes on it: with every record written before the
 * consumer starts, a consumer whose responses hold one partition's worth of bytes still gets every record, soon.
 */
@Timeout(120)
class IncrementalFetchReadsTest
{
    private static final String TOPIC = "capped";
    private static final int PARTITIONS = 12;
    private static final int RECORDS_PER_PARTITION = 20;
    private static final int VALUE_BYTES = 4096;

    @Test
    @DisplayName("records left out of a response capped by fetch.max.bytes are delivered with no further appends")
    void shouldDeliverRecordsLeftOutByTheByteCapWithoutNewAppends() throws Exception
    {
        try (EmbeddedCluster cluster = EmbeddedCluster.start(1, Map.of());
             Admin admin = Clients.admin(cluster.bootstrapServers());
             KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
                 Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 0));
             KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), Map.of(
                 // About two records a response: most partitions with records are left out of each one.
                 ConsumerConfig.FETCH_MAX_BYTES_CONFIG, 2 * VALUE_BYTES + 512,
                 ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, 2 * VALUE_BYTES + 512,
                 // A fetch nothing wakes answers only after this: far beyond the bound below.
                 ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20_000)))
        {
            Clients.createTopic(admin, TOPIC, PARTITIONS, (short)1, Map.of());
            for (int p = 0; p < PARTITIONS; p++)
            {
                for (int i = 0; i < RECORDS_PER_PARTITION; i++)
                {
                    // One at a time: a pipelined first batch refused while the new topic reaches the broker's
                    // partitions would leave the batches behind it out of sequence.
                    producer.send(new ProducerRecord<>(TOPIC, p, null, new byte[VALUE_BYTES])).get(30, TimeUnit.SECONDS);
                }
            }
            final List<TopicPartition> assigned = new ArrayList<>();
            for (int p = 0; p < PARTITIONS; p++)
            {
                assigned.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);

            final int expected = PARTITIONS * RECORDS_PER_PARTITION;
            final long startNs = System.nanoTime();
            final long deadlineNs = startNs + TimeUnit.SECONDS.toNanos(60);
            int received = 0;
            while (received < expected && System.nanoTime() < deadlineNs)
            {
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200)))
                {
                    assertEquals(VALUE_BYTES, record.value().length);
                    received++;
                }
            }
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertEquals(expected, received, "every record written before the consumer started");
            // About 120 responses; a partition left out and never read again would wait for a 20 s fetch wait.
            assertTrue(elapsedMs < 15_000, "took " + elapsedMs + " ms");
        }
    }

    @Test
    @DisplayName("records in a response the consumer dropped (it moved to a partition on another broker) are "
        + "delivered when it fetches the same offset again, with no further appends")
    void shouldDeliverRecordsOfADroppedResponseAgain() throws Exception
    {
        final String topic = "dropped";
        try (EmbeddedCluster cluster = EmbeddedCluster.start(2, Map.of());
             Admin admin = Clients.admin(cluster.bootstrapServers());
             KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of());
             KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), Map.of(
                 // A fetch nothing wakes answers only after this: far beyond the bound below.
                 ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20_000)))
        {
            // Partition 0 on broker 1, partition 1 on broker 2: a consumer that moves from one to the other sends
            // the first broker no request meanwhile, so its fetch session there keeps partition 0.
            Clients.createTopic(admin, topic, Map.of(0, List.of(1), 1, List.of(2)), Map.of());
            final TopicPartition first = new TopicPartition(topic, 0);
            final TopicPartition other = new TopicPartition(topic, 1);
            producer.send(new ProducerRecord<>(topic, 0, null, new byte[]{0})).get(30, TimeUnit.SECONDS);
            consumer.assign(List.of(first));
            consumer.seek(first, 0);
            awaitRecordAt(consumer, 0, 30_000);
            // The consumer sent its next fetch (offset 1) before returning the record; the broker parks it, and
            // this append answers it with the record at offset 1.
            producer.send(new ProducerRecord<>(topic, 0, null, new byte[]{1})).get(30, TimeUnit.SECONDS);
            consumer.assign(List.of(other));
            consumer.seek(other, 0);
            // Polled meanwhile: the answer carrying offset 1 arrives and is dropped (no longer assigned).
            final long pollUntilNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            while (System.nanoTime() < pollUntilNs)
            {
                assertTrue(consumer.poll(Duration.ofMillis(100)).isEmpty());
            }

            // Back to partition 0 at offset 1: the fetch names nothing new, and the broker must read it anyway.
            consumer.assign(List.of(first));
            consumer.seek(first, 1);
            final long startNs = System.nanoTime();
            awaitRecordAt(consumer, 1, 15_000);
            final long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertTrue(elapsedMs < 5_000, "took " + elapsedMs + " ms");
        }
    }

    private static void awaitRecordAt(final KafkaConsumer<byte[], byte[]> consumer, final long offset,
        final long timeoutMs)
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (System.nanoTime() < deadlineNs)
        {
            for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
            {
                if (record.offset() == offset)
                {
                    return;
                }
            }
        }
        throw new AssertionError("no record at offset " + offset + " within " + timeoutMs + " ms");
    }
}

package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.replica.Partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Idle partitions in fetch sessions: a follower that keeps fetching an idle partition (answered from its offsets,
 * without a log read) stays in its ISR past replica.lag.time.max.ms, and the first append after a long idle
 * spell wakes the parked followers and a parked consumer at once.
 */
@Timeout(120)
class IdleSessionFetchTest
{
    private static final String TOPIC = "idle";
    private static final long LAG_TIME_MAX_MS = 1500;

    @Test
    @DisplayName("idle followers that keep fetching stay in the ISR, and the first append after an idle spell "
        + "wakes the parked followers and a parked consumer")
    void shouldKeepIdleFollowersInSyncAndDeliverTheFirstAppendAfterAnIdleSpell() throws Exception
    {
        // Long fetch waits: a fetch that is not woken answers only after them, well past the bounds checked below.
        try (EmbeddedCluster cluster = EmbeddedCluster.start(3, Map.of(
            "replica.lag.time.max.ms", Long.toString(LAG_TIME_MAX_MS),
            "replica.fetch.wait.max.ms", Long.toString(LAG_TIME_MAX_MS - 100)));
             Admin admin = Clients.admin(cluster.bootstrapServers());
             KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
                 Map.of(ProducerConfig.ACKS_CONFIG, "all"));
             KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(),
                 Map.of(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 5000)))
        {
            // Many partitions in each follower's session, so that most of every fetch is skipped.
            Clients.createTopic(admin, TOPIC, 30, (short)3, Map.of("min.insync.replicas", "3"));
            for (int p = 0; p < 30; p++)
            {
                producer.send(new ProducerRecord<>(TOPIC, p, null, bytes("first-" + p))).get(10, TimeUnit.SECONDS);
            }
            final TopicPartition tp = new TopicPartition(TOPIC, 7);
            consumer.assign(List.of(tp));
            consumer.seek(tp, 1);
            final CompletableFuture<Long> arrivedNs = CompletableFuture.supplyAsync(() ->
            {
                final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (System.nanoTime() < deadlineNs)
                {
                    for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(100)))
                    {
                        if (record.offset() == 1)
                        {
                            return System.nanoTime();
                        }
                    }
                }
                return Long.MAX_VALUE;
            });

            // Idle for three lag windows: no append, only fetches that find nothing new. An ISR that shrank and
            // grew back meanwhile shows in the partition epoch.
            final List<Integer> epochsBefore = partitionEpochs(cluster);
            Thread.sleep(3 * LAG_TIME_MAX_MS);
            final TopicDescription described = Clients.describe(admin, TOPIC);
            for (final TopicPartitionInfo partition : described.partitions())
            {
                assertEquals(3, partition.isr().size(), "an idle follower that keeps fetching left the ISR of " +
                    TOPIC + "-" + partition.partition() + ": " + partition.isr());
            }
            assertEquals(epochsBefore, partitionEpochs(cluster), "the ISR changed while the topic was idle");

            // min.insync.replicas=3: the ack needs both followers, which fetch only after being woken.
            final long sentNs = System.nanoTime();
            producer.send(new ProducerRecord<>(TOPIC, 7, null, bytes("after-idle"))).get(10, TimeUnit.SECONDS);
            final long ackMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - sentNs);
            assertTrue(ackMs < (LAG_TIME_MAX_MS - 100) / 2, "the first append after the idle spell took " + ackMs +
                " ms to be acknowledged by every replica: a follower was not woken");
            final long deliveredMs = TimeUnit.NANOSECONDS.toMillis(arrivedNs.get(40, TimeUnit.SECONDS) - sentNs);
            assertTrue(deliveredMs < 2500, "the parked consumer got the record after " + deliveredMs + " ms");
        }
    }

    /** The partition epoch (bumped by every ISR change) of each partition, as its leader knows it. */
    private static List<Integer> partitionEpochs(final EmbeddedCluster cluster)
    {
        final List<Integer> epochs = new java.util.ArrayList<>();
        for (int p = 0; p < 30; p++)
        {
            final Partition leader = AsyncMirroringTest.leader(cluster, new TopicPartition(TOPIC, p));
            epochs.add(leader == null ? -1 : leader.role().partitionEpoch());
        }
        return epochs;
    }

    private static byte[] bytes(final String value)
    {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}

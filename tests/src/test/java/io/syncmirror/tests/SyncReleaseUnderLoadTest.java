package io.syncmirror.tests;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.mirror.MirrorMetrics;
import io.syncmirror.broker.mirror.sync.RejectReason;
import io.syncmirror.broker.server.BrokerServer;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A source-side release under sustained load, scaled down: a one-broker source and destination, a three-partition
 * SYNC topic, a producer sending throughout. The destination goes away, the source's acks stall, the operator
 * releases the mirror on the source, acks flow again at once; the destination comes back, every partition's
 * reports are refused, the topic demotes after the demote timeout and promotes itself again through a recovery
 * Register, with every acknowledged record on the destination.
 */
@Timeout(240)
class SyncReleaseUnderLoadTest
{
    private static final String MIRROR = "release-load";
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 3;

    private static long destinationMetric(final MirrorClusters clusters, final javax.management.ObjectName name)
    {
        try
        {
            return ((Number)ManagementFactory.getPlatformMBeanServer().getAttribute(name,
                MirrorMetrics.VALUE_ATTRIBUTE)).longValue();
        }
        catch (final javax.management.InstanceNotFoundException e)
        {
            return 0L;
        }
        catch (final Exception e)
        {
            throw new AssertionError(e);
        }
    }

    private static long failingPartitions(final MirrorClusters clusters)
    {
        final BrokerServer broker = clusters.destination().broker(1);
        broker.mirrorMetrics().refresh();
        return destinationMetric(clusters, MirrorMetrics.syncPartitionsFailingName(broker.mirrorMetrics().brokerTag(),
            MIRROR, TOPIC));
    }

    private static long rejected(final MirrorClusters clusters, final RejectReason reason)
    {
        final BrokerServer broker = clusters.destination().broker(1);
        broker.mirrorMetrics().refresh();
        return destinationMetric(clusters, MirrorMetrics.syncRegistrationRejectedName(broker.mirrorMetrics()
            .brokerTag(), reason));
    }

    @Test
    @DisplayName("SS-05 SI-11 release under load: acks stall while the destination is away and resume at once on "
        + "--release-sync; back, every partition is refused (SyncPartitionsFailing = 3), the topic demotes after "
        + "the timeout, recovers to SYNC by itself with RecoveryPromotion, and no acknowledged record is lost")
    void shouldReleaseUnderLoadAndRecover() throws Exception
    {
        try (MirrorClusters clusters = MirrorClusters.start(1, 1,
            Map.of("mirror.sync.topic.demote.timeout.ms", "4000")))
        {
            clusters.createSourceTopic(TOPIC, PARTITIONS);
            clusters.createMirror(MIRROR);
            clusters.addAndAwaitMirroring(MIRROR, TOPIC, PARTITIONS);
            final MirrorTopicResult altered = SyncMirrors.alter(clusters.destination(), 1, MIRROR,
                TOPIC, MirrorType.SYNC);
            assertEquals(Errors.NONE.code(), altered.errorCode(), String.valueOf(altered.errorMessage()));
            SyncMirrors.awaitTypes(clusters.destination(), MIRROR, TOPIC, MirrorType.SYNC, MirrorType.SYNC, 30_000);
            SyncMirrors.awaitRegistered(clusters.source(), TOPIC, MIRROR, true, 10_000);

            final Map<String, String> acked = new ConcurrentHashMap<>();
            final AtomicLong ackCount = new AtomicLong();
            final AtomicReference<Exception> failure = new AtomicReference<>();
            final AtomicBoolean running = new AtomicBoolean(true);
            final Thread load = new Thread(() ->
            {
                try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
                    Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000)))
                {
                    for (int i = 0; running.get(); i++)
                    {
                        final String value = "r" + i;
                        producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null,
                            value.getBytes(StandardCharsets.UTF_8)), (metadata, error) ->
                        {
                            if (error != null)
                            {
                                failure.compareAndSet(null, error);
                                return;
                            }
                            acked.put(metadata.partition() + "@" + metadata.offset(), value);
                            ackCount.incrementAndGet();
                        });
                        Thread.sleep(5);
                    }
                    producer.flush();
                }
                catch (final InterruptedException e)
                {
                    Thread.currentThread().interrupt();
                }
            }, "release-load-producer");
            load.start();
            try
            {
                Clients.awaitCondition(() -> ackCount.get() > 100, 30_000, "acks flow while SYNC");
                clusters.destination().stopBroker(1);
                // No report comes any more, and the HW is decided at each append: with the gate ignoring the
                // registered mirror, each partition's HW (one source replica) would follow its log end at once.
                final List<TopicPartition> partitions = new java.util.ArrayList<>();
                for (int p = 0; p < PARTITIONS; p++)
                {
                    partitions.add(new TopicPartition(TOPIC, p));
                }
                final Map<TopicPartition, Long> hwAtStop = new java.util.HashMap<>();
                Clients.awaitCondition(() ->
                {
                    for (final TopicPartition tp : partitions)
                    {
                        final io.syncmirror.broker.replica.Partition leader =
                            AsyncMirroringTest.leader(clusters.source(), tp);
                        hwAtStop.put(tp, leader.log().highWatermark());
                        if (leader.log().logEndOffset() <= leader.log().highWatermark())
                        {
                            return false;
                        }
                    }
                    return true;
                }, 30_000, "records appended on every partition and not acknowledged");
                final long stalledAt = ackCount.get();
                for (final TopicPartition tp : partitions)
                {
                    assertEquals(hwAtStop.get(tp), SyncMirrors.sourceHighWatermark(clusters.source(), tp),
                        "no ack while the destination's ISR cannot be evaluated");
                }

                final long releasedAtNs = System.nanoTime();
                SyncMirrors.release(clusters.source(), MIRROR, TOPIC);
                Clients.awaitCondition(() -> ackCount.get() > stalledAt + 50, 10_000, "acks resume after the release");
                assertTrue(System.nanoTime() - releasedAtNs < 5_000_000_000L, "the release unblocked producers at once");

                clusters.destination().startBroker(1);
                Clients.awaitCondition(() -> failingPartitions(clusters) == PARTITIONS, 30_000,
                    "every partition's reports refused (INVALID_SYNC_REGISTRATION)");
                SyncMirrors.awaitTypes(clusters.destination(), MIRROR, TOPIC, MirrorType.SYNC, MirrorType.ASYNC,
                    30_000);
                assertTrue(rejected(clusters, RejectReason.ALL_PARTITIONS_FAILING) >= 1);
                SyncMirrors.awaitTypes(clusters.destination(), MIRROR, TOPIC, MirrorType.SYNC, MirrorType.SYNC,
                    60_000);
                SyncMirrors.awaitRegistered(clusters.source(), TOPIC, MIRROR, true, 10_000);
                final long resumed = ackCount.get();
                Clients.awaitCondition(() -> ackCount.get() > resumed + 50, 30_000, "acks flow again in SYNC");
            }
            finally
            {
                running.set(false);
                load.join(60_000);
            }
            assertNull(failure.get(), "no produce failed");
            for (int p = 0; p < PARTITIONS; p++)
            {
                clusters.awaitCaughtUp(new TopicPartition(TOPIC, p), 60_000);
            }
            int found = 0;
            try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(clusters.destination().bootstrapServers(),
                Map.of()))
            {
                final List<TopicPartition> partitions = List.of(new TopicPartition(TOPIC, 0),
                    new TopicPartition(TOPIC, 1), new TopicPartition(TOPIC, 2));
                consumer.assign(partitions);
                consumer.seekToBeginning(partitions);
                final long deadline = System.currentTimeMillis() + 60_000;
                while (found < acked.size() && System.currentTimeMillis() < deadline)
                {
                    for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(java.time.Duration.ofMillis(200)))
                    {
                        final String expected = acked.get(record.partition() + "@" + record.offset());
                        if (expected != null)
                        {
                            assertEquals(expected, new String(record.value(), StandardCharsets.UTF_8));
                            found++;
                        }
                    }
                }
            }
            assertEquals(acked.size(), found, "every acknowledged record is on the destination at its offset");
        }
    }
}

package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.replica.Partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mirroring follows the source partition's leadership: a 3-broker source whose partition leader moves (its broker
 * stopped) before and during mirroring. Node 1 runs the source's controller, so the leaders moved are on 2 and 3.
 */
@Timeout(120)
class MirrorSourceLeaderTest
{
    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(3, 1, Map.of());
        clusters.createMirror("m1");
    }

    @Test
    @DisplayName("AM-05 a source partition whose leader changed before mirroring (leader epoch > 0) is mirrored")
    void shouldMirrorSourcePartitionWithLeaderEpochAboveZero() throws Exception
    {
        final String topic = "moved-before";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, topic, Map.of(0, List.of(2, 3, 1)), Map.of());
            produce(topic, 0, 50);
            clusters.source().stopBroker(2);
            Clients.awaitCondition(() -> Clients.leaderOf(admin, topic) == 3, 30_000, "leader moved to 3");
            produce(topic, 50, 50);
            clusters.source().startBroker(2);
            Clients.awaitCondition(() -> Clients.sortedIsr(admin, topic).equals(List.of(1, 2, 3)), 30_000,
                "broker 2 back in the ISR");
        }
        final int sourceEpoch = AsyncMirroringTest.leader(clusters.source(), tp).role().leaderEpoch();
        assertTrue(sourceEpoch > 0, "source leader epoch " + sourceEpoch);

        clusters.addAndAwaitMirroring("m1", topic, 1);
        clusters.awaitCaughtUp(tp, 30_000);
        produce(topic, 100, 20);
        clusters.awaitCaughtUp(tp, 30_000);
        final List<String> sourceRecords = Mirrors.records(clusters.source(), tp);
        assertEquals(120, sourceRecords.size());
        assertEquals(sourceRecords, Mirrors.records(clusters.destination(), tp));
        // The destination's log carries the source's epochs: its latest is the source leader's.
        assertEquals(sourceEpoch, AsyncMirroringTest.leader(clusters.destination(), tp).log().latestEpoch().orElse(-1));
        assertNull(error(topic), "no mirror error left");
    }

    @Test
    @DisplayName("AM-05 the source leader stops while records are produced: mirroring moves to the new leader and "
        + "ends with exactly the source's records")
    void shouldFollowSourceLeaderChangeWhileProducing() throws Exception
    {
        final String topic = "moved-during";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, topic, Map.of(0, List.of(3, 2, 1)), Map.of());
            clusters.addAndAwaitMirroring("m1", topic, 1);

            final AtomicBoolean running = new AtomicBoolean(true);
            final AtomicInteger produced = new AtomicInteger();
            final AtomicReference<Exception> failure = new AtomicReference<>();
            final Thread producing = new Thread(() ->
            {
                try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
                    Map.of()))
                {
                    while (running.get())
                    {
                        final int i = produced.get();
                        producer.send(new ProducerRecord<>(topic, 0, bytes("k" + i), bytes("v" + i))).get();
                        produced.incrementAndGet();
                    }
                }
                catch (final Exception e)
                {
                    failure.set(e);
                }
            }, "source-producer");
            producing.setDaemon(true);
            producing.start();
            Clients.awaitCondition(() -> produced.get() >= 200, 30_000, "produced before the leader stops");
            // The next leader is the first replica of the assignment that is in the ISR: 2 only while it is.
            Clients.awaitCondition(() -> Clients.sortedIsr(admin, topic).equals(List.of(1, 2, 3)), 30_000,
                "every replica in the ISR before the leader stops");
            clusters.source().stopBroker(3);
            TrialMirrors.awaitOrFail(() -> Clients.leaderOf(admin, topic) == 2, 30_000, () -> "leader moved to 2; " +
                "leader " + Clients.leaderOf(admin, topic) + ", ISR " + Clients.sortedIsr(admin, topic));
            final int before = produced.get();
            Clients.awaitCondition(() -> produced.get() >= before + 200, 30_000, "produced after the move");
            running.set(false);
            producing.join(30_000);
            assertNull(failure.get(), "producer failed: " + failure.get());
            clusters.source().startBroker(3);
            Clients.awaitCondition(() -> Clients.sortedIsr(admin, topic).equals(List.of(1, 2, 3)), 30_000,
                "broker 3 back in the ISR");
        }
        clusters.awaitCaughtUp(tp, 30_000);
        final Partition sourceLeader = AsyncMirroringTest.leader(clusters.source(), tp);
        assertNotEquals(3, sourceLeader.role().leaderId());
        final List<String> sourceRecords = Mirrors.records(clusters.source(), tp);
        assertTrue(sourceRecords.size() >= 400, "records " + sourceRecords.size());
        assertEquals(sourceRecords, Mirrors.records(clusters.destination(), tp));
        Clients.awaitCondition(() -> error(topic) == null, 10_000, "mirror error cleared: " + error(topic));
        assertTrue(Mirrors.allIn(clusters.destination(), "m1", topic, 1, MirrorPartitionState.MIRRORING.id()));
    }

    /** The partition's last error as describe shows it, null when none. */
    private static String error(final String topic)
    {
        try
        {
            final var partition = Mirrors.partitions(clusters.destination(), "m1", topic).get(0);
            return partition.lastErrorCode() == 0 ? null : partition.lastErrorCode() + " " +
                partition.lastErrorMessage();
        }
        catch (final Exception e)
        {
            return e.toString();
        }
    }

    private static void produce(final String topic, final int from, final int count) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            for (int i = from; i < from + count; i++)
            {
                producer.send(new ProducerRecord<>(topic, 0, bytes("k" + i), bytes("v" + i)));
            }
            producer.flush();
        }
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

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
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Mirroring survives a destination leader's crash and an unreachable source, with no gap and no duplicate. */
@Timeout(180)
class MirrorResilienceTest
{
    private static final int PARTITIONS = 3;

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters()
    {
        clusters = MirrorClusters.start(1, 3, Map.of("default.replication.factor", "3"));
    }

    @Test
    @DisplayName("a destination partition leader crashed and restarted mid-mirror: mirroring resumes with no gap and "
        + "no duplicate")
    void shouldResumeAfterDestinationLeaderRestart() throws Exception
    {
        final String topic = "resilient";
        clusters.createSourceTopic(topic, PARTITIONS);
        clusters.createMirror("m1");
        clusters.addAndAwaitMirroring("m1", topic, PARTITIONS);

        try (Producing producing = new Producing(topic))
        {
            producing.awaitAtLeast(300);
            // The leader of a partition, not node 1 (the destination's controller).
            int victim = -1;
            TopicPartition victimPartition = null;
            for (int p = 0; p < PARTITIONS && victim < 0; p++)
            {
                final Partition leader =
                    AsyncMirroringTest.leader(clusters.destination(), new TopicPartition(topic, p));
                if (leader != null && leader.role().leaderId() != 1)
                {
                    victim = leader.role().leaderId();
                    victimPartition = leader.topicPartition();
                }
            }
            assertTrue(victim > 1, "some partition is led by broker 2 or 3");
            clusters.destination().killBroker(victim);
            final TopicPartition moved = victimPartition;
            final int crashed = victim;
            Clients.awaitCondition(() ->
            {
                final Partition leader = AsyncMirroringTest.leader(clusters.destination(), moved);
                return leader != null && leader.role().leaderId() != crashed;
            }, 30_000, "a new destination leader for " + moved);
            final int before = producing.count();
            producing.awaitAtLeast(before + 200);
            clusters.destination().startBroker(victim);
            clusters.destination().awaitBrokersRegistered();
            producing.awaitAtLeast(producing.count() + 200);
        }
        for (int p = 0; p < PARTITIONS; p++)
        {
            final TopicPartition tp = new TopicPartition(topic, p);
            clusters.awaitCaughtUp(tp, 30_000);
            assertEquals(Mirrors.records(clusters.source(), tp), Mirrors.records(clusters.destination(), tp),
                "records of " + tp);
        }
        clusters.awaitState("m1", topic, PARTITIONS, MirrorPartitionState.MIRRORING, "partitions MIRRORING at the end");
    }

    @Test
    @DisplayName("an unreachable source shows in describe as an error, and mirroring recovers by itself when the "
        + "source returns")
    void shouldRecoverWhenSourceReturns() throws Exception
    {
        final String topic = "outage";
        clusters.createSourceTopic(topic, PARTITIONS);
        clusters.createMirror("m-outage");
        clusters.addAndAwaitMirroring("m-outage", topic, PARTITIONS);
        produce(topic, 0, 100);
        for (int p = 0; p < PARTITIONS; p++)
        {
            clusters.awaitCaughtUp(new TopicPartition(topic, p), 30_000);
        }

        clusters.source().stopBroker(1);
        final AtomicReference<String> seen = new AtomicReference<>();
        Clients.awaitCondition(() ->
        {
            final String failing = failing(topic);
            seen.set(failing);
            return failing != null;
        }, 30_000, "describe shows the source outage");
        assertTrue(seen.get().contains("p0") || seen.get().contains("p1") || seen.get().contains("p2"), seen.get());

        clusters.source().startBroker(1);
        clusters.source().awaitBrokersRegistered();
        produce(topic, 100, 100);
        for (int p = 0; p < PARTITIONS; p++)
        {
            final TopicPartition tp = new TopicPartition(topic, p);
            clusters.awaitCaughtUp(tp, 60_000);
            assertEquals(Mirrors.records(clusters.source(), tp), Mirrors.records(clusters.destination(), tp),
                "records of " + tp);
        }
        assertEquals(200, countRecords(topic));
        Clients.awaitCondition(() -> Mirrors.allIn(clusters.destination(), "m-outage", topic, PARTITIONS,
            MirrorPartitionState.MIRRORING.id()) && failing(topic) == null, 30_000,
            "MIRRORING with no error after the source returned: " + Mirrors.describeAll(clusters.destination(), topic));
        assertNull(failing(topic));
    }

    /** The partitions describe shows FAILED or with an error, as text; null when none. */
    private static String failing(final String topic)
    {
        final StringBuilder text = new StringBuilder();
        try
        {
            for (final DescribeClusterMirrorsResponseData.MirrorPartition p :
                Mirrors.partitions(clusters.destination(), "m-outage", topic))
            {
                if (p.state() == MirrorPartitionState.FAILED.id() || p.lastErrorCode() != 0)
                {
                    text.append("p").append(p.partitionIndex()).append(" state ").append(p.state()).append(" error ")
                        .append(p.lastErrorCode()).append(' ').append(p.lastErrorMessage()).append("; ");
                }
            }
        }
        catch (final Exception e)
        {
            return null;
        }
        return text.length() == 0 ? null : text.toString();
    }

    private static int countRecords(final String topic)
    {
        int count = 0;
        for (int p = 0; p < PARTITIONS; p++)
        {
            count += Mirrors.records(clusters.destination(), new TopicPartition(topic, p)).size();
        }
        return count;
    }

    private static void produce(final String topic, final int from, final int count) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            for (int i = from; i < from + count; i++)
            {
                producer.send(new ProducerRecord<>(topic, i % PARTITIONS, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    /** Produces records to the source on a thread until closed; each acknowledged before the next is sent. */
    private static final class Producing implements AutoCloseable
    {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final AtomicInteger produced = new AtomicInteger();
        private final AtomicReference<Exception> failure = new AtomicReference<>();
        private final Thread thread;

        Producing(final String topic)
        {
            thread = new Thread(() ->
            {
                try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
                    Map.of()))
                {
                    while (running.get())
                    {
                        final int i = produced.get();
                        producer.send(new ProducerRecord<>(topic, i % PARTITIONS,
                            ("k" + i).getBytes(StandardCharsets.UTF_8), ("v" + i).getBytes(StandardCharsets.UTF_8)))
                            .get();
                        produced.incrementAndGet();
                        Thread.sleep(2);
                    }
                }
                catch (final Exception e)
                {
                    failure.set(e);
                }
            }, "source-producer");
            thread.setDaemon(true);
            thread.start();
        }

        int count()
        {
            return produced.get();
        }

        void awaitAtLeast(final int count) throws InterruptedException
        {
            Clients.awaitCondition(() -> produced.get() >= count || failure.get() != null, 30_000,
                "produced " + count);
            assertNull(failure.get(), "producer failed: " + failure.get());
        }

        @Override
        public void close()
        {
            running.set(false);
            try
            {
                thread.join(30_000);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
            assertNull(failure.get(), "producer failed: " + failure.get());
            assertNotEquals(0, produced.get());
        }
    }
}

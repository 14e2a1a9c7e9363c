package io.syncmirror.tests;

import java.lang.management.ManagementFactory;
import java.util.Map;
import java.util.Set;

import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.mirror.MirrorMetrics;
import io.syncmirror.protocol.MirrorPartitionState;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mirroring metrics read over JMX from the platform MBeanServer, as a monitoring agent reads them: a 1-broker
 * source and a 1-broker destination in this JVM, the destination's mirror fetching throttled so that a burst on the
 * source shows as lag for several seconds.
 */
@Timeout(180)
class MirrorMetricsTest
{
    private static final String MIRROR = "metered-mirror";
    private static final String TOPIC = "metered";
    private static final int PARTITIONS = 2;
    /** {@code mirror.replication.throttled.rate} on the destination: a 200 KB burst takes about 10 s to mirror. */
    private static final long THROTTLED_RATE_BYTES_PER_SEC = 20_000L;
    private static final int BURST_RECORDS = 200;
    private static final int BURST_RECORD_BYTES = 1_000;

    private final MBeanServer server = ManagementFactory.getPlatformMBeanServer();

    @Test
    @DisplayName("AM-17 JMX shows partitions per state, lag per partition and max lag per mirror (positive while the "
        + "source is ahead, 0 once caught up) and no dead fetcher threads; the MBeans go with the broker")
    void shouldShowMirrorStateAndLagOverJmx() throws Exception
    {
        final String tag;
        try (MirrorClusters clusters = MirrorClusters.start(1, 1,
            Map.of("mirror.replication.throttled.rate", Long.toString(THROTTLED_RATE_BYTES_PER_SEC))))
        {
            final EmbeddedCluster source = clusters.source();
            final EmbeddedCluster destination = clusters.destination();
            tag = destination.broker(1).mirrorMetrics().brokerTag();
            assertNotEquals(source.broker(1).mirrorMetrics().brokerTag(), tag,
                "two node 1s in one JVM must not share MBean names");

            try (Admin admin = Clients.admin(source.bootstrapServers()))
            {
                Clients.createTopic(admin, TOPIC, PARTITIONS, (short)1, Map.of());
            }
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(source.bootstrapServers(), Map.of()))
            {
                for (int i = 0; i < 20; i++)
                {
                    producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, new byte[10]));
                }
            }
            Mirrors.create(destination, MIRROR, source);
            Mirrors.addOk(destination, MIRROR, TOPIC);

            final ObjectName mirroring = MirrorMetrics.partitionsInStateName(tag, MirrorPartitionState.MIRRORING);
            Clients.awaitCondition(() -> value(mirroring) == PARTITIONS, 30_000, "PartitionsInState MIRRORING");
            for (final MirrorPartitionState state : MirrorPartitionState.values())
            {
                if (state != MirrorPartitionState.MIRRORING)
                {
                    assertEquals(0L, value(MirrorMetrics.partitionsInStateName(tag, state)), state.name());
                }
            }
            for (int p = 0; p < PARTITIONS; p++)
            {
                final ObjectName state = MirrorMetrics.partitionStateName(tag, MIRROR, new TopicPartition(TOPIC, p));
                assertEquals(MirrorPartitionState.MIRRORING.id(), server.getAttribute(state, "Value"));
                assertEquals("MIRRORING", server.getAttribute(state, "StateName"));
            }

            Clients.awaitCondition(() -> lags(tag) == 0L && value(MirrorMetrics.maxLagName(tag, MIRROR)) == 0L,
                30_000, "caught up: PartitionLag and MaxLag 0");
            assertEquals(0L, value(MirrorMetrics.deadThreadCountName(tag)));

            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(source.bootstrapServers(), Map.of()))
            {
                for (int i = 0; i < BURST_RECORDS; i++)
                {
                    producer.send(new ProducerRecord<>(TOPIC, i % PARTITIONS, null, new byte[BURST_RECORD_BYTES]));
                }
            }
            final long[] seenLag = new long[1];
            Clients.awaitCondition(() ->
            {
                final long maxLag = value(MirrorMetrics.maxLagName(tag, MIRROR));
                final long partitionLags = lags(tag);
                seenLag[0] = maxLag;
                // Read within one snapshot the two agree; a snapshot taken in between makes the next poll decide.
                return maxLag > 0 && maxLag == partitionLags;
            }, 30_000, "lag while the source is ahead");
            assertTrue(seenLag[0] <= BURST_RECORDS / PARTITIONS, "lag counts offsets, at most the burst's: " +
                seenLag[0] + "; " + offsets(source, destination));

            Clients.awaitCondition(() -> lags(tag) == 0L && value(MirrorMetrics.maxLagName(tag, MIRROR)) == 0L,
                60_000, "caught up after the burst");
            for (int p = 0; p < PARTITIONS; p++)
            {
                final TopicPartition tp = new TopicPartition(TOPIC, p);
                assertEquals(AsyncMirroringTest.hw(source, tp), AsyncMirroringTest.leader(destination, tp).log()
                    .logEndOffset(), "mirrored " + tp);
            }
            assertEquals((long)PARTITIONS, value(mirroring));
            assertEquals(0L, value(MirrorMetrics.deadThreadCountName(tag)));
        }
        final Set<ObjectName> left = server.queryNames(new ObjectName("kafka.server:broker=" + tag + ",*"), null);
        assertEquals(Set.of(), left, "a stopped broker leaves no mirror MBeans");
    }

    /** Each partition's source HW and destination LEO, for failure messages. */
    private static String offsets(final EmbeddedCluster source, final EmbeddedCluster destination)
    {
        final StringBuilder text = new StringBuilder();
        for (int p = 0; p < PARTITIONS; p++)
        {
            final TopicPartition tp = new TopicPartition(TOPIC, p);
            text.append(tp).append(": source HW ").append(AsyncMirroringTest.hw(source, tp))
                .append(", destination LEO ").append(AsyncMirroringTest.leader(destination, tp).log().logEndOffset())
                .append("; ");
        }
        return text.toString();
    }

    /**
     * The largest PartitionLag of the topic's partitions; negative when a partition's lag is not known yet (-1) or
     * its MBean cannot be read (-2).
     */
    private long lags(final String tag)
    {
        long max = 0L;
        for (int p = 0; p < PARTITIONS; p++)
        {
            final long lag = value(MirrorMetrics.partitionLagName(tag, MIRROR, new TopicPartition(TOPIC, p)));
            if (lag < 0)
            {
                return lag;
            }
            max = Math.max(max, lag);
        }
        return max;
    }

    /** A gauge's Value as a long, -2 while the MBean is not (yet) registered. */
    private long value(final ObjectName name)
    {
        try
        {
            return ((Number)server.getAttribute(name, "Value")).longValue();
        }
        catch (final JMException e)
        {
            return -2L;
        }
    }
}

package io.syncmirror.tests;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.mirror.MirrorMetrics;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.server.BrokerServer;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One source topic mirrored in SYNC mode to two destination clusters: the source acknowledges only what both
 * hold, and releasing one destination leaves the other gating.
 */
@Timeout(180)
class SyncMultiDestinationTest
{
    private static final String EAST = "east";
    private static final String WEST = "west";
    private static final String TOPIC = "two-destinations";

    private static EmbeddedCluster source;
    private static EmbeddedCluster east;
    private static EmbeddedCluster west;

    @BeforeAll
    static void start() throws Exception
    {
        source = EmbeddedCluster.start(1, Mirrors.FAST);
        east = EmbeddedCluster.start(1, Mirrors.FAST);
        west = EmbeddedCluster.start(1, Mirrors.FAST);
        try (Admin admin = Clients.admin(source.bootstrapServers()))
        {
            Clients.createTopic(admin, TOPIC, 1, (short)1, Map.of());
        }
        promote(east, EAST);
        promote(west, WEST);
    }

    @AfterAll
    static void stop()
    {
        for (final EmbeddedCluster cluster : new EmbeddedCluster[] {west, east, source})
        {
            if (cluster != null)
            {
                cluster.close();
            }
        }
    }

    private static void promote(final EmbeddedCluster destination, final String mirror) throws Exception
    {
        Mirrors.create(destination, mirror, source);
        Mirrors.addOk(destination, mirror, TOPIC);
        Mirrors.awaitState(destination, mirror, TOPIC, 1, MirrorPartitionState.MIRRORING, "MIRRORING");
        final MirrorTopicResult altered = SyncMirrors.alter(destination, 1, mirror, TOPIC,
            MirrorType.SYNC);
        assertEquals(Errors.NONE.code(), altered.errorCode(), String.valueOf(altered.errorMessage()));
        SyncMirrors.awaitTypes(destination, mirror, TOPIC, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(source, TOPIC, mirror, true, 10_000);
    }

    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    private static long leoOfSource()
    {
        return leo(source);
    }

    private static long leo(final EmbeddedCluster cluster)
    {
        return cluster.broker(1).replicaManager().partitionOrNull(new TopicPartition(TOPIC, 0)).log().logEndOffset();
    }

    /** SyncPartitionFetchFailures{reason=INVALID} of partition 0 on the destination. */
    private static long invalidReports(final EmbeddedCluster destination)
    {
        final BrokerServer broker = destination.broker(1);
        broker.mirrorMetrics().refresh();
        try
        {
            return ((Number)ManagementFactory.getPlatformMBeanServer().getAttribute(
                MirrorMetrics.syncPartitionFetchFailuresName(broker.mirrorMetrics().brokerTag(), WEST,
                    new TopicPartition(TOPIC, 0), "INVALID"), MirrorMetrics.VALUE_ATTRIBUTE)).longValue();
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

    @Test
    @DisplayName("SI-10 with two sync destinations the source acks only what both hold; releasing one removes only "
        + "it, the other keeps gating, and the released one's reports get INVALID_SYNC_REGISTRATION")
    void shouldGateOnBothAndKeepTheOtherAfterARelease() throws Exception
    {
        assertEquals(Set.of(EAST, WEST), SyncMirrors.registeredMirrors(source, 1, TOPIC));
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(source.bootstrapServers(), Map.of()))
        {
            final RecordMetadata first = producer.send(new ProducerRecord<>(TOPIC, 0, null,
                "both".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
            assertTrue(leo(east) > first.offset() && leo(west) > first.offset(), "acked only once both held it");

            west.stopBroker(1);
            final Future<RecordMetadata> heldByWest = producer.send(new ProducerRecord<>(TOPIC, 0, null,
                "waits-for-west".getBytes(StandardCharsets.UTF_8)));
            final long held = first.offset() + 1;
            // East reports holding it: with west's registration ignored, that report would acknowledge it.
            Clients.awaitCondition(() -> SyncMirrors.reportedIsrMinLeo(source, TP, EAST) > held, 30_000,
                "east reported the record");
            assertEquals(held, SyncMirrors.sourceHighWatermark(source, TP),
                "west is down: its ISR cannot be evaluated, the HW waits");
            assertFalse(heldByWest.isDone());

            SyncMirrors.release(source, WEST, TOPIC);
            SyncMirrors.awaitRegistered(source, TOPIC, WEST, false, 10_000);
            assertEquals(Set.of(EAST), SyncMirrors.registeredMirrors(source, 1, TOPIC));
            final RecordMetadata released = heldByWest.get(30, TimeUnit.SECONDS);
            assertTrue(leo(east) > released.offset(), "east still had to hold it");

            east.stopBroker(1);
            final Future<RecordMetadata> heldByEast = producer.send(new ProducerRecord<>(TOPIC, 0, null,
                "waits-for-east".getBytes(StandardCharsets.UTF_8)));
            // The HW is decided at the append: without east's gate it would follow the local ISR at once.
            Clients.awaitCondition(() -> leoOfSource() > released.offset() + 1, 30_000, "appended at the source");
            assertEquals(released.offset() + 1, SyncMirrors.sourceHighWatermark(source, TP),
                "east keeps gating after west's release");
            assertFalse(heldByEast.isDone());
            east.startBroker(1);
            heldByEast.get(60, TimeUnit.SECONDS);

            west.startBroker(1);
            // West restarts with its topic SYNC: its reports land on the released registration.
            Clients.awaitCondition(() -> invalidReports(west) > 0, 30_000,
                "the released destination's reports answered INVALID_SYNC_REGISTRATION");
        }
    }
}

package io.syncmirror.tests;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.BrokerLifecycleManager;
import io.syncmirror.broker.mirror.MirrorMetrics;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.server.BrokerServer;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Per-partition registration errors end to end: a two-broker source where one partition leader lags on metadata,
 * a one-broker destination. The destination treats the errors as per-partition signals: the topic stays SYNC, the
 * failing partition is counted and retried, the other partition keeps gating, and all resumes when the leader
 * catches up, with no demotion.
 */
@Timeout(180)
class SyncPartitionSignalsTest
{
    private static final String MIRROR = "signals";

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(2, 1, Map.of());
        clusters.createMirror(MIRROR);
        // A first promotion creates the source's __mirror_state (the registration ledger's topic) while every
        // source broker follows the metadata: a broker held back later would never host its partitions.
        createMirrored("warm-up");
        assertEquals(Errors.NONE.code(), SyncMirrors.alter(clusters.destination(), 1, MIRROR, "warm-up",
            MirrorType.SYNC).errorCode());
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, "warm-up", MirrorType.SYNC, MirrorType.SYNC, 30_000);
    }

    /** A topic whose partition 0 is led by source broker 1 and partition 1 by source broker 2, mirrored. */
    private static void createMirrored(final String topic) throws Exception
    {
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, topic, Map.of(0, List.of(1), 1, List.of(2)), Map.of());
        }
        clusters.addAndAwaitMirroring(MIRROR, topic, 2);
    }

    private static long failures(final String topic, final int partition, final String reason)
    {
        final BrokerServer broker = clusters.destination().broker(1);
        broker.mirrorMetrics().refresh();
        try
        {
            return ((Number)ManagementFactory.getPlatformMBeanServer().getAttribute(
                MirrorMetrics.syncPartitionFetchFailuresName(broker.mirrorMetrics().brokerTag(), MIRROR,
                    new TopicPartition(topic, partition), reason), MirrorMetrics.VALUE_ATTRIBUTE)).longValue();
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

    private static long failing(final String topic)
    {
        final BrokerServer broker = clusters.destination().broker(1);
        broker.mirrorMetrics().refresh();
        try
        {
            return ((Number)ManagementFactory.getPlatformMBeanServer().getAttribute(
                MirrorMetrics.syncPartitionsFailingName(broker.mirrorMetrics().brokerTag(), MIRROR, topic),
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

    private static byte effectiveType(final String topic) throws Exception
    {
        return SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow().effectiveMirrorType();
    }

    private static void produceAcked(final String topic, final int partition) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            producer.send(new ProducerRecord<>(topic, partition, null, "x".getBytes(StandardCharsets.UTF_8)))
                .get(30, TimeUnit.SECONDS);
        }
    }

    /** Runs the scenario with source broker 2 held at {@code hold}; {@code reason} is what it must answer. */
    private static void runScenario(final String topic, final BrokerLifecycleManager.MetadataHold hold,
        final String reason) throws Exception
    {
        createMirrored(topic);
        final BrokerServer stale = clusters.source().broker(2);
        try
        {
            stale.holdMetadata(hold).get(10, TimeUnit.SECONDS); // no metadata fetch on its way any more
            final MirrorTopicResult altered = SyncMirrors.alter(clusters.destination(), 1, MIRROR,
                topic, MirrorType.SYNC);
            assertEquals(Errors.NONE.code(), altered.errorCode(), String.valueOf(altered.errorMessage()));
            SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
            Clients.awaitCondition(() -> failures(topic, 1, reason) >= 2, 15_000,
                "partition 1's reports answered " + reason + " and retried");
            // Reports start as the promotion registers, so partition 0 may have been refused once before the
            // registration reached its leader; it is not refused any more.
            final long partition0 = failures(topic, 0, reason);
            final long partition1 = failures(topic, 1, reason);
            Clients.awaitCondition(() -> failures(topic, 1, reason) >= partition1 + 2, 15_000,
                "partition 1's reports refused twice more");
            assertEquals(partition0, failures(topic, 0, reason), "partition 0's leader is current: meanwhile, none "
                + "of its reports was refused");
            assertEquals(1, failing(topic), "one partition of two is failing");
            assertEquals(MirrorType.SYNC.id(), effectiveType(topic), "a per-partition signal does not demote");
            produceAcked(topic, 0);
            assertTrue(clusters.source().broker(1).replicaManager().partitionOrNull(new TopicPartition(topic, 0))
                .isSyncGated(), "partition 0 keeps gating");
        }
        finally
        {
            stale.holdMetadata(BrokerLifecycleManager.MetadataHold.NONE);
        }
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 15_000);
        Clients.awaitCondition(() -> failing(topic) == 0, 15_000, "partition 1 resumes without a demotion");
        final Partition resumed = stale.replicaManager().partitionOrNull(new TopicPartition(topic, 1));
        assertTrue(resumed.isSyncGated());
        produceAcked(topic, 1);
        assertEquals(MirrorType.SYNC.id(), effectiveType(topic));
    }

    @Test
    @DisplayName("SI-19 a leader behind on metadata answers MIRROR_REGISTRATION_PROPAGATING: counted per partition "
        + "(reason PROPAGATING), retried, the topic stays SYNC, the other partition gates, and it resumes")
    void shouldTreatPropagatingAsAPartitionSignal() throws Exception
    {
        runScenario("propagating", BrokerLifecycleManager.MetadataHold.APPLY, "PROPAGATING");
    }

    @Test
    @DisplayName("SI-20 a stale leader that answers INVALID_SYNC_REGISTRATION for its partition does not demote the "
        + "topic; it resumes gating once the leader catches up")
    void shouldNotDemoteForOneStaleLeader() throws Exception
    {
        runScenario("stale-leader", BrokerLifecycleManager.MetadataHold.FETCH, "INVALID");
    }
}

package io.syncmirror.tests;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.mirror.MirrorMetrics;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.mirror.sync.RejectReason;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Source-side release and the destination's recovery, control plane: the source's ledger and registration set,
 * the destination's effective and desired types, its recovery hint and its metrics. The destination retries
 * promotions after 3 s, so the state between a rejection and the recovery stays observable.
 */
@Timeout(180)
class SyncReleaseTest
{
    private static final String MIRROR = "rel-m";

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(2, 1, Map.of("mirror.retry.backoff.ms", "3000",
            "mirror.retry.backoff.max.ms", "6000"));
        clusters.createMirror(MIRROR);
    }

    @Test
    @DisplayName("SI-09 SU-08 after --release-sync a stale Register (RecoveryPromotion=false) is rejected with "
        + "MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION and does not re-establish sync; a recovery Register clears "
        + "the marker")
    void shouldRejectAStaleRegisterAfterARelease() throws Exception
    {
        final String topic = "stale-register";
        promote(topic, 2);
        SyncMirrors.release(clusters.source(), MIRROR, topic);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, false, 10_000);

        final MirrorTopicResult stale = SyncMirrors.register(clusters.source(), MIRROR, topic,
            SyncMirrors.topicId(clusters.source(), topic), false);
        assertEquals(MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), stale.errorCode(),
            String.valueOf(stale.errorMessage()));
        // An admission commits its registration change before it answers: once every broker applied the log as far
        // as the controller wrote it after the answer, an image without the mirror shows that nothing was admitted.
        SyncMirrors.awaitMetadataCaughtUp(clusters.source());
        for (int node = 1; node <= clusters.source().size(); node++)
        {
            assertFalse(SyncMirrors.registeredMirrors(clusters.source(), node, topic).contains(MIRROR),
                "a stale Register must not re-register the mirror");
        }

        final MirrorTopicResult recovery = SyncMirrors.register(clusters.source(), MIRROR, topic,
            SyncMirrors.topicId(clusters.source(), topic), true);
        assertEquals(Errors.NONE.code(), recovery.errorCode(), String.valueOf(recovery.errorMessage()));
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);
        // The marker is gone: an ordinary Register is admitted again.
        assertEquals(Errors.NONE.code(), SyncMirrors.register(clusters.source(), MIRROR, topic,
            SyncMirrors.topicId(clusters.source(), topic), false).errorCode());
    }

    @Test
    @DisplayName("SI-13 a Register that lands on a Released marker keeps the topic ASYNC with desired SYNC and the "
        + "recovery hint, the partitions stay MIRRORING and replicate, and the next Register recovers sync")
    void shouldRecoverAfterARejectedRegister() throws Exception
    {
        final String topic = "auto-demote";
        promote(topic, 2);
        final long rejectedBefore = rejected(RejectReason.RELEASED_FRESH_PROMOTION_REQUIRED);
        SyncMirrors.release(clusters.source(), MIRROR, topic);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, false, 10_000);

        // The destination's next Register is an ordinary one: demote and promote again (the hint is in memory).
        assertEquals(Errors.NONE.code(), SyncMirrors.alter(clusters.destination(), 1, MIRROR, topic,
            MirrorType.ASYNC).errorCode());
        assertEquals(Errors.NONE.code(), SyncMirrors.alter(clusters.destination(), 1, MIRROR, topic,
            MirrorType.SYNC).errorCode());
        Clients.awaitCondition(() -> rejected(RejectReason.RELEASED_FRESH_PROMOTION_REQUIRED) >
            rejectedBefore, 20_000, "the source rejected the Register on its Released marker");
        final DescribeClusterMirrorsResponseData.MirrorTopic rejectedState =
            SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow();
        assertEquals(MirrorType.SYNC.id(), rejectedState.desiredMirrorType());
        assertEquals(MirrorType.ASYNC.id(), rejectedState.effectiveMirrorType());
        assertTrue(rejectedState.recoveryPending(), rejectedState.toString());
        assertTrue(String.valueOf(rejectedState.statusMessage()).contains("released by source"),
            rejectedState.toString());
        for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : rejectedState.partitions())
        {
            assertEquals(MirrorPartitionState.MIRRORING.id(), partition.state(), partition.toString());
        }
        // Replication goes on in ASYNC.
        produce(topic, 10);
        clusters.awaitCaughtUp(new TopicPartition(topic, 0), 15_000);
        clusters.awaitCaughtUp(new TopicPartition(topic, 1), 15_000);

        // The recovery Register (after the backoff) carries RecoveryPromotion=true and is admitted.
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);
        assertFalse(SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow().recoveryPending());
    }

    @Test
    @DisplayName("SI-01 release without topics releases every topic the mirror registered on the source, and the "
        + "source's registered-topics gauge follows")
    void shouldReleaseEveryTopicOfTheMirror() throws Exception
    {
        final String first = "release-all-1";
        final String second = "release-all-2";
        promote(first, 1);
        promote(second, 1);
        Clients.awaitCondition(() -> registeredGauge() >= 2, 10_000, "two registered sync topics at the source");
        SyncMirrors.release(clusters.source(), MIRROR);
        SyncMirrors.awaitRegistered(clusters.source(), first, MIRROR, false, 10_000);
        SyncMirrors.awaitRegistered(clusters.source(), second, MIRROR, false, 10_000);
        assertEquals(MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), SyncMirrors.register(
            clusters.source(), MIRROR, second, SyncMirrors.topicId(clusters.source(), second), false).errorCode());
    }

    @Test
    @DisplayName("SU-07 the source admits a Register without a Released marker, commits the registration before "
        + "answering (every source broker's image then shows it), and a clean Unregister removes it without a marker")
    void shouldAdmitARegisterAndCommitItsRecord() throws Exception
    {
        final String topic = "plain-register";
        clusters.createSourceTopic(topic, 1);
        final MirrorTopicResult admitted = SyncMirrors.register(clusters.source(), "other-dest",
            topic, SyncMirrors.topicId(clusters.source(), topic), false);
        assertEquals(Errors.NONE.code(), admitted.errorCode(), String.valueOf(admitted.errorMessage()));
        // Committed to the metadata log before the answer; brokers apply it on their own cadence.
        SyncMirrors.awaitRegistered(clusters.source(), topic, "other-dest", true, 10_000);

        try (io.syncmirror.protocol.MirrorWireClient client = Mirrors.client(clusters.source(), 2))
        {
            final io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData response = client.send(
                new io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData().setMirrorName("other-dest")
                    .setTopics(java.util.List.of(new io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData
                        .TopicState().setTopicId(SyncMirrors.topicId(clusters.source(), topic)).setTopicName(topic))),
                io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData.class);
            assertEquals(Errors.NONE.code(), response.errorCode(), String.valueOf(response.errorMessage()));
        }
        SyncMirrors.awaitRegistered(clusters.source(), topic, "other-dest", false, 10_000);
        assertEquals(Errors.NONE.code(), SyncMirrors.register(clusters.source(), "other-dest", topic,
            SyncMirrors.topicId(clusters.source(), topic), false).errorCode(), "no marker after a clean Unregister");
    }

    private static void promote(final String topic, final int partitions) throws Exception
    {
        clusters.createSourceTopic(topic, partitions);
        produce(topic, 10);
        clusters.addAndAwaitMirroring(MIRROR, topic, partitions);
        assertEquals(Errors.NONE.code(), SyncMirrors.alter(clusters.destination(), 1, MIRROR, topic,
            MirrorType.SYNC).errorCode());
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);
    }

    private static long rejected(final RejectReason reason)
    {
        try
        {
            final MirrorMetrics metrics = clusters.destination().broker(1).mirrorMetrics();
            return (Long)ManagementFactory.getPlatformMBeanServer().getAttribute(
                MirrorMetrics.syncRegistrationRejectedName(metrics.brokerTag(), reason), MirrorMetrics.VALUE_ATTRIBUTE);
        }
        catch (final Exception e)
        {
            throw new AssertionError(e);
        }
    }

    /** The source's SyncRegisteredTopics gauge, summed over its brokers (each counts from its own image). */
    private static int registeredGauge()
    {
        try
        {
            final MirrorMetrics metrics = clusters.source().broker(1).mirrorMetrics();
            return (Integer)ManagementFactory.getPlatformMBeanServer().getAttribute(
                MirrorMetrics.syncRegisteredTopicsName(metrics.brokerTag()), MirrorMetrics.VALUE_ATTRIBUTE);
        }
        catch (final Exception e)
        {
            throw new AssertionError(e);
        }
    }

    private static void produce(final String topic, final int records) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < records; i++)
            {
                producer.send(new ProducerRecord<>(topic, ("v" + i).getBytes(StandardCharsets.UTF_8))).get();
            }
        }
    }
}

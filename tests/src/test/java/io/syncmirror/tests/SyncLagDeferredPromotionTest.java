package io.syncmirror.tests;

import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Promotion waits for the lag to drain: the destination's mirror fetches are throttled to 40 kB/s. */
@Timeout(180)
class SyncLagDeferredPromotionTest
{
    private static final String MIRROR = "slow";

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(1, 1, Map.of("mirror.replication.throttled.rate", "40000"));
        clusters.createMirror(MIRROR);
    }

    @Test
    @DisplayName("SI-03 SU-05 --alter --sync while the lag is above 0 answers a pending-lag-drain note, keeps the "
        + "topic ASYNC with desired SYNC, and promotes it once the lag drains")
    void shouldDeferPromotionUntilTheLagDrains() throws Exception
    {
        final String topic = "lagging";
        clusters.createSourceTopic(topic, 1);
        clusters.addAndAwaitMirroring(MIRROR, topic, 1);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
            Map.of("batch.size", 16_384, "linger.ms", 5)))
        {
            final byte[] value = new byte[1_000];
            for (int i = 0; i < 300; i++)
            {
                producer.send(new ProducerRecord<>(topic, value));
            }
            producer.flush();
        }
        Clients.awaitCondition(() -> lag(topic) > 0, 10_000, "the destination lags behind the source");

        final MirrorTopicResult result = SyncMirrors.alter(clusters.destination(), 1, MIRROR,
            topic, MirrorType.SYNC);
        assertEquals(Errors.NONE.code(), result.errorCode(), String.valueOf(result.errorMessage()));
        assertTrue(String.valueOf(result.errorMessage()).contains("pending lag drain"), result.toString());
        final DescribeClusterMirrorsResponseData.MirrorTopic pending =
            SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow();
        assertEquals(MirrorType.SYNC.id(), pending.desiredMirrorType());
        assertEquals(MirrorType.ASYNC.id(), pending.effectiveMirrorType());
        assertFalse(pending.recoveryPending());
        assertTrue(SyncMirrors.registeredMirrors(clusters.source(), 1, topic).isEmpty(),
            "no registration while the lag drains");

        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 60_000);
        assertEquals(0L, lag(topic));
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);
    }

    private static long lag(final String topic)
    {
        try
        {
            return Mirrors.partitions(clusters.destination(), MIRROR, topic).get(0).lag();
        }
        catch (final java.io.IOException e)
        {
            throw new java.io.UncheckedIOException(e);
        }
    }
}

package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * ASYNC to SYNC promotion and demotion through the control path: a one-broker source, a two-broker destination
 * (partitions led by both, so the promotion's driver asks the other broker for its lags).
 */
@Timeout(180)
class SyncPromotionTest
{
    private static final String MIRROR = "sync-m";

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(1, 2, Map.of());
        clusters.createMirror(MIRROR);
    }

    @Test
    @DisplayName("SI-04 SU-01 a topic added as SYNC starts ASYNC, auto-promotes once its lag is 0, and the source "
        + "registers the mirror on it")
    void shouldAutoPromoteATopicAddedAsSync() throws Exception
    {
        final String topic = "auto-promote";
        clusters.createSourceTopic(topic, 4);
        produce(topic, 40);
        try (MirrorWireClient client = Mirrors.client(clusters.destination(), 2))
        {
            final AddTopicsToMirrorResponseData response = client.send(new AddTopicsToMirrorRequestData().setTopics(
                java.util.List.of(new AddTopicsToMirrorRequestData.TopicState().setTopicName(topic)
                    .setMirrorName(MIRROR).setMirrorType(MirrorType.SYNC.id()))), AddTopicsToMirrorResponseData.class);
            final MirrorTopicResult result = MirrorTopicResult.of(response).get(0);
            assertEquals(Errors.NONE.code(), result.errorCode(), String.valueOf(result.errorMessage()));
        }
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);
    }

    @Test
    @DisplayName("SI-05 removing a SYNC topic from the mirror (failover) unregisters it at the source and clears its "
        + "desired and effective mirror types")
    void shouldUnregisterAndClearTypesOnRemoval() throws Exception
    {
        final String topic = "removed-sync";
        clusters.createSourceTopic(topic, 2);
        produce(topic, 10);
        clusters.addAndAwaitMirroring(MIRROR, topic, 2);
        final MirrorTopicResult altered = SyncMirrors.alter(clusters.destination(), 1, MIRROR,
            topic, MirrorType.SYNC);
        assertEquals(Errors.NONE.code(), altered.errorCode(), String.valueOf(altered.errorMessage()));
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);

        Mirrors.remove(clusters.destination(), MIRROR, topic);
        clusters.awaitState(MIRROR, topic, 2, MirrorPartitionState.STOPPED, "partitions STOPPED");
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, false, 10_000);
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.ASYNC, MirrorType.ASYNC, 10_000);
        final DescribeClusterMirrorsResponseData.MirrorTopic described =
            SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow();
        assertFalse(described.recoveryPending());
    }

    @Test
    @DisplayName("SU-05 SI-01 demoting a SYNC topic with AlterMirrorTopicType(ASYNC) takes effect at once and "
        + "unregisters it at the source; promoting it again re-registers it")
    void shouldDemoteAtOnceAndPromoteAgain() throws Exception
    {
        final String topic = "demoted";
        clusters.createSourceTopic(topic, 3);
        produce(topic, 30);
        clusters.addAndAwaitMirroring(MIRROR, topic, 3);
        assertEquals(Errors.NONE.code(), SyncMirrors.alter(clusters.destination(), 2, MIRROR, topic,
            MirrorType.SYNC).errorCode());
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);

        final MirrorTopicResult demoted = SyncMirrors.alter(clusters.destination(), 2, MIRROR,
            topic, MirrorType.ASYNC);
        assertEquals(Errors.NONE.code(), demoted.errorCode(), String.valueOf(demoted.errorMessage()));
        // Committed before the answer: every broker's image converges on it within a metadata round.
        final DescribeClusterMirrorsResponseData.MirrorTopic afterDemote =
            SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow();
        assertEquals(MirrorType.ASYNC.id(), afterDemote.desiredMirrorType());
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.ASYNC, MirrorType.ASYNC, 5_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, false, 10_000);

        assertEquals(Errors.NONE.code(), SyncMirrors.alter(clusters.destination(), 1, MIRROR, topic,
            MirrorType.SYNC).errorCode());
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);
    }

    @Test
    @DisplayName("SU-05 AlterMirrorTopicType refuses a topic that is not in the mirror and an unknown type")
    void shouldRefuseBadAlterRequests() throws Exception
    {
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), SyncMirrors.alter(clusters.destination(), 1, MIRROR,
            "no-such-topic", MirrorType.SYNC).errorCode());
        try (MirrorWireClient client = Mirrors.client(clusters.destination(), 1))
        {
            final MirrorTopicResult result = MirrorTopicResult.of(client.send(
                new io.syncmirror.protocol.AlterMirrorTopicTypeRequestData().setMirrorName(MIRROR).setTopics(
                    java.util.List.of(new io.syncmirror.protocol.AlterMirrorTopicTypeRequestData.AlterMirrorTopic()
                        .setTopicName("auto-promote").setMirrorType((byte)7))),
                io.syncmirror.protocol.AlterMirrorTopicTypeResponseData.class)).get(0);
            assertEquals(Errors.INVALID_REQUEST.code(), result.errorCode());
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

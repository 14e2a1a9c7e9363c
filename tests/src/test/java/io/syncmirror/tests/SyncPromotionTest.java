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

import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.TopicResultsResponseData;

import static org.junit.jupiter.api.Assertions.assertEquals;

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
        SyncMirrors.applySyncConfig(clusters.source());
        SyncMirrors.applySyncConfig(clusters.destination());
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
            final TopicResultsResponseData.TopicResult result = response.topics().get(0);
            assertEquals(Errors.NONE.code(), result.errorCode(), String.valueOf(result.errorMessage()));
        }
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);
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

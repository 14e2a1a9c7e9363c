package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Synchronous mirroring end to end between two clusters of the reference broker: a one-broker source and a
 * two-broker destination whose mirror topics have two replicas, with real Kafka producers on the source.
 */
@Timeout(180)
class SyncReplicationTest
{
    private static final String MIRROR = "sync-data";

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(1, 2, Map.of("default.replication.factor", "2", "min.insync.replicas", "2"));
        clusters.createMirror(MIRROR);
    }

    /** Adds {@code topic} to the mirror, promotes it and waits until the source gates on the mirror. */
    private static void promote(final String topic, final int partitions) throws Exception
    {
        clusters.addAndAwaitMirroring(MIRROR, topic, partitions);
        final MirrorTopicResult altered = SyncMirrors.alter(clusters.destination(), 1, MIRROR,
            topic, MirrorType.SYNC);
        assertEquals(Errors.NONE.code(), altered.errorCode(), String.valueOf(altered.errorMessage()));
        SyncMirrors.awaitTypes(clusters.destination(), MIRROR, topic, MirrorType.SYNC, MirrorType.SYNC, 30_000);
        SyncMirrors.awaitRegistered(clusters.source(), topic, MIRROR, true, 10_000);
    }

    /** The lowest LEO over the destination replicas of {@code tp} (both brokers host one). */
    private static long destinationMinLeo(final TopicPartition tp)
    {
        long min = Long.MAX_VALUE;
        final EmbeddedCluster destination = clusters.destination();
        for (int node = 1; node <= destination.size(); node++)
        {
            final Partition partition = destination.broker(node).replicaManager().partitionOrNull(tp);
            min = Math.min(min, partition == null ? -1L : partition.log().logEndOffset());
        }
        return min;
    }

    @Test
    @DisplayName("SI-02 SU-02 a SYNC topic: every acknowledged record is already on every destination ISR replica "
        + "when its ack arrives, and both clusters end byte-identical")
    void shouldAcknowledgeOnlyWhatTheDestinationIsrHolds() throws Exception
    {
        final String topic = "sync-data";
        clusters.createSourceTopic(topic, 3);
        promote(topic, 3);
        final ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        final List<Future<RecordMetadata>> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < 300; i++)
            {
                sent.add(producer.send(new ProducerRecord<>(topic, i % 3, null,
                    ("r" + i).getBytes(StandardCharsets.UTF_8)), (metadata, error) ->
                {
                    if (error == null)
                    {
                        final TopicPartition tp = new TopicPartition(topic, metadata.partition());
                        final long minLeo = destinationMinLeo(tp);
                        if (minLeo <= metadata.offset())
                        {
                            violations.add(tp + "@" + metadata.offset() + " acked with destination min LEO " + minLeo);
                        }
                    }
                }));
            }
            for (final Future<RecordMetadata> future : sent)
            {
                future.get(30, TimeUnit.SECONDS);
            }
        }
        assertTrue(violations.isEmpty(), "acked before the destination ISR held it: " + violations);
        for (int p = 0; p < 3; p++)
        {
            final TopicPartition tp = new TopicPartition(topic, p);
            clusters.awaitCaughtUp(tp, 30_000);
            assertArrayEquals(AsyncMirroringTest.batchBytes(clusters.source(), tp),
                AsyncMirroringTest.batchBytes(clusters.destination(), tp));
        }
    }

    @Test
    @DisplayName("SI-02 with the destination's only in-sync follower stopped (ISR under its MinISR of 2), source "
        + "acks stop; they resume once it is back")
    void shouldStopAcknowledgingWhileTheDestinationIsrIsUnderItsMinimum() throws Exception
    {
        final String topic = "sync-min-isr";
        clusters.createSourceTopic(topic, 1);
        promote(topic, 1);
        final TopicPartition tp = new TopicPartition(topic, 0);
        final int destinationLeader = AsyncMirroringTest.leader(clusters.destination(), tp).role().leaderId();
        final int follower = destinationLeader == 1 ? 2 : 1;
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            producer.send(new ProducerRecord<>(topic, 0, null, "before".getBytes(StandardCharsets.UTF_8)))
                .get(30, TimeUnit.SECONDS);
            clusters.destination().stopBroker(follower);
            final Future<RecordMetadata> held = producer.send(new ProducerRecord<>(topic, 0, null,
                "held".getBytes(StandardCharsets.UTF_8)));
            // The destination reports holding the record in its ISR once that ISR shrank to the leader alone:
            // from that report on, a gate that ignored the mirror's MinISR would acknowledge it.
            Clients.awaitCondition(() -> SyncMirrors.reportedIsrMinLeo(clusters.source(), tp, MIRROR) >= 2, 30_000,
                "the destination reported its shrunk ISR holding the record");
            assertEquals(1, SyncMirrors.sourceHighWatermark(clusters.source(), tp),
                "no ack while the destination cannot hold the record on 2 replicas");
            assertFalse(held.isDone());
            clusters.destination().startBroker(follower);
            assertEquals(1, held.get(60, TimeUnit.SECONDS).offset());
        }
    }
}

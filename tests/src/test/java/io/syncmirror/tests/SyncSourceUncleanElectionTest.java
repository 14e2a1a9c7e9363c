package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.protocol.MirrorType;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

/**
 * A SYNC topic whose source partition loses its only in-sync replica: with unclean election the source elects a
 * replica that lacks the acknowledged tail and the destination follows it (KIP-1279's behaviour, no zero RPO
 * through an unclean election); without it the partition stays leaderless, acks stop, and the destination can
 * take over with every acknowledged record.
 *
 * <p>Source: three brokers (the controller on node 1), the topic on brokers 2 (leader) and 3, min.insync.replicas 1.
 * Broker 3 stops replicating, drops out of the ISR, and broker 2 then acknowledges a tail (with the destination)
 * that broker 3 lacks; broker 2 is killed.
 */
@Timeout(240)
class SyncSourceUncleanElectionTest
{
    private static final String MIRROR = "ule";

    /** Creates the topic on source brokers 2 (leader) and 3, min.insync.replicas 1, and promotes it to SYNC. */
    private static void createAndPromote(final MirrorClusters clusters, final String topic,
        final boolean uncleanElection) throws Exception
    {
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, topic, Map.of(0, List.of(2, 3)), Map.of(
                "unclean.leader.election.enable", Boolean.toString(uncleanElection), "min.insync.replicas", "1"));
        }
        promote(clusters, topic);
    }

    private static void promote(final MirrorClusters clusters, final String topic) throws Exception
    {
        clusters.createMirror(MIRROR);
        clusters.addAndPromoteToSync(MIRROR, topic, 1);
    }

    private static List<RecordMetadata> produce(final KafkaProducer<byte[], byte[]> producer, final String topic,
        final String prefix, final int count) throws Exception
    {
        final List<RecordMetadata> acked = new ArrayList<>();
        for (int i = 0; i < count; i++)
        {
            acked.add(producer.send(new ProducerRecord<>(topic, 0, null, (prefix + i).getBytes(StandardCharsets.UTF_8)))
                .get(30, TimeUnit.SECONDS));
        }
        return acked;
    }

    /**
     * Brings the topic to: 5 records on both source replicas and the destination, then 5 more acknowledged while
     * broker 3 was out of the ISR, then kills broker 2 (the only ISR member).
     */
    private static void loseTheOnlyIsrMember(final MirrorClusters clusters, final String topic,
        final KafkaProducer<byte[], byte[]> producer) throws Exception
    {
        produce(producer, topic, "both-", 5);
        final TopicPartition tp = new TopicPartition(topic, 0);
        Clients.awaitCondition(() -> clusters.source().broker(3).replicaManager().partitionOrNull(tp).log()
            .logEndOffset() == 5, 10_000, "broker 3 replicated the first 5");
        clusters.source().broker(3).pauseReplication();
        // Kafka's rule: the paused follower holds the whole log and stays in sync until the leader appends past
        // it; replica.lag.time.max.ms later it leaves the ISR, and the tail is acknowledged without it.
        final List<java.util.concurrent.Future<RecordMetadata>> tail = new ArrayList<>();
        for (int i = 0; i < 5; i++)
        {
            tail.add(producer.send(new ProducerRecord<>(topic, 0, null, ("tail-" + i).getBytes(StandardCharsets.UTF_8))));
        }
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.awaitCondition(() -> Clients.sortedIsr(admin, topic).equals(List.of(2)), 30_000,
                "broker 3 leaves the ISR");
        }
        for (final java.util.concurrent.Future<RecordMetadata> ack : tail)
        {
            ack.get(30, TimeUnit.SECONDS);
        }
        Clients.awaitCondition(() -> clusters.destination().broker(1).replicaManager().partitionOrNull(tp).log()
            .logEndOffset() == 10, 10_000, "the destination holds the acknowledged tail");
        clusters.source().killBroker(2);
    }

    @Test
    @DisplayName("SI-14 with unclean election on the source, the destination detects the divergence through the "
        + "leader epochs, truncates to the divergence point and re-syncs from the new source leader")
    void shouldFollowAnUncleanElection() throws Exception
    {
        try (MirrorClusters clusters = MirrorClusters.start(3, 1, Map.of()))
        {
            final String topic = "unclean";
            createAndPromote(clusters, topic, true);
            final TopicPartition tp = new TopicPartition(topic, 0);
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
                Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000)))
            {
                loseTheOnlyIsrMember(clusters, topic, producer);
                clusters.source().broker(3).resumeReplication();
                try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
                {
                    Clients.awaitCondition(() -> Clients.leaderOf(admin, topic) == 3, 30_000,
                        "broker 3 is elected uncleanly");
                }
                final List<RecordMetadata> after = produce(producer, topic, "new-", 3);
                assertEquals(5, after.get(0).offset(), "the new leader's log ends where broker 3's did");
            }
            // The destination drops the tail the new source leader lacks (no zero RPO through an unclean
            // election, as the spec says) and ends identical to it.
            Clients.awaitCondition(() ->
            {
                final Partition destination = clusters.destination().broker(1).replicaManager().partitionOrNull(tp);
                return destination.log().logEndOffset() == 8 && destination.log().highWatermark() == 8;
            }, 30_000, "the destination re-synced from the new leader");
            assertArrayEquals(AsyncMirroringTest.batchBytes(clusters.source(), tp),
                AsyncMirroringTest.batchBytes(clusters.destination(), tp));
            assertEquals(MirrorType.SYNC.id(), SyncMirrors.topic(clusters.destination(), MIRROR, topic).orElseThrow()
                .effectiveMirrorType());
        }
    }

    @Test
    @DisplayName("SI-15 with unclean election disabled the source partition stays leaderless, acks stop, and the "
        + "operator's failover to the destination keeps every acknowledged record")
    void shouldPauseWhenUncleanElectionIsBlocked() throws Exception
    {
        try (MirrorClusters clusters = MirrorClusters.start(3, 1, Map.of()))
        {
            final String topic = "clean-only";
            createAndPromote(clusters, topic, false);
            final TopicPartition tp = new TopicPartition(topic, 0);
            final KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
                Map.of(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000, ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000));
            try
            {
                loseTheOnlyIsrMember(clusters, topic, producer);
                final Future<RecordMetadata> stuck = producer.send(new ProducerRecord<>(topic, 0, null,
                    "no-leader".getBytes(StandardCharsets.UTF_8)));
                try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
                {
                    // Once the controller fences the killed broker (its session times out), nobody may lead.
                    Clients.awaitCondition(() -> Clients.leaderOf(admin, topic) < 0, 30_000,
                        "the partition has no leader");
                }
                assertFalse(stuck.isDone(), "no source leader, no ack");
            }
            finally
            {
                producer.close(Duration.ZERO); // its record can never be acknowledged: do not wait for it
            }
            // The operator fails over: the topic leaves the mirror; its Unregister cannot reach a leader-less
            // partition's registration state in time or fails, and STOPPING proceeds.
            Mirrors.remove(clusters.destination(), MIRROR, topic);
            Mirrors.awaitState(clusters.destination(), MIRROR, topic, 1, MirrorPartitionState.STOPPED, "STOPPED");
            final List<String> records = Mirrors.records(clusters.destination(), tp);
            assertEquals(10, records.size(), "every acknowledged record is on the destination: " + records);
            for (int i = 0; i < 5; i++)
            {
                assertEquals(i + " null both-" + i, records.get(i));
                assertEquals((i + 5) + " null tail-" + i, records.get(i + 5));
            }
            try (KafkaProducer<byte[], byte[]> primary = Clients.producer(
                clusters.destination().bootstrapServers(), Map.of()))
            {
                assertEquals(10, produce(primary, topic, "primary-", 1).get(0).offset(),
                    "the destination is the new primary");
            }
        }
    }
}

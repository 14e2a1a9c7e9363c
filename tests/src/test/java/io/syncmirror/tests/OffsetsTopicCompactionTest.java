package io.syncmirror.tests;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.storage.UnifiedLogPartitionLog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code __consumer_offsets} is compacted by the brokers' log cleaners: 100k offset commits leave each replica of
 * the group's partition at about one segment, and the group's offsets read back after a restart of the cluster
 * are the last ones committed (the coordinator loads them from a cleaned replica).
 */
@Timeout(180)
class OffsetsTopicCompactionTest
{
    private static final String GROUP = "compaction-group";
    private static final String TOPIC = "offsets-load";
    private static final int PARTITIONS = 100;
    private static final int COMMITS = 1_000;
    private static final int SEGMENT_BYTES = 1024 * 1024;
    /** EmbeddedCluster's offsets.topic.num.partitions. */
    private static final int OFFSETS_PARTITIONS = 5;

    @AutoClose
    private static EmbeddedCluster cluster;

    @BeforeAll
    static void startCluster()
    {
        cluster = EmbeddedCluster.start(2, Map.of("log.cleaner.backoff.ms", "100",
            "offsets.topic.segment.bytes", Integer.toString(SEGMENT_BYTES)));
    }

    @Test
    @DisplayName("__consumer_offsets stays bounded under 100k offset commits on both replicas, and the last "
        + "commits survive a restart")
    void shouldKeepOffsetsTopicBounded() throws Exception
    {
        final TopicPartition offsetsPartition = new TopicPartition("__consumer_offsets",
            Utils.abs(GROUP.hashCode()) % OFFSETS_PARTITIONS);
        final Map<TopicPartition, OffsetAndMetadata> last = new HashMap<>();
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, TOPIC, PARTITIONS, (short)1, Map.of());
            // 1,000 commits of 100 partitions each: 100k offset records for 100 keys.
            for (int commit = 1; commit <= COMMITS; commit++)
            {
                final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (int p = 0; p < PARTITIONS; p++)
                {
                    offsets.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(commit * 10L + p));
                }
                admin.alterConsumerGroupOffsets(GROUP, offsets).all().get();
                last.clear();
                last.putAll(offsets);
            }

            Clients.awaitCondition(() -> bounded(offsetsPartition), 60_000,
                offsetsPartition + " was never cleaned on both replicas: " + sizes(offsetsPartition));
            for (final UnifiedLog log : replicas(offsetsPartition))
            {
                assertTrue(log.logEndOffset() >= (long)COMMITS * PARTITIONS, log + " took every commit");
            }

        }
        // Both brokers restart: whichever leads the partition then loads the group from its own cleaned log.
        cluster.stopBroker(2);
        cluster.stopBroker(1);
        cluster.startBroker(1);
        cluster.startBroker(2);
        cluster.awaitBrokersRegistered();
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            assertEquals(last, readOffsets(admin), "the offsets after the restart are the last committed");
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> readOffsets(final Admin admin) throws Exception
    {
        final AtomicReference<Map<TopicPartition, OffsetAndMetadata>> read = new AtomicReference<>(Map.of());
        Clients.awaitCondition(() ->
        {
            try
            {
                read.set(admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get());
                return read.get().size() == PARTITIONS;
            }
            catch (final Exception e)
            {
                return false; // the coordinator is still loading
            }
        }, 30_000, "the group's offsets could not be read after the restart");
        return read.get();
    }

    /** Both replicas hold at most about one segment: the 100k records were cleaned to one per key. */
    private static boolean bounded(final TopicPartition tp)
    {
        for (final UnifiedLog log : replicas(tp))
        {
            if (log.size() > SEGMENT_BYTES + 64 * 1024 || log.numberOfSegments() > 3)
            {
                return false;
            }
        }
        return true;
    }

    private static String sizes(final TopicPartition tp)
    {
        final StringBuilder text = new StringBuilder();
        for (final UnifiedLog log : replicas(tp))
        {
            text.append(log.parentDir()).append(": ").append(log.size()).append(" bytes in ")
                .append(log.numberOfSegments()).append(" segments, LEO ").append(log.logEndOffset()).append("; ");
        }
        return text.toString();
    }

    private static java.util.List<UnifiedLog> replicas(final TopicPartition tp)
    {
        final java.util.List<UnifiedLog> logs = new java.util.ArrayList<>();
        for (int node = 1; node <= cluster.size(); node++)
        {
            final Partition partition = cluster.broker(node) == null ? null
                : cluster.broker(node).replicaManager().partitionOrNull(tp);
            if (partition != null)
            {
                logs.add(((UnifiedLogPartitionLog)partition.log()).unifiedLog());
            }
        }
        assertEquals(2, logs.size(), "replicas of " + tp);
        return logs;
    }
}

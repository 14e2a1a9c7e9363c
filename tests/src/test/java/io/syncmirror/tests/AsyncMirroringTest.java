package io.syncmirror.tests;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.server.BrokerServer;
import io.syncmirror.broker.storage.PartitionLog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** Asynchronous mirroring between two clusters in this JVM: a 1-broker source and a 3-broker destination. */
@Timeout(180)
class AsyncMirroringTest
{
    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters()
    {
        clusters = MirrorClusters.start(1, 3, Map.of("default.replication.factor", "3"));
    }

    @Test
    @DisplayName("AM-01 AM-02 a mirror topic has the source's id, partitions and configs, is read-only, and holds "
        + "the source's batches byte for byte at their offsets, compression kept")
    void shouldMirrorByteForByte() throws Exception
    {
        final String topic = "orders";
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 2, (short)1, Map.of("compression.type", "producer",
                "retention.ms", "86400000"));
        }
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
            Map.<String, Object>of("compression.type", "lz4", "linger.ms", "5")))
        {
            for (int i = 0; i < 500; i++)
            {
                producer.send(new ProducerRecord<>(topic, i % 2, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    ("value-" + i).getBytes(StandardCharsets.UTF_8)));
            }
        }
        clusters.createMirror("m1");
        clusters.addAndAwaitMirroring("m1", topic, 2);
        final TopicDescription sourceTopic;
        final TopicDescription destinationTopic;
        try (Admin sourceAdmin = Clients.admin(clusters.source().bootstrapServers());
             Admin destinationAdmin = Clients.admin(clusters.destination().bootstrapServers()))
        {
            sourceTopic = Clients.describe(sourceAdmin, topic);
            Clients.awaitCondition(() -> fullyReplicated(destinationAdmin, topic), 30_000, "destination RF 3");
            destinationTopic = Clients.describe(destinationAdmin, topic);
            final Config config = destinationAdmin.describeConfigs(List.of(new ConfigResource(
                ConfigResource.Type.TOPIC, topic))).all().get().values().iterator().next();
            assertEquals("86400000", config.get("retention.ms").value());
            assertEquals("m1", config.get("mirror.name").value());
        }
        assertEquals(sourceTopic.topicId(), destinationTopic.topicId());
        assertEquals(2, destinationTopic.partitions().size());

        for (int p = 0; p < 2; p++)
        {
            final TopicPartition tp = new TopicPartition(topic, p);
            Clients.awaitCondition(() -> hw(clusters.destination(), tp) == hw(clusters.source(), tp), 30_000,
                "caught up " + tp);
            assertArrayEquals(batchBytes(clusters.source(), tp), batchBytes(clusters.destination(), tp),
                "batches of " + tp);
        }

        // A consumer on the destination reads the same offsets and values.
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(clusters.destination().bootstrapServers(),
            Map.of()))
        {
            final List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
            final List<ConsumerRecord<byte[], byte[]>> records = Clients.readAll(consumer, partitions, 500, 30_000);
            assertEquals(500, records.size());
            for (final ConsumerRecord<byte[], byte[]> record : records)
            {
                final int i = Integer.parseInt(new String(record.key(), StandardCharsets.UTF_8).substring(1));
                assertEquals(i % 2, record.partition());
                assertEquals(i / 2, record.offset());
                assertEquals("value-" + i, new String(record.value(), StandardCharsets.UTF_8));
            }
        }

        // Read-only while mirrored.
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.destination().bootstrapServers(),
            Map.<String, Object>of("retries", "0", "enable.idempotence", "false")))
        {
            final ExecutionException refused = assertThrows(ExecutionException.class, () -> producer.send(
                new ProducerRecord<>(topic, 0, null, "x".getBytes(StandardCharsets.UTF_8))).get());
            assertInstanceOf(PolicyViolationException.class, refused.getCause());
            assertEquals(true, refused.getCause().getMessage().contains("read-only mirror topic"),
                refused.getCause().getMessage());
        }
    }

    private static boolean fullyReplicated(final Admin admin, final String topic)
    {
        try
        {
            return Clients.describe(admin, topic).partitions().stream().allMatch(p -> p.isr().size() == 3);
        }
        catch (final Exception e)
        {
            return false;
        }
    }

    /** The partition's HW at its leader. */
    static long hw(final EmbeddedCluster cluster, final TopicPartition tp)
    {
        final Partition leader = leader(cluster, tp);
        return leader == null ? -1L : leader.log().highWatermark();
    }

    static Partition leader(final EmbeddedCluster cluster, final TopicPartition tp)
    {
        for (int node = 1; node <= cluster.size(); node++)
        {
            final BrokerServer broker = cluster.broker(node); // null while stopped
            final Partition partition = broker == null || broker.replicaManager() == null ? null :
                broker.replicaManager().partitionOrNull(tp);
            if (partition != null && partition.isLeader())
            {
                return partition;
            }
        }
        return null;
    }

    /** Every batch of the leader's log up to its HW, bytes concatenated. */
    static byte[] batchBytes(final EmbeddedCluster cluster, final TopicPartition tp)
    {
        final PartitionLog log = leader(cluster, tp).log();
        final List<byte[]> batches = new ArrayList<>();
        int total = 0;
        long offset = log.logStartOffset();
        while (offset < log.highWatermark())
        {
            final PartitionLog.ReadResult read = log.read(offset, 1 << 20, FetchIsolation.HIGH_WATERMARK, true);
            long next = offset;
            for (final RecordBatch batch : read.records().batches())
            {
                if (batch.lastOffset() < offset)
                {
                    continue;
                }
                final ByteBuffer buffer = ByteBuffer.allocate(batch.sizeInBytes());
                batch.writeTo(buffer);
                batches.add(buffer.array());
                total += buffer.capacity();
                next = batch.nextOffset();
            }
            if (next == offset)
            {
                break;
            }
            offset = next;
        }
        final ByteBuffer all = ByteBuffer.allocate(total);
        batches.forEach(all::put);
        return all.array();
    }
}

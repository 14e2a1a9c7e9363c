package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.storage.PartitionLog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The destination follows the source's log start offset, and restarts its log at the source's log start when the
 * records it would fetch next are gone at the source. The reference broker serves no DeleteRecords request, so
 * the test moves the source partition's log start as DeleteRecords would, on the source leader's log.
 */
@Timeout(120)
class MirrorRetentionTest
{
    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        clusters = MirrorClusters.start(1, 1, Map.of());
        clusters.createMirror("m1");
    }

    @Test
    @DisplayName("AM-04 when the source log start moves forward, the destination's log start follows it")
    void shouldFollowSourceLogStart() throws Exception
    {
        final String topic = "follows-start";
        final TopicPartition tp = new TopicPartition(topic, 0);
        createAndProduce(topic, 0, 100, true);
        clusters.addAndAwaitMirroring("m1", topic, 1);
        clusters.awaitCaughtUp(tp, 30_000);
        assertEquals(0L, destinationLog(tp).logStartOffset());

        deleteRecordsBefore(tp, 40);
        produce(topic, 100, 10, false); // the next fetch response carries the moved log start
        clusters.awaitCaughtUp(tp, 30_000);
        Clients.awaitCondition(() -> destinationLog(tp).logStartOffset() == 40, 30_000,
            "destination log start follows the source's 40");
        assertEquals(Mirrors.records(clusters.source(), tp), Mirrors.records(clusters.destination(), tp));
        assertEquals(40L, Mirrors.records(clusters.destination(), tp).stream().map(r -> Long.parseLong(r.split(" ")[0]))
            .findFirst().orElseThrow());
    }

    @Test
    @DisplayName("AM-04 a destination whose fetch offset is below the source log start restarts its log at the "
        + "source log start and mirrors on from there")
    void shouldRestartAtSourceLogStartWhenOutOfRange() throws Exception
    {
        final String topic = "out-of-range";
        final TopicPartition tp = new TopicPartition(topic, 0);
        createAndProduce(topic, 0, 100, true);
        deleteRecordsBefore(tp, 60);
        // The destination's log is empty: its first fetch, at offset 0, is below the source log start.
        clusters.addAndAwaitMirroring("m1", topic, 1);
        clusters.awaitCaughtUp(tp, 30_000);
        assertEquals(60L, destinationLog(tp).logStartOffset());
        assertEquals(100L, destinationLog(tp).logEndOffset());

        produce(topic, 100, 20, false);
        clusters.awaitCaughtUp(tp, 30_000);
        final List<String> sourceRecords = Mirrors.records(clusters.source(), tp);
        assertEquals(60, sourceRecords.size());
        assertTrue(sourceRecords.get(0).startsWith("60 "), sourceRecords.get(0));
        assertEquals(sourceRecords, Mirrors.records(clusters.destination(), tp));
    }

    @Test
    @DisplayName("AM-04 a source log start inside a batch (DeleteRecords to a mid-batch offset) below which the "
        + "destination's fetch offset lies: the destination restarts there and mirrors on")
    void shouldRestartAtSourceLogStartInsideBatch() throws Exception
    {
        final String topic = "mid-batch";
        final TopicPartition tp = new TopicPartition(topic, 0);
        createAndProduce(topic, 0, 100, false);
        assertTrue(Mirrors.records(clusters.source(), tp).size() == 100, "produced");
        deleteRecordsBefore(tp, 55);
        clusters.addAndAwaitMirroring("m1", topic, 1);
        clusters.awaitCaughtUp(tp, 30_000);
        produce(topic, 100, 20, false);
        clusters.awaitCaughtUp(tp, 30_000);
        assertEquals(Mirrors.records(clusters.source(), tp), Mirrors.records(clusters.destination(), tp));
    }

    /** Kafka's DeleteRecords on the source, through Admin (what kafka-delete-records and Streams send). */
    private static void deleteRecordsBefore(final TopicPartition tp, final long offset) throws Exception
    {
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            assertEquals(offset, admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(offset)))
                .lowWatermarks().get(tp).get().lowWatermark());
        }
        final PartitionLog log = AsyncMirroringTest.leader(clusters.source(), tp).log();
        log.deleteOldSegments();
        assertEquals(offset, log.logStartOffset());
    }

    private static PartitionLog destinationLog(final TopicPartition tp)
    {
        return AsyncMirroringTest.leader(clusters.destination(), tp).log();
    }

    private static void createAndProduce(final String topic, final int from, final int count,
        final boolean batchPerRecord) throws Exception
    {
        clusters.createSourceTopic(topic, 1);
        produce(topic, from, count, batchPerRecord);
    }

    /** Produces records k{i}/v{i}; one batch each when {@code batchPerRecord}, else as the producer batches them. */
    private static void produce(final String topic, final int from, final int count, final boolean batchPerRecord)
        throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
            Map.<String, Object>of("linger.ms", batchPerRecord ? "0" : "20")))
        {
            for (int i = from; i < from + count; i++)
            {
                final var sent = producer.send(new ProducerRecord<>(topic, 0, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    ("v" + i).getBytes(StandardCharsets.UTF_8)));
                if (batchPerRecord)
                {
                    sent.get();
                }
            }
            producer.flush();
        }
    }
}

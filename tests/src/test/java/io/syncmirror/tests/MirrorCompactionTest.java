package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.storage.internals.log.LogCleaner;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.storage.DurableLogStore;
import io.syncmirror.broker.storage.UnifiedLogPartitionLog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Mirroring a compacted source topic keeps its offsets and gaps. The source broker's log cleaner compacts the
 * partition (with transaction markers and aborted records, which leave gaps in the data a read_committed consumer
 * sees); the test then pauses it, so the log the mirror copies stays as it was compared, and the destination runs
 * no cleaner, so its copy is compared as it arrived (LogCompactionTest covers cleaning on both sides).
 */
@Timeout(120)
class MirrorCompactionTest
{
    private static final String TOPIC = "compacted";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters()
    {
        clusters = MirrorClusters.start(1, 1, Map.of("log.cleaner.enable", "false"),
            Map.of("log.cleaner.backoff.ms", "100"));
    }

    @Test
    @DisplayName("AM-03 a compacted source topic is mirrored with identical offsets and gaps, and after failover "
        + "new records follow the highest mirrored offset")
    void shouldMirrorCompactedTopicWithItsGaps() throws Exception
    {
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, TOPIC, 1, (short)1, Map.of("cleanup.policy", "compact",
                "segment.ms", "100", "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0",
                "delete.retention.ms", "0"));
        }
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            for (int round = 0; round < 5; round++)
            {
                // The last round updates the even keys only, so the odd keys' survivors sit between removed offsets.
                for (int key = 0; key < 10; key += round == 4 ? 2 : 1)
                {
                    producer.send(new ProducerRecord<>(TOPIC, 0, bytes("k" + key), bytes("r" + round + "-k" + key)));
                }
                producer.flush();
                Thread.sleep(150); // the next append rolls a new segment (segment.ms)
            }
        }
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
            Map.<String, Object>of("transactional.id", "compaction-txn")))
        {
            producer.initTransactions();
            producer.beginTransaction();
            for (int i = 0; i < 3; i++)
            {
                producer.send(new ProducerRecord<>(TOPIC, 0, bytes("aborted" + i), bytes("aborted")));
            }
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(TOPIC, 0, bytes("k0"), bytes("committed-k0")));
            producer.commitTransaction();
        }
        Thread.sleep(150);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(), Map.of()))
        {
            producer.send(new ProducerRecord<>(TOPIC, 0, bytes("last"), bytes("last"))).get();
        }

        final UnifiedLog sourceLog = unifiedLog(clusters.source());
        final long endBeforeCleaning = sourceLog.logEndOffset();
        final long firstUncleanable = sourceLog.activeSegment().baseOffset();
        assertTrue(firstUncleanable > 50, "segments rolled: active segment starts at " + firstUncleanable);
        final LogCleaner cleaner = ((DurableLogStore)clusters.source().broker(1).logStore()).cleaner().orElseThrow();
        assertTrue(cleaner.awaitCleaned(TP, firstUncleanable, 30_000),
            "the source broker's cleaner cleaned below " + firstUncleanable);
        // A later pass could still drop markers whose delete horizon passes: the log must not change from here.
        cleaner.abortAndPauseCleaning(TP);
        assertEquals(endBeforeCleaning, sourceLog.logEndOffset());

        final List<String> sourceRecords = Mirrors.records(clusters.source(), TP);
        final List<Long> sourceOffsets = offsets(sourceRecords);
        assertTrue(sourceOffsets.size() < endBeforeCleaning, "compaction removed records: " + sourceRecords);
        assertTrue(hasGap(sourceOffsets), "the compacted source log has offset gaps: " + sourceOffsets);

        clusters.createMirror("m1");
        clusters.addAndAwaitMirroring("m1", TOPIC, 1);
        clusters.awaitCaughtUp(TP, 30_000);
        assertEquals(sourceRecords, Mirrors.records(clusters.destination(), TP), "records, offsets and gaps");
        assertEquals(endBeforeCleaning, AsyncMirroringTest.leader(clusters.destination(), TP).log().logEndOffset());

        // A read_committed consumer sees the same committed records at the same offsets on both clusters.
        assertEquals(committed(clusters.source(), sourceOffsets.size()),
            committed(clusters.destination(), sourceOffsets.size()));

        Mirrors.remove(clusters.destination(), "m1", TOPIC);
        clusters.awaitState("m1", TOPIC, 1, MirrorPartitionState.STOPPED, "partition STOPPED");
        final long highestMirrored = sourceOffsets.get(sourceOffsets.size() - 1);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.destination().bootstrapServers(),
            Map.of()))
        {
            long previous = highestMirrored;
            for (int i = 0; i < 3; i++)
            {
                final RecordMetadata written = producer.send(new ProducerRecord<>(TOPIC, 0, bytes("new" + i),
                    bytes("after-failover"))).get();
                assertTrue(written.offset() > previous, "offset " + written.offset() + " follows " + previous);
                previous = written.offset();
            }
        }
        final List<String> after = Mirrors.records(clusters.destination(), TP);
        assertEquals(sourceRecords, after.subList(0, sourceRecords.size()), "mirrored records kept");
        assertEquals(endBeforeCleaning, offsets(after.subList(sourceRecords.size(), after.size())).get(0),
            "the first record written after failover is at the mirrored log end: " + after);
    }

    private static List<String> committed(final EmbeddedCluster cluster, final int atMost)
    {
        final List<String> lines = new ArrayList<>();
        try (var consumer = Clients.consumer(cluster.bootstrapServers(),
            Map.<String, Object>of("isolation.level", "read_committed")))
        {
            for (final var record : Clients.readAll(consumer, List.of(TP), atMost, 5_000))
            {
                lines.add(record.offset() + " " + new String(record.key(), StandardCharsets.UTF_8) + " " +
                    new String(record.value(), StandardCharsets.UTF_8));
            }
        }
        assertTrue(lines.stream().noneMatch(line -> line.contains("aborted")), "aborted records hidden: " + lines);
        return lines;
    }

    private static UnifiedLog unifiedLog(final EmbeddedCluster cluster)
    {
        return ((UnifiedLogPartitionLog)AsyncMirroringTest.leader(cluster, TP).log()).unifiedLog();
    }

    private static List<Long> offsets(final List<String> records)
    {
        return records.stream().map(line -> Long.parseLong(line.substring(0, line.indexOf(' ')))).toList();
    }

    private static boolean hasGap(final List<Long> offsets)
    {
        for (int i = 1; i < offsets.size(); i++)
        {
            if (offsets.get(i) != offsets.get(i - 1) + 1)
            {
                return true;
            }
        }
        return false;
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

package io.syncmirror.tests;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.broker.storage.UnifiedLogPartitionLog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kafka's log cleaner in the broker: every replica of a compacted topic, on the source and on its SYNC mirror,
 * cleans its own log down to one record per key, at the offsets the records were written at; tombstones go once
 * {@code delete.retention.ms} has passed; a failed-over mirror topic goes on compacting. Two brokers per cluster,
 * replication factor 2 on both sides, so leaders and followers both clean.
 */
@Timeout(240)
class LogCompactionTest
{
    private static final String MIRROR = "compaction";
    private static final int KEYS = 100;
    /** The key of the records appended only to make an aged segment roll. */
    private static final String ROLL_KEY = "roll";
    /** The cleaner looks for work every 100 ms instead of Kafka's 15 s. */
    private static final Map<String, String> FAST_CLEANER = Map.of("log.cleaner.backoff.ms", "100");

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters() throws Exception
    {
        final Map<String, String> destination = new HashMap<>(FAST_CLEANER);
        destination.put("default.replication.factor", "2");
        destination.put("min.insync.replicas", "2");
        clusters = MirrorClusters.start(2, 2, destination, FAST_CLEANER);
        clusters.createMirror(MIRROR);
    }

    /** A compacted topic whose segments roll every 100 ms and whose every rolled segment may be cleaned. */
    private static Map<String, String> compacted(final long deleteRetentionMs)
    {
        return Map.of("cleanup.policy", "compact", "segment.ms", "100", "min.cleanable.dirty.ratio", "0.01",
            "min.compaction.lag.ms", "0", "delete.retention.ms", Long.toString(deleteRetentionMs));
    }

    @Test
    @DisplayName("AM-03 SU-02 10k updates over 100 keys: every replica of the source and of its SYNC mirror cleans "
        + "down to one record per key, each at the offset it was written at, and the failed-over mirror goes on "
        + "compacting")
    void shouldCompactSourceAndSyncMirrorReplicas() throws Exception
    {
        final String topic = "compacted-updates";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)2, compacted(86_400_000L));
        }
        clusters.addAndPromoteToSync(MIRROR, topic, 1);

        final Model model = new Model();
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
            Map.of("linger.ms", 5)))
        {
            final List<Future<RecordMetadata>> sent = new ArrayList<>();
            final List<String[]> records = new ArrayList<>();
            for (int i = 0; i < 10_000; i++)
            {
                final String key = "k" + (i % KEYS);
                final String value = "v" + i;
                records.add(new String[] {key, value});
                sent.add(producer.send(new ProducerRecord<>(topic, 0, bytes(key), bytes(value))));
            }
            for (int i = 0; i < sent.size(); i++)
            {
                model.written(sent.get(i).get(30, TimeUnit.SECONDS).offset(), records.get(i)[0], records.get(i)[1]);
            }
            final long lastUpdate = model.lastOffset();
            // Segments roll by age (segment.ms) at the next append: keep appending until every replica's active
            // segment starts above the last of the 10k and its cleaner has caught up with what rolled.
            awaitCompacted(producer, topic, model, lastUpdate, List.of(clusters.source(), clusters.destination()));
        }
        for (final EmbeddedCluster cluster : List.of(clusters.source(), clusters.destination()))
        {
            for (final PartitionLog log : replicas(cluster, tp))
            {
                final List<Entry> entries = entries(log);
                assertTrue(entries.size() < KEYS + 50, log + " keeps " + entries.size() + " of "
                    + log.logEndOffset() + " records");
                model.check(log, entries);
            }
        }

        // Failover: the destination topic becomes writable and its own cleaner goes on compacting what is written
        // to it (AM-03).
        Mirrors.remove(clusters.destination(), MIRROR, topic);
        clusters.awaitState(MIRROR, topic, 1, MirrorPartitionState.STOPPED, "partition STOPPED");
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.destination().bootstrapServers(),
            Map.of("linger.ms", 5)))
        {
            final List<Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < 2_000; i++)
            {
                sent.add(producer.send(new ProducerRecord<>(topic, 0, bytes("k" + (i % KEYS)),
                    bytes("after-failover-" + i))));
            }
            for (int i = 0; i < sent.size(); i++)
            {
                model.written(sent.get(i).get(30, TimeUnit.SECONDS).offset(), "k" + (i % KEYS),
                    "after-failover-" + i);
            }
            awaitCompacted(producer, topic, model, model.lastOffset(), List.of(clusters.destination()));
        }
        for (final PartitionLog log : replicas(clusters.destination(), tp))
        {
            final List<Entry> entries = entries(log);
            assertTrue(entries.size() < KEYS + 50, log + " keeps " + entries.size() + " records after failover");
            model.check(log, entries);
        }
    }

    @Test
    @DisplayName("a record without a key is refused by a compacted topic with Kafka's INVALID_RECORD; the keyed "
        + "records around it stay")
    void shouldRefuseRecordsWithoutAKeyOnACompactedTopic() throws Exception
    {
        final String topic = "compacted-keyless";
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)2, compacted(86_400_000L));
        }
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
            Map.of()))
        {
            final long first = producer.send(new ProducerRecord<>(topic, 0, bytes("k"), bytes("before")))
                .get(30, TimeUnit.SECONDS).offset();
            final ExecutionException refused = assertThrows(ExecutionException.class,
                () -> producer.send(new ProducerRecord<>(topic, 0, null, bytes("no key"))).get(30, TimeUnit.SECONDS));
            assertTrue(refused.getCause() instanceof InvalidRecordException, () -> "refused with " + refused.getCause());
            assertTrue(refused.getCause().getMessage().contains("Compacted topic cannot accept message without key"),
                () -> "the error names the reason: " + refused.getCause().getMessage());
            final long next = producer.send(new ProducerRecord<>(topic, 0, bytes("k"), bytes("after")))
                .get(30, TimeUnit.SECONDS).offset();
            assertEquals(first + 1, next, "the refused record took no offset");
        }
    }

    @Test
    @DisplayName("AM-03 a tombstone stays for delete.retention.ms after its segment is cleaned, then goes with the "
        + "key it deleted, on every replica")
    void shouldDropTombstonesAfterDeleteRetention() throws Exception
    {
        final String topic = "compacted-tombstones";
        final TopicPartition tp = new TopicPartition(topic, 0);
        final long deleteRetentionMs = 5_000L;
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)2, compacted(deleteRetentionMs));
        }
        final Model model = new Model();
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
            Map.of("linger.ms", 5)))
        {
            for (int round = 0; round < 5; round++)
            {
                for (int key = 0; key < KEYS; key++)
                {
                    final String value = "r" + round + "-k" + key;
                    model.written(producer.send(new ProducerRecord<>(topic, 0, bytes("k" + key), bytes(value)))
                        .get(30, TimeUnit.SECONDS).offset(), "k" + key, value);
                }
            }
            // Tombstones for the first half of the keys.
            for (int key = 0; key < KEYS / 2; key++)
            {
                model.written(producer.send(new ProducerRecord<>(topic, 0, bytes("k" + key), null))
                    .get(30, TimeUnit.SECONDS).offset(), "k" + key, null);
            }
            final long tombstonesAt = System.currentTimeMillis();
            awaitCompacted(producer, topic, model, model.lastOffset(), List.of(clusters.source()));
            // Cleaned, and the tombstones are still there: a consumer that reads now still sees the deletes.
            if (System.currentTimeMillis() - tombstonesAt < deleteRetentionMs)
            {
                for (final PartitionLog log : replicas(clusters.source(), tp))
                {
                    final long tombstones = entries(log).stream().filter(e -> e.value == null).count();
                    assertEquals(KEYS / 2, tombstones, log + " keeps the tombstones within delete.retention.ms");
                }
            }
            // Past delete.retention.ms, the next cleaning of those segments drops them (new updates of the live
            // keys make the log dirty again).
            Clients.awaitCondition(() -> System.currentTimeMillis() - tombstonesAt > deleteRetentionMs + 200,
                deleteRetentionMs + 5_000, "time passes");
            for (int key = KEYS / 2; key < KEYS; key++)
            {
                final String value = "late-k" + key;
                model.written(producer.send(new ProducerRecord<>(topic, 0, bytes("k" + key), bytes(value)))
                    .get(30, TimeUnit.SECONDS).offset(), "k" + key, value);
            }
            final long last = model.lastOffset();
            Clients.awaitCondition(() ->
            {
                rollOnce(producer, topic, model);
                for (final PartitionLog log : replicas(clusters.source(), tp))
                {
                    final List<Entry> entries = entries(log);
                    if (activeBase(log) <= last || entries.stream().anyMatch(e -> e.value == null && e.offset <= last)
                        || duplicatesBelow(entries, activeBase(log)))
                    {
                        return false;
                    }
                }
                return true;
            }, 60_000, "the tombstones of " + topic + " were never removed");
        }
        for (final PartitionLog log : replicas(clusters.source(), tp))
        {
            final List<Entry> entries = entries(log);
            for (final Entry entry : entries)
            {
                // The first half of the keys was deleted and never written again.
                final boolean deletedKey = entry.key.startsWith("k")
                    && Integer.parseInt(entry.key.substring(1)) < KEYS / 2;
                assertTrue(!deletedKey, log + ": deleted key " + entry.key + " is still there at " + entry.offset);
            }
            model.check(log, entries);
        }
    }

    // ---------------------------------------------------------------------------------------------------------

    /** What was written: offset to key and value; a value of null is a tombstone. */
    private static final class Model
    {
        final Map<Long, String[]> byOffset = new HashMap<>();
        final Map<String, Long> latest = new HashMap<>();
        long lastData = -1L;

        void written(final long offset, final String key, final String value)
        {
            byOffset.put(offset, new String[] {key, value});
            latest.merge(key, offset, Math::max);
            lastData = Math.max(lastData, offset);
        }

        long lastOffset()
        {
            return lastData;
        }

        /**
         * Every record the log still holds is the one written at its offset, and every key's latest record is
         * there if the replica has reached it (a tombstone may be gone: that is what it is for).
         */
        void check(final PartitionLog log, final List<Entry> entries)
        {
            final Map<String, Long> found = new HashMap<>();
            for (final Entry entry : entries)
            {
                final String[] written = byOffset.get(entry.offset);
                assertTrue(written != null, log + ": record at " + entry.offset + " was never written");
                assertEquals(written[0], entry.key, log + ": key at " + entry.offset);
                assertEquals(written[1], entry.value, log + ": value at " + entry.offset);
                found.merge(entry.key, entry.offset, Math::max);
            }
            for (final Map.Entry<String, Long> key : latest.entrySet())
            {
                final boolean tombstone = byOffset.get(key.getValue())[1] == null;
                if (!tombstone && key.getValue() < log.logEndOffset())
                {
                    assertEquals(key.getValue(), found.get(key.getKey()), log + ": latest record of " + key.getKey());
                }
            }
        }
    }

    /** One record of a log. */
    private record Entry(long offset, String key, String value)
    {
    }

    /** Appends one more update (of a key's current value) so that an aged active segment rolls. */
    private static void rollOnce(final KafkaProducer<byte[], byte[]> producer, final String topic, final Model model)
    {
        try
        {
            final String value = "roll-" + System.nanoTime();
            model.written(producer.send(new ProducerRecord<>(topic, 0, bytes(ROLL_KEY), bytes(value)))
                .get(30, TimeUnit.SECONDS).offset(), ROLL_KEY, value);
        }
        catch (final Exception e)
        {
            throw new AssertionError("append to " + topic + " failed", e);
        }
    }

    /** Waits until, on every replica in {@code clusters}, the records up to {@code last} are rolled and cleaned. */
    private static void awaitCompacted(final KafkaProducer<byte[], byte[]> producer, final String topic,
        final Model model, final long last, final List<EmbeddedCluster> clusters) throws InterruptedException
    {
        final TopicPartition tp = new TopicPartition(topic, 0);
        Clients.awaitCondition(() ->
        {
            rollOnce(producer, topic, model);
            for (final EmbeddedCluster cluster : clusters)
            {
                for (final PartitionLog log : replicas(cluster, tp))
                {
                    if (activeBase(log) <= last || duplicatesBelow(entries(log), activeBase(log)))
                    {
                        return false;
                    }
                }
            }
            return true;
        }, 60_000, topic + " was never cleaned on every replica");
    }

    /**
     * Whether some data key has more than one record below {@code offset}: not cleaned yet. The roll records are
     * left out: they keep coming while the test waits, so some of them are always still to clean.
     */
    private static boolean duplicatesBelow(final List<Entry> entries, final long offset)
    {
        final Map<String, Integer> counts = new HashMap<>();
        for (final Entry entry : entries)
        {
            if (entry.offset < offset && !ROLL_KEY.equals(entry.key) && counts.merge(entry.key, 1, Integer::sum) > 1)
            {
                return true;
            }
        }
        return false;
    }

    private static long activeBase(final PartitionLog log)
    {
        return ((UnifiedLogPartitionLog)log).unifiedLog().activeSegment().baseOffset();
    }

    /** The logs of every replica of {@code tp} the cluster's brokers host. */
    private static List<PartitionLog> replicas(final EmbeddedCluster cluster, final TopicPartition tp)
    {
        final List<PartitionLog> logs = new ArrayList<>();
        for (int node = 1; node <= cluster.size(); node++)
        {
            final Partition partition = cluster.broker(node).replicaManager().partitionOrNull(tp);
            if (partition != null)
            {
                logs.add(partition.log());
            }
        }
        assertEquals(2, logs.size(), "replicas of " + tp);
        return logs;
    }

    /** Every record of the log, from its start to its end. */
    private static List<Entry> entries(final PartitionLog log)
    {
        final List<Entry> entries = new ArrayList<>();
        long offset = log.logStartOffset();
        final long end = log.logEndOffset();
        while (offset < end)
        {
            final PartitionLog.ReadResult read = log.read(offset, 1 << 20, FetchIsolation.LOG_END, true);
            long next = offset;
            for (final RecordBatch batch : read.records().batches())
            {
                if (batch.lastOffset() < offset || batch.isControlBatch())
                {
                    next = Math.max(next, batch.nextOffset());
                    continue;
                }
                for (final Record record : batch)
                {
                    if (record.offset() >= offset)
                    {
                        entries.add(new Entry(record.offset(), text(record.key()), text(record.value())));
                    }
                }
                next = batch.nextOffset();
            }
            if (next == offset)
            {
                break;
            }
            offset = next;
        }
        return entries;
    }

    private static String text(final ByteBuffer buffer)
    {
        if (buffer == null)
        {
            return null;
        }
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}

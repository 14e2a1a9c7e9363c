package io.syncmirror.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.storage.internals.log.CleanerConfig;
import org.apache.kafka.storage.internals.log.LogCleaner;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Kafka's log cleaner inside the durable store: compacted logs are cleaned and others are not, and truncation and
 * deletion keep the cleaner's checkpoint consistent with what the log holds (Kafka's LogManager rules).
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class LogCleaningTest
{
    private static final TopicPartition COMPACTED = new TopicPartition("changelog", 0);
    private static final TopicPartition DELETED = new TopicPartition("events", 0);
    private static final Map<String, String> COMPACT = Map.of("cleanup.policy", "compact",
        "min.cleanable.dirty.ratio", "0.01", "min.compaction.lag.ms", "0");
    private static final int KEYS = 100;
    private static final long WAIT_MS = 20_000L;

    private Path root;
    private DurableLogStore store;
    private LogCleaner cleaner;

    @BeforeEach
    void setUp() throws Exception
    {
        root = Files.createTempDirectory("syncmirror-log-cleaning");
        // One thread, 2 MiB of dedupe buffer, 64 KiB I/O buffers, Kafka's largest batch, no throttle, 50 ms back-off.
        final CleanerConfig cleaning = new CleanerConfig(1, 2L * 1024 * 1024, 0.9, 64 * 1024, 1024 * 1024 + 12,
            Double.MAX_VALUE, 50L, true);
        // A directory that does not exist yet, as on a broker's first start.
        store = new DurableLogStore(List.of(root.resolve("first-start")), Map.of("retention.ms", "-1"), Time.SYSTEM,
            0, 0, cleaning);
        cleaner = store.cleaner().orElseThrow();
    }

    @AfterEach
    void tearDown() throws Exception
    {
        store.close();
        TestDirs.deleteRecursively(root);
    }

    /** {@code rounds} updates of every key, one segment per round, then one record in a fresh active segment. */
    private static void fill(final PartitionLog log, final int rounds, final String tag) throws java.io.IOException
    {
        final UnifiedLog unified = ((UnifiedLogPartitionLog)log).unifiedLog();
        for (int round = 0; round < rounds; round++)
        {
            final SimpleRecord[] records = new SimpleRecord[KEYS];
            for (int key = 0; key < KEYS; key++)
            {
                records[key] = new SimpleRecord(System.currentTimeMillis(), bytes("k" + key),
                    bytes(tag + round + "-k" + key));
            }
            log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, records), 0);
            unified.roll();
        }
        log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord(System.currentTimeMillis(), bytes("tail"), bytes(tag + "tail"))), 0);
        log.maybeIncrementHighWatermark(log.logEndOffset());
    }

    private static long activeBase(final PartitionLog log)
    {
        return ((UnifiedLogPartitionLog)log).unifiedLog().activeSegment().baseOffset();
    }

    /** Key to value of every record in the log, and how many records there are. */
    private static Map<String, String> latest(final PartitionLog log, final int[] count)
    {
        final Map<String, String> latest = new HashMap<>();
        long offset = log.logStartOffset();
        count[0] = 0;
        while (offset < log.logEndOffset())
        {
            long next = offset;
            for (final RecordBatch batch : log.read(offset, 1 << 20, FetchIsolation.LOG_END, true).records().batches())
            {
                for (final Record record : batch)
                {
                    if (record.offset() >= offset)
                    {
                        latest.put(text(record.key()), text(record.value()));
                        count[0]++;
                    }
                }
                next = Math.max(next, batch.nextOffset());
            }
            if (next == offset)
            {
                break;
            }
            offset = next;
        }
        return latest;
    }

    private long checkpointOf(final TopicPartition tp)
    {
        return cleaner.cleanerManager().allCleanerCheckpoints().getOrDefault(tp, -1L);
    }

    @Test
    void shouldCleanCompactedLogsDownToOneRecordPerKeyAndLeaveOthers() throws Exception
    {
        final PartitionLog compacted = store.getOrCreate(COMPACTED, Uuid.randomUuid(), COMPACT);
        final PartitionLog deleted = store.getOrCreate(DELETED, Uuid.randomUuid(), Map.of());
        fill(deleted, 10, "d");
        fill(compacted, 10, "c");

        assertTrue(cleaner.awaitCleaned(COMPACTED, activeBase(compacted), WAIT_MS), "the compacted log was cleaned");
        final int[] count = new int[1];
        final Map<String, String> survivors = latest(compacted, count);
        assertEquals(KEYS + 1, count[0], "one record per key and the tail");
        for (int key = 0; key < KEYS; key++)
        {
            assertEquals("c9-k" + key, survivors.get("k" + key), "the latest value of k" + key);
        }
        assertEquals(10L * KEYS + 1, compacted.logEndOffset(), "offsets are kept");

        latest(deleted, count);
        assertEquals(10 * KEYS + 1, count[0], "a delete-policy log is not cleaned");
        assertFalse(cleaner.cleanerManager().allCleanerCheckpoints().containsKey(DELETED));
    }

    @Test
    void shouldMoveTheCheckpointDownOnTruncationAndResumeCleaning() throws Exception
    {
        final PartitionLog log = store.getOrCreate(COMPACTED, Uuid.randomUuid(), COMPACT);
        fill(log, 10, "a");
        final long cleanedTo = activeBase(log);
        assertTrue(cleaner.awaitCleaned(COMPACTED, cleanedTo, WAIT_MS));
        assertEquals(cleanedTo, checkpointOf(COMPACTED));

        // A follower truncating into the cleaned segments (a leader change that lost the tail).
        log.truncateTo(5L * KEYS);
        assertTrue(checkpointOf(COMPACTED) <= log.logEndOffset(),
            "checkpoint " + checkpointOf(COMPACTED) + " is not above the truncated end " + log.logEndOffset());

        // Cleaning goes on after the truncation: new rounds are cleaned too.
        fill(log, 3, "b");
        assertTrue(cleaner.awaitCleaned(COMPACTED, activeBase(log), WAIT_MS), "cleaning resumed after truncation");
        final int[] count = new int[1];
        final Map<String, String> survivors = latest(log, count);
        assertEquals("b2-k7", survivors.get("k7"));
    }

    @Test
    void shouldForgetTheCheckpointOfADeletedLog() throws Exception
    {
        final PartitionLog log = store.getOrCreate(COMPACTED, Uuid.randomUuid(), COMPACT);
        fill(log, 4, "a");
        assertTrue(cleaner.awaitCleaned(COMPACTED, activeBase(log), WAIT_MS));

        store.delete(COMPACTED);
        assertFalse(cleaner.cleanerManager().allCleanerCheckpoints().containsKey(COMPACTED),
            "the deleted log's cleaner checkpoint is gone");
        // A new log of the same name starts from nothing.
        final PartitionLog recreated = store.getOrCreate(COMPACTED, Uuid.randomUuid(), COMPACT);
        assertEquals(0L, recreated.logEndOffset());
    }

    private static byte[] bytes(final String text)
    {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(final java.nio.ByteBuffer buffer)
    {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return new String(bytes, StandardCharsets.UTF_8);
    }
}

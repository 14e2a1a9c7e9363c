package io.syncmirror.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.storage.internals.checkpoint.OffsetCheckpointFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class DurableLogStoreTest
{
    private static final TopicPartition TP = new TopicPartition("payments", 0);
    private static final Uuid TOPIC_ID = Uuid.fromString("J3n5o1xUQlmmB8iPuuqYIw");
    private static final Map<String, String> DEFAULTS = Map.of("retention.ms", "-1", "segment.bytes", "1048576");
    private static final long PID = 77L;

    private final ManualTime time = new ManualTime(1_700_000_000_000L);
    private final List<DurableLogStore> stores = new ArrayList<>();
    private Path root;

    @BeforeEach
    void setUp() throws Exception
    {
        root = Files.createTempDirectory("syncmirror-log-store");
    }

    @AfterEach
    void tearDown() throws Exception
    {
        for (final DurableLogStore store : stores)
        {
            store.close();
        }
        TestDirs.deleteRecursively(root);
    }

    private DurableLogStore open(final Path... dirs)
    {
        final DurableLogStore store = new DurableLogStore(List.of(dirs), DEFAULTS, time, 0, 0);
        stores.add(store);
        return store;
    }

    /** Stamped with the store's clock: the log engine expires producers whose last timestamp is a day old. */
    private MemoryRecords idempotent(final int firstSeq, final String... values)
    {
        final SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++)
        {
            records[i] = new SimpleRecord(time.milliseconds(), null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, PID, (short)0, firstSeq, records);
    }

    private static List<String> values(final Records records, final long fromOffset)
    {
        final List<String> out = new ArrayList<>();
        for (final RecordBatch batch : records.batches())
        {
            for (final Record record : batch)
            {
                if (record.offset() >= fromOffset)
                {
                    final byte[] bytes = new byte[record.valueSize()];
                    record.value().get(bytes);
                    out.add(new String(bytes, StandardCharsets.UTF_8));
                }
            }
        }
        return out;
    }

    @Test
    void reopenAfterCleanCloseKeepsDataHighWatermarkLogStartAndTopicId()
    {
        final Path dir = root.resolve("d0");
        final DurableLogStore first = open(dir);
        final PartitionLog log = first.getOrCreate(TP, TOPIC_ID, Map.of());
        log.appendAsLeader(idempotent(0, "a", "b"), 1);
        log.appendAsLeader(idempotent(2, "c", "d"), 1);
        log.appendAsLeader(idempotent(4, "e"), 1);
        log.maybeIncrementHighWatermark(4);
        assertTrue(log.maybeIncrementLogStartOffset(2));
        first.close();

        final DurableLogStore second = open(dir);
        final PartitionLog reopened = second.get(TP).orElseThrow();

        assertTrue(second.lastShutdownClean());
        assertEquals(TOPIC_ID, reopened.topicId());
        assertEquals(5L, reopened.logEndOffset());
        assertEquals(4L, reopened.highWatermark());
        assertEquals(2L, reopened.logStartOffset());
        assertEquals(List.of("c", "d", "e"),
            values(reopened.read(2, 1 << 20, FetchIsolation.LOG_END, true).records(), 2));
        assertEquals(1, reopened.latestEpoch().orElseThrow());
        assertTrue(reopened.appendAsLeader(idempotent(4, "e"), 1).duplicate(), "producer state survives");
    }

    @Test
    void crashRecoversFlushedRecordsAndProducerState() throws Exception
    {
        final Path dir = root.resolve("live");
        final DurableLogStore live = open(dir);
        final PartitionLog log = live.getOrCreate(TP, TOPIC_ID, Map.of());
        log.appendAsLeader(idempotent(0, "a", "b"), 2);
        log.appendAsLeader(idempotent(2, "c"), 2);
        log.maybeIncrementHighWatermark(3);
        live.checkpoint();
        log.flush();
        // The files as a crash leaves them: no clean close, no clean-shutdown file, recovery point not advanced.
        final Path crashed = root.resolve("crashed");
        TestDirs.copyRecursively(dir, crashed);

        final DurableLogStore recovered = open(crashed);
        final PartitionLog after = recovered.get(TP).orElseThrow();

        assertFalse(recovered.lastShutdownClean());
        assertEquals(3L, after.logEndOffset());
        assertEquals(3L, after.highWatermark());
        assertEquals(TOPIC_ID, after.topicId());
        assertEquals(List.of("a", "b", "c"), values(after.read(0, 1 << 20, FetchIsolation.LOG_END, true).records(), 0));
        final PartitionLog.AppendResult retry = after.appendAsLeader(idempotent(2, "c"), 2);
        assertTrue(retry.duplicate());
        assertEquals(2L, retry.firstOffset());
        assertThrows(OutOfOrderSequenceException.class, () -> after.appendAsLeader(idempotent(9, "x"), 2));
        assertEquals(3L, after.appendAsLeader(idempotent(3, "d"), 2).firstOffset());
    }

    @Test
    void reloadedHighWatermarkNeverExceedsTheRecoveredLogEnd() throws Exception
    {
        final Path dir = root.resolve("d0");
        final DurableLogStore first = open(dir);
        first.getOrCreate(TP, TOPIC_ID, Map.of()).appendAsLeader(idempotent(0, "a", "b"), 0);
        first.close();
        final OffsetCheckpointFile hw = new OffsetCheckpointFile(
            new File(dir.toFile(), DurableLogStore.HW_CHECKPOINT_FILE), null);
        hw.write(Map.of(TP, 100L));

        final PartitionLog reopened = open(dir).get(TP).orElseThrow();

        assertEquals(2L, reopened.logEndOffset());
        assertEquals(2L, reopened.highWatermark());
    }

    @Test
    void checkpointTimerWritesTheHighWatermark() throws Exception
    {
        final Path dir = root.resolve("d0");
        final DurableLogStore store = new DurableLogStore(List.of(dir), DEFAULTS, time, 20, 0);
        stores.add(store);
        final PartitionLog log = store.getOrCreate(TP, TOPIC_ID, Map.of());
        log.appendAsLeader(idempotent(0, "a", "b"), 0);
        log.maybeIncrementHighWatermark(2);
        final OffsetCheckpointFile hw = new OffsetCheckpointFile(
            new File(dir.toFile(), DurableLogStore.HW_CHECKPOINT_FILE), null);

        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!Long.valueOf(2L).equals(hw.read().get(TP)) && System.nanoTime() < deadlineNs)
        {
            Thread.sleep(10);
        }

        assertEquals(2L, hw.read().get(TP));
    }

    @Test
    void newPartitionsGoToTheLogDirectoryWithFewestLogs()
    {
        final Path a = root.resolve("a");
        final Path b = root.resolve("b");
        final DurableLogStore store = open(a, b);
        for (int p = 0; p < 4; p++)
        {
            store.getOrCreate(new TopicPartition("spread", p), Uuid.randomUuid(), Map.of());
        }

        assertEquals(2, a.toFile().list((d, name) -> name.startsWith("spread-")).length);
        assertEquals(2, b.toFile().list((d, name) -> name.startsWith("spread-")).length);
        assertEquals(4, store.all().size());
    }

    @Test
    void deleteRemovesThePartitionDirectoryAndItsCheckpointEntries() throws Exception
    {
        final Path dir = root.resolve("d0");
        final DurableLogStore store = open(dir);
        store.getOrCreate(TP, TOPIC_ID, Map.of()).appendAsLeader(idempotent(0, "a"), 0);

        store.delete(TP);

        assertTrue(store.get(TP).isEmpty());
        assertFalse(Files.exists(dir.resolve("payments-0")));
        final OffsetCheckpointFile hw = new OffsetCheckpointFile(
            new File(dir.toFile(), DurableLogStore.HW_CHECKPOINT_FILE), null);
        assertTrue(hw.read().isEmpty());
    }

    @Test
    void getOrCreateReturnsTheLoadedLogWithTheGivenConfig()
    {
        final Path dir = root.resolve("d0");
        final DurableLogStore first = open(dir);
        first.getOrCreate(TP, TOPIC_ID, Map.of()).appendAsLeader(idempotent(0, "a"), 0);
        first.close();

        final DurableLogStore second = open(dir);
        final PartitionLog log = second.getOrCreate(TP, TOPIC_ID, Map.of("retention.ms", "1000"));

        assertEquals(1L, log.logEndOffset());
        assertEquals(1, second.all().size());
    }
}

package io.syncmirror.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.junit.jupiter.api.Test;

/** The {@link PartitionLog} contract against the heap log, and what only the heap log does. */
class MemoryPartitionLogTest extends PartitionLogContractTest
{
    @Override
    protected PartitionLog newLog()
    {
        return new MemoryPartitionLog(TP, TOPIC_ID, Map.of(), time);
    }

    @Test
    void logAppendTimeTopicStampsTheBatchWithTheClockAndKeepsItValid()
    {
        final MemoryPartitionLog appendTimeLog = new MemoryPartitionLog(TP, TOPIC_ID,
            Map.of("message.timestamp.type", "LogAppendTime"), time);
        final MemoryRecords records = plain("a", "b");

        final PartitionLog.AppendResult result = appendTimeLog.appendAsLeader(records, 0);

        assertEquals(time.milliseconds(), result.logAppendTimeMs());
        final RecordBatch stored = appendTimeLog.read(0, 1 << 20, FetchIsolation.LOG_END, true).records().batches()
            .iterator().next();
        assertEquals(TimestampType.LOG_APPEND_TIME, stored.timestampType());
        assertEquals(time.milliseconds(), stored.maxTimestamp());
        assertTrue(stored.isValid());
    }

    @Test
    void retentionDropsWholeChunksBelowTheHighWatermarkAndMovesTheStart()
    {
        final MemoryPartitionLog small = new MemoryPartitionLog(TP, TOPIC_ID, Map.of("retention.bytes", "20000"), time);
        for (int i = 0; i < 1000; i++)
        {
            small.appendAsLeader(plain("value-" + i), 0);
        }
        final long before = small.sizeInBytes();
        assertEquals(0, small.deleteOldSegments(), "nothing is below the HW yet");
        small.maybeIncrementHighWatermark(small.logEndOffset());

        final int deleted = small.deleteOldSegments();

        assertTrue(deleted > 0);
        assertTrue(small.sizeInBytes() < before);
        assertTrue(small.sizeInBytes() >= 20000 || small.logStartOffset() > 0);
        final long start = small.logStartOffset();
        assertTrue(start > 0);
        assertThrows(OffsetOutOfRangeException.class, () -> small.read(start - 1, 100, FetchIsolation.LOG_END, true));
        assertEquals(start, small.read(start, 100, FetchIsolation.LOG_END, true).records().batches().iterator().next()
            .baseOffset());
    }

    @Test
    void concurrentReadsSeeWholeValidBatchesWhileTheWriterAppendsAndTruncates() throws Exception
    {
        final MemoryPartitionLog shared = new MemoryPartitionLog(TP, TOPIC_ID, Map.of(), time);
        final AtomicReference<Throwable> failure = new AtomicReference<>();
        final Thread reader = new Thread(() ->
        {
            try
            {
                while (!Thread.currentThread().isInterrupted())
                {
                    final long end = shared.logEndOffset();
                    final long from = end / 2;
                    final Records records;
                    try
                    {
                        records = shared.read(from, 4096, FetchIsolation.LOG_END, true).records();
                    }
                    catch (final OffsetOutOfRangeException truncatedMeanwhile)
                    {
                        continue;
                    }
                    long expected = -1;
                    for (final RecordBatch batch : records.batches())
                    {
                        if (!batch.isValid() || (expected >= 0 && batch.baseOffset() != expected))
                        {
                            throw new AssertionError("Torn read at " + batch.baseOffset());
                        }
                        expected = batch.nextOffset();
                    }
                }
            }
            catch (final Throwable t)
            {
                failure.set(t);
            }
        }, "memory-log-reader");
        reader.setDaemon(true);
        reader.start();
        for (int i = 0; i < 20_000; i++)
        {
            shared.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record(time.milliseconds(), "v" + i)), 0);
            if (i % 5000 == 4999)
            {
                shared.truncateTo(shared.logEndOffset() - 100);
            }
        }
        reader.interrupt();
        reader.join(10_000);
        if (failure.get() != null)
        {
            throw new AssertionError(failure.get());
        }
        assertEquals(20_000L - 4 * 100, shared.logEndOffset());
    }
}

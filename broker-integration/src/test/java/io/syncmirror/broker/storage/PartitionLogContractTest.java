package io.syncmirror.broker.storage;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.storage.log.UnexpectedAppendOffsetException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The {@link PartitionLog} contract, run against each implementation: both must answer every case the same way,
 * and the Kafka log engine's answers are the reference.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
abstract class PartitionLogContractTest
{
    static final TopicPartition TP = new TopicPartition("orders", 3);
    static final Uuid TOPIC_ID = Uuid.fromString("dRn0CsfcR9yHqlRrC7CZnw");
    static final long PID = 4000L;

    protected final ManualTime time = new ManualTime(1_700_000_000_000L);
    protected PartitionLog log;

    /** A fresh empty log of {@link #TP} with {@link #TOPIC_ID}. */
    protected abstract PartitionLog newLog() throws Exception;

    protected void cleanUp() throws Exception
    {
    }

    @BeforeEach
    void setUp() throws Exception
    {
        log = newLog();
    }

    @AfterEach
    void tearDown() throws Exception
    {
        log.close();
        cleanUp();
    }

    static SimpleRecord record(final long timestampMs, final String value)
    {
        return new SimpleRecord(timestampMs, null, value.getBytes(StandardCharsets.UTF_8));
    }

    static MemoryRecords plain(final String... values)
    {
        final SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++)
        {
            records[i] = record(1_000L + i, values[i]);
        }
        return MemoryRecords.withRecords(Compression.NONE, records);
    }

    static MemoryRecords idempotent(final short epoch, final int firstSeq, final String... values)
    {
        final SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++)
        {
            records[i] = record(1_000L + i, values[i]);
        }
        return MemoryRecords.withIdempotentRecords(Compression.NONE, PID, epoch, firstSeq, records);
    }

    static MemoryRecords transactional(final long pid, final int firstSeq, final String... values)
    {
        final SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++)
        {
            records[i] = record(1_000L + i, values[i]);
        }
        return MemoryRecords.withTransactionalRecords(Compression.NONE, pid, (short)0, firstSeq, records);
    }

    MemoryRecords marker(final long pid, final ControlRecordType type)
    {
        return MemoryRecords.withEndTransactionMarker(0L, time.milliseconds(), RecordBatch.NO_PARTITION_LEADER_EPOCH,
            pid, (short)0, new EndTransactionMarker(type, 1));
    }

    static List<RecordBatch> batches(final Records records)
    {
        final List<RecordBatch> out = new ArrayList<>();
        for (final RecordBatch batch : records.batches())
        {
            out.add(batch);
        }
        return out;
    }

    static List<Long> offsets(final Records records)
    {
        final List<Long> out = new ArrayList<>();
        for (final RecordBatch batch : records.batches())
        {
            for (final Record record : batch)
            {
                out.add(record.offset());
            }
        }
        return out;
    }

    @Test
    void leaderAppendAssignsOffsetsAndEpochInTheCallersBuffer()
    {
        final PartitionLog.AppendResult first = log.appendAsLeader(plain("a", "b", "c"), 5);
        final MemoryRecords second = plain("d", "e");
        final PartitionLog.AppendResult result = log.appendAsLeader(second, 5);

        assertEquals(0L, first.firstOffset());
        assertEquals(2L, first.lastOffset());
        assertEquals(3L, result.firstOffset());
        assertEquals(4L, result.lastOffset());
        assertEquals(2, result.recordCount());
        assertFalse(result.duplicate());
        final RecordBatch batch = second.batches().iterator().next();
        assertEquals(3L, batch.baseOffset());
        assertEquals(5, batch.partitionLeaderEpoch());
        assertTrue(batch.isValid());
        assertEquals(5L, log.logEndOffset());
        assertEquals(0L, log.highWatermark());
    }

    @Test
    void readReturnsWholeBatchesBoundedByIsolationAndMaxBytes()
    {
        log.appendAsLeader(plain("a", "b"), 0);
        log.appendAsLeader(plain("c"), 0);
        log.appendAsLeader(plain("d"), 0);

        assertEquals(0, log.read(0, 1 << 20, FetchIsolation.HIGH_WATERMARK, true).records().sizeInBytes());
        assertEquals(List.of(0L, 1L, 2L, 3L), offsets(log.read(0, 1 << 20, FetchIsolation.LOG_END, true).records()));
        log.maybeIncrementHighWatermark(3);
        final PartitionLog.ReadResult upToHw = log.read(1, 1 << 20, FetchIsolation.HIGH_WATERMARK, true);
        assertEquals(List.of(0L, 1L, 2L), offsets(upToHw.records()), "the batch holding offset 1 is returned whole");
        assertEquals(3L, upToHw.highWatermark());
        assertEquals(4L, upToHw.logEndOffset());
        assertEquals(1, batches(log.read(0, 1, FetchIsolation.LOG_END, true).records()).size());
        assertEquals(0, batches(log.read(0, 1, FetchIsolation.LOG_END, false).records()).size(),
            "no whole batch fits in one byte");
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(5, 100, FetchIsolation.LOG_END, true));
    }

    @Test
    void batchFailingItsCrcIsRejected()
    {
        final MemoryRecords records = plain("payload");
        final ByteBuffer buffer = records.buffer();
        final int last = buffer.limit() - 1;
        buffer.put(last, (byte)(buffer.get(last) ^ 0x5A));

        assertThrows(CorruptRecordException.class, () -> log.appendAsLeader(records, 0));
        assertEquals(0L, log.logEndOffset());
    }

    @Test
    void timestampsTooFarAheadOfTheClockAreRejected()
    {
        final long tooLate = time.milliseconds() + 2 * 3_600_000L;

        assertThrows(InvalidTimestampException.class, () -> log.appendAsLeader(
            MemoryRecords.withRecords(Compression.NONE, record(tooLate, "late")), 0));
        assertEquals(0L, log.logEndOffset());
    }

    @Test
    void idempotentRetryReturnsTheOriginalOffsetsMarkedDuplicate()
    {
        log.appendAsLeader(plain("x"), 0);
        final PartitionLog.AppendResult original = log.appendAsLeader(idempotent((short)0, 0, "a", "b"), 0);
        log.appendAsLeader(idempotent((short)0, 2, "c"), 0);

        final PartitionLog.AppendResult retry = log.appendAsLeader(idempotent((short)0, 0, "a", "b"), 0);

        assertFalse(original.duplicate());
        assertTrue(retry.duplicate());
        assertEquals(1L, retry.firstOffset());
        assertEquals(2L, retry.lastOffset());
        assertEquals(4L, log.logEndOffset());
    }

    @Test
    void outOfOrderSequenceIsRejected()
    {
        log.appendAsLeader(idempotent((short)0, 0, "a"), 0);

        assertThrows(OutOfOrderSequenceException.class, () -> log.appendAsLeader(idempotent((short)0, 5, "b"), 0));
        assertEquals(1L, log.logEndOffset());
        assertEquals(1L, log.appendAsLeader(idempotent((short)0, 1, "b"), 0).firstOffset());
    }

    @Test
    void olderProducerEpochIsRejected()
    {
        log.appendAsLeader(idempotent((short)2, 0, "a"), 0);

        assertThrows(InvalidProducerEpochException.class, () -> log.appendAsLeader(idempotent((short)1, 1, "b"), 0));
        assertThrows(OutOfOrderSequenceException.class, () -> log.appendAsLeader(idempotent((short)3, 4, "b"), 0),
            "a new epoch starts at sequence 0");
        assertEquals(1L, log.appendAsLeader(idempotent((short)3, 0, "b"), 0).firstOffset());
    }

    @Test
    void openTransactionHoldsTheLastStableOffsetUntilItsMarkerIsReplicated()
    {
        log.appendAsLeader(plain("p0", "p1"), 0);
        log.appendAsLeader(transactional(PID, 0, "t2", "t3"), 0);
        log.appendAsLeader(plain("p4"), 0);
        log.maybeIncrementHighWatermark(log.logEndOffset());
        assertEquals(2L, log.lastStableOffset());

        final PartitionLog.AppendResult commit = log.appendMarkerAsLeader(marker(PID, ControlRecordType.COMMIT), 0);
        assertEquals(5L, commit.firstOffset());
        log.maybeIncrementHighWatermark(5);
        assertEquals(2L, log.lastStableOffset(), "marker not yet below the HW");
        log.maybeIncrementHighWatermark(6);
        assertEquals(6L, log.lastStableOffset());
        assertEquals(List.of(0L, 1L, 2L, 3L, 4L),
            offsets(log.read(0, 1 << 20, FetchIsolation.TXN_COMMITTED, true).records()).subList(0, 5));
    }

    @Test
    void readCommittedReturnsAbortedTransactions()
    {
        log.appendAsLeader(transactional(PID, 0, "t0", "t1"), 0);
        log.appendMarkerAsLeader(marker(PID, ControlRecordType.ABORT), 0);
        log.appendAsLeader(plain("p3"), 0);
        log.maybeIncrementHighWatermark(4);

        final PartitionLog.ReadResult committed = log.read(0, 1 << 20, FetchIsolation.TXN_COMMITTED, true);
        assertEquals(1, committed.abortedTransactions().size());
        final FetchResponseData.AbortedTransaction aborted = committed.abortedTransactions().get(0);
        assertEquals(PID, aborted.producerId());
        assertEquals(0L, aborted.firstOffset());
        assertEquals(4L, committed.lastStableOffset());
        assertEquals(List.of(), log.read(0, 1 << 20, FetchIsolation.HIGH_WATERMARK, true).abortedTransactions());
    }

    @Test
    void followerAppendKeepsOffsetsEpochsAndBytes()
    {
        final MemoryRecords mirrored = MemoryRecords.withRecords(10L, Compression.NONE, 7, record(1L, "m10"),
            record(2L, "m11"));
        final byte[] sent = new byte[mirrored.sizeInBytes()];
        mirrored.buffer().duplicate().get(sent);
        log.truncateFullyAndStartAt(10);

        final PartitionLog.AppendResult result = log.appendAsFollower(mirrored, 3);

        assertEquals(10L, result.firstOffset());
        assertEquals(11L, result.lastOffset());
        assertEquals(12L, log.logEndOffset());
        assertEquals(OptionalInt.of(7), log.latestEpoch());
        final Records read = log.read(10, 1 << 20, FetchIsolation.LOG_END, true).records();
        final ByteBuffer stored = ByteBuffer.allocate(read.sizeInBytes());
        for (final RecordBatch batch : read.batches())
        {
            batch.writeTo(stored);
        }
        assertArrayEquals(sent, stored.array());
        assertThrows(UnexpectedAppendOffsetException.class, () -> log.appendAsFollower(
            MemoryRecords.withRecords(11L, Compression.NONE, 7, record(3L, "old")), 7));
    }

    @Test
    void epochCacheAnswersEndOffsetsAndFollowsTruncation()
    {
        log.appendAsLeader(plain("a", "b", "c"), 1);
        log.appendAsLeader(plain("d", "e"), 3);
        log.appendAsLeader(plain("f"), 5);
        log.maybeIncrementHighWatermark(6);

        assertEquals(OptionalInt.of(5), log.latestEpoch());
        assertEquals(Optional.of(new PartitionLog.EpochEndOffset(1, 3)), log.endOffsetForEpoch(1));
        assertEquals(Optional.of(new PartitionLog.EpochEndOffset(1, 3)), log.endOffsetForEpoch(2));
        assertEquals(Optional.of(new PartitionLog.EpochEndOffset(3, 5)), log.endOffsetForEpoch(3));
        assertEquals(Optional.of(new PartitionLog.EpochEndOffset(5, 6)), log.endOffsetForEpoch(5));
        assertEquals(Optional.of(new PartitionLog.EpochEndOffset(0, 0)), log.endOffsetForEpoch(0));
        assertEquals(Optional.empty(), log.endOffsetForEpoch(6));

        log.truncateTo(5);

        assertEquals(5L, log.logEndOffset());
        assertEquals(5L, log.highWatermark());
        assertEquals(OptionalInt.of(3), log.latestEpoch());
        assertEquals(Optional.of(new PartitionLog.EpochEndOffset(3, 5)), log.endOffsetForEpoch(3));
        log.assignEpochStartOffset(8, 5);
        assertEquals(OptionalInt.of(8), log.latestEpoch());
        assertEquals(Optional.of(new PartitionLog.EpochEndOffset(3, 5)), log.endOffsetForEpoch(7));
        assertEquals(5L, log.appendAsLeader(plain("g"), 8).firstOffset());
    }

    @Test
    void epochForOffsetNamesTheEpochHoldingTheOffsetNotAnEmptyLeadershipAfterIt()
    {
        assertEquals(OptionalInt.empty(), log.epochForOffset(0));
        log.appendAsLeader(plain("a", "b", "c"), 1);
        log.appendAsLeader(plain("d", "e"), 3);
        // A new leadership: its epoch enters the cache at the log end before any batch of it exists.
        log.assignEpochStartOffset(6, 5);

        assertEquals(OptionalInt.of(6), log.latestEpoch());
        assertEquals(OptionalInt.of(3), log.epochForOffset(log.logEndOffset() - 1));
        assertEquals(OptionalInt.of(1), log.epochForOffset(0));
        assertEquals(OptionalInt.of(1), log.epochForOffset(2));
        assertEquals(OptionalInt.of(3), log.epochForOffset(3));
        assertEquals(OptionalInt.of(6), log.epochForOffset(5));
    }

    @Test
    void truncationRebuildsProducerState()
    {
        log.appendAsLeader(idempotent((short)0, 0, "a"), 0);
        log.appendAsLeader(idempotent((short)0, 1, "b"), 0);

        log.truncateTo(1);

        assertEquals(1L, log.appendAsLeader(idempotent((short)0, 1, "b"), 0).firstOffset());
    }

    @Test
    void highWatermarkMovesForwardOnlyUnlessUpdated()
    {
        log.appendAsLeader(plain("a", "b", "c", "d"), 0);

        assertEquals(3L, log.maybeIncrementHighWatermark(3));
        assertEquals(3L, log.maybeIncrementHighWatermark(1));
        assertEquals(4L, log.maybeIncrementHighWatermark(99), "bounded by the LEO");
        log.updateHighWatermark(2);
        assertEquals(2L, log.highWatermark());
        log.updateHighWatermark(99);
        assertEquals(4L, log.highWatermark());
    }

    @Test
    void logStartOffsetMovesForwardUpToTheHighWatermark()
    {
        log.appendAsLeader(plain("a", "b"), 0);
        log.appendAsLeader(plain("c", "d"), 0);
        log.maybeIncrementHighWatermark(3);

        assertThrows(OffsetOutOfRangeException.class, () -> log.maybeIncrementLogStartOffset(4));
        assertTrue(log.maybeIncrementLogStartOffset(2));
        assertFalse(log.maybeIncrementLogStartOffset(1));
        assertEquals(2L, log.logStartOffset());
        assertThrows(OffsetOutOfRangeException.class, () -> log.read(1, 100, FetchIsolation.LOG_END, true));
        assertEquals(2L, log.offsetForTimestamp(ListOffsetsRequest.EARLIEST_TIMESTAMP).orElseThrow().offset());
    }

    @Test
    void offsetForTimestampFindsEarliestLatestMaxAndByTime()
    {
        log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record(100L, "a"), record(300L, "b")), 2);
        log.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record(200L, "c")), 4);

        assertEquals(new PartitionLog.TimestampOffset(300L, 1L, 2), log.offsetForTimestamp(150L).orElseThrow());
        assertEquals(new PartitionLog.TimestampOffset(100L, 0L, 2), log.offsetForTimestamp(100L).orElseThrow());
        assertEquals(Optional.empty(), log.offsetForTimestamp(301L));
        assertEquals(0L, log.offsetForTimestamp(ListOffsetsRequest.EARLIEST_TIMESTAMP).orElseThrow().offset());
        final PartitionLog.TimestampOffset latest =
            log.offsetForTimestamp(ListOffsetsRequest.LATEST_TIMESTAMP).orElseThrow();
        assertEquals(3L, latest.offset());
        assertEquals(4, latest.leaderEpoch());
        final PartitionLog.TimestampOffset max = log.offsetForTimestamp(ListOffsetsRequest.MAX_TIMESTAMP).orElseThrow();
        assertEquals(300L, max.timestamp());
        assertEquals(1L, max.offset());
    }
}

package io.syncmirror.broker.storage;

import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;

/**
 * One partition's replica log: Kafka's log engine for durable brokers ({@code UnifiedLogPartitionLog}) or an
 * in-memory log for benchmarks ({@code MemoryPartitionLog}). Both honour the same contract, checked by one
 * contract test run against each.
 *
 * <p>Thread-safety: appends, truncation and HW updates are serialized by the caller (the partition's append
 * lock); reads and the offset getters may run on any thread at any time, as Kafka's {@code UnifiedLog} allows.
 *
 * <p>Expected failures are Kafka's {@code ApiException}s, so the caller maps them with {@code Errors.forException}:
 * {@code OutOfOrderSequenceException}, {@code InvalidProducerEpochException}, {@code CorruptRecordException},
 * {@code RecordTooLargeException}, {@code OffsetOutOfRangeException}, {@code InvalidTxnStateException}.
 */
public interface PartitionLog extends AutoCloseable
{
    TopicPartition topicPartition();

    Uuid topicId();

    long logStartOffset();

    long logEndOffset();

    long highWatermark();

    /** The last stable offset: the first offset of the earliest open transaction, else the HW. */
    long lastStableOffset();

    /** Moves the HW forward to {@code min(hw, LEO)}; never backwards. Returns the HW now in force. */
    long maybeIncrementHighWatermark(long hw);

    /** Sets the HW to {@code min(hw, LEO)}, also backwards (a follower following its leader's HW, truncation). */
    void updateHighWatermark(long hw);

    /**
     * Appends as leader: assigns offsets in the records' own buffer, validates and records producer state.
     * A duplicate of one of a producer's last five batches is not appended again; the result then names the
     * offsets the original append got and {@link AppendResult#duplicate()} is true.
     */
    AppendResult appendAsLeader(MemoryRecords records, int leaderEpoch);

    /** Appends transaction markers (COMMIT/ABORT control batches) as leader, the coordinator's origin. */
    AppendResult appendMarkerAsLeader(MemoryRecords markers, int leaderEpoch);

    /**
     * Appends an embedded coordinator's own records as leader (Kafka's {@code AppendOrigin.COORDINATOR}): offsets
     * are assigned and producer state is recorded, transaction markers are accepted, and producer sequences are
     * not checked (a coordinator's transactional batches carry none).
     */
    AppendResult appendAsCoordinator(MemoryRecords records, int leaderEpoch);

    /**
     * Appends batches as a follower, keeping their offsets, epochs and bytes as they are. A gap above the LEO is
     * accepted; a first batch below the LEO throws Kafka's {@code UnexpectedAppendOffsetException} and offsets going
     * backwards inside the append throw {@code OffsetsOutOfOrderException} (neither is an {@code ApiException}: the
     * fetcher truncates or resets, as Kafka's replica fetcher does).
     */
    AppendResult appendAsFollower(MemoryRecords records, int leaderEpoch);

    /**
     * Reads from {@code offset} up to {@code maxBytes} (at least one batch when {@code minOneMessage}), bounded
     * by the isolation: LEO, HW or LSO. Batches are returned whole, so the first may start before {@code offset}
     * (readers skip records below it, as Kafka's consumers do); Kafka's engine may end the bytes with a partial
     * batch when {@code maxBytes} cuts one, which readers ignore, as Kafka's consumers and followers do. Aborted transactions overlapping the records read
     * are included for {@code TXN_COMMITTED}; the list is empty for the other isolations. Throws
     * {@code OffsetOutOfRangeException} when {@code offset} is below the log start offset or above the LEO.
     */
    ReadResult read(long offset, int maxBytes, FetchIsolation isolation, boolean minOneMessage);

    /**
     * The producers with a transaction open in this log (data appended, no marker yet): what a mirror's failover
     * must abort, since the source's coordinator that would end them is on the other cluster.
     */
    List<OpenTransaction> openTransactions();

    /**
     * Every producer with state in this log, as DescribeProducers reports it (producer id and epoch, last
     * sequence and timestamp, coordinator epoch, start of its open transaction or -1).
     */
    List<DescribeProducersResponseData.ProducerState> activeProducers();

    /**
     * Whether {@code cleanup.policy} includes {@code delete}: Kafka refuses DeleteRecords on a log that is only
     * compacted (its log start offset is the cleaner's to keep).
     */
    boolean recordDeletionAllowed();

    /** The offset of the last data batch the producer wrote, as the log's producer state has it; -1 if none. */
    long lastDataOffsetOf(long producerId);

    /**
     * The highest producer id in any batch of the log, -1 if none: a failover raises the cluster's producer id
     * floor above it (hazard 8). Reads every batch header, so it costs a pass over the log.
     */
    default long maxProducerId()
    {
        long max = -1L;
        long offset = logStartOffset();
        final long end = logEndOffset();
        while (offset < end)
        {
            final ReadResult read = read(offset, 1024 * 1024, FetchIsolation.LOG_END, true);
            long next = offset;
            if (read.records() != null)
            {
                for (final RecordBatch batch : read.records().batches())
                {
                    if (batch.lastOffset() < offset)
                    {
                        continue;
                    }
                    max = Math.max(max, batch.producerId());
                    next = batch.nextOffset();
                }
            }
            if (next == offset)
            {
                break; // nothing readable here (a trailing partial batch): no more whole batches
            }
            offset = next;
        }
        return max;
    }

    /**
     * The latest leader epoch in the log's epoch cache, if any. A leader's cache gains its epoch when it takes the
     * leadership, before any batch of that epoch exists: for the epoch of the last batch, use
     * {@link #epochForOffset}{@code (logEndOffset() - 1)}.
     */
    OptionalInt latestEpoch();

    /**
     * Kafka's {@code epochForOffset}: the epoch of the cache entry whose range holds {@code offset} (the latest
     * entry starting at or below it); empty when the cache has none.
     */
    OptionalInt epochForOffset(long offset);

    /**
     * Kafka's {@code endOffsetForEpoch}: the end offset of the largest epoch at or below {@code leaderEpoch}, with
     * that epoch; empty when the cache has no such epoch.
     */
    Optional<EpochEndOffset> endOffsetForEpoch(int leaderEpoch);

    /** Records that {@code leaderEpoch} starts at {@code startOffset}, as a new leader does. */
    void assignEpochStartOffset(int leaderEpoch, long startOffset);

    /**
     * Moves the log start offset forward to {@code offset} (DeleteRecords, a leader's moved start); never backwards.
     * Returns whether it moved. Throws {@code OffsetOutOfRangeException} when {@code offset} is above the HW.
     */
    boolean maybeIncrementLogStartOffset(long offset);

    /** Removes everything at and above {@code offset}; the HW follows down when above it. */
    void truncateTo(long offset);

    /** Removes everything and starts the log empty at {@code offset}. */
    void truncateFullyAndStartAt(long offset);

    /**
     * ListOffsets: for {@code ListOffsetsRequest.EARLIEST_TIMESTAMP}, {@code LATEST_TIMESTAMP} and
     * {@code MAX_TIMESTAMP} and for a real timestamp, the offset found with its timestamp and epoch; empty when
     * no record has a timestamp at or above the one asked for.
     */
    Optional<TimestampOffset> offsetForTimestamp(long timestamp);

    /** Forces written data to disk (no-op in memory). */
    void flush();

    /** Deletes segments that retention or a moved log start offset make eligible; returns how many. */
    int deleteOldSegments();

    /** Flushes and closes cleanly: the next open needs no recovery. */
    @Override
    void close();

    /** Closes and deletes the log's files (topic deletion, reassignment away). */
    void delete();

    /** A producer's open transaction: its epoch, the epoch of its coordinator's last marker, its first offset. */
    record OpenTransaction(long producerId, short producerEpoch, int coordinatorEpoch, long firstOffset)
    {
    }

    /** Offsets of one append. */
    record AppendResult(long firstOffset, long lastOffset, long logAppendTimeMs, long logStartOffset,
        int recordCount, boolean duplicate)
    {
    }

    /** One read: the records and the offsets that bound them at the time of the read. */
    record ReadResult(
        org.apache.kafka.common.record.internal.Records records,
        long highWatermark,
        long lastStableOffset,
        long logStartOffset,
        long logEndOffset,
        java.util.List<org.apache.kafka.common.message.FetchResponseData.AbortedTransaction> abortedTransactions)
    {
    }

    /** An epoch and the offset where it ends (the start of the next epoch, or LEO for the latest). */
    record EpochEndOffset(int epoch, long endOffset)
    {
    }

    /** A ListOffsets answer. {@code leaderEpoch} is -1 when unknown. */
    record TimestampOffset(long timestamp, long offset, int leaderEpoch)
    {
    }
}

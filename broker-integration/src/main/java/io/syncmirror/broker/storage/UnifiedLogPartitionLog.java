package io.syncmirror.broker.storage;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.server.common.RequestLocal;
import org.apache.kafka.server.common.TransactionVersion;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.storage.internals.log.AppendOrigin;
import org.apache.kafka.storage.internals.log.FetchDataInfo;
import org.apache.kafka.storage.internals.log.LogAppendInfo;
import org.apache.kafka.storage.internals.log.LogStartOffsetIncrementReason;
import org.apache.kafka.storage.internals.log.OffsetResultHolder;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.RecordValidationException;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.apache.kafka.storage.internals.log.VerificationGuard;

/**
 * A partition log over Kafka's own log engine ({@code UnifiedLog} from kafka-storage); thread-safety as
 * {@link PartitionLog}, which is {@code UnifiedLog}'s own: it locks its appends internally and reads lock-free.
 *
 * <p>What this adapter adds to {@code UnifiedLog}:
 * <ul>
 * <li>Duplicate detection. {@code UnifiedLog} answers a retried idempotent batch with the original batch's offsets
 * and appends nothing, without a flag; since appends are serialized by the caller, "the LEO did not move and the
 * offsets answered lie below it" identifies that case.</li>
 * <li>Follower appends pass the largest epoch among the batches (or the caller's, if higher): {@code UnifiedLog}
 * silently skips batches whose epoch is above the epoch passed, and mirrored batches keep source epochs that may be
 * above this cluster's leader epoch.</li>
 * <li>Markers go in with the coordinator origin and transaction version 1, which is what this broker's
 * transaction coordinator writes.</li>
 * <li>A clean close: active segment trimmed, flushed, metrics removed, then closed; {@code close()} alone would
 * leave indexes that the next open must rebuild.</li>
 * <li>Truncations stop the log cleaner's work on the log while they run ({@link CleaningGuard}).</li>
 * </ul>
 * I/O failures surface as {@code KafkaStorageException} (the log directory is then offline in the failure channel).
 */
public final class UnifiedLogPartitionLog implements PartitionLog
{
    private final UnifiedLog log;
    private final CleaningGuard cleaning;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Uuid topicId;

    UnifiedLogPartitionLog(final UnifiedLog log, final CleaningGuard cleaning)
    {
        this.log = log;
        this.cleaning = cleaning;
        this.topicId = log.topicId().orElse(Uuid.ZERO_UUID);
    }

    /**
     * The engine underneath, for the store's checkpoints (recovery point, directory) and for Kafka components that
     * read it themselves (the group coordinator's loader).
     */
    public UnifiedLog unifiedLog()
    {
        return log;
    }

    /** Records the topic id in the log's partition.metadata when the log has none yet. */
    void maybeAssignTopicId(final Uuid id)
    {
        if (!Uuid.ZERO_UUID.equals(id) && log.topicId().isEmpty())
        {
            log.assignTopicId(id);
            topicId = id;
        }
    }

    @Override
    public TopicPartition topicPartition()
    {
        return log.topicPartition();
    }

    @Override
    public Uuid topicId()
    {
        return topicId;
    }

    @Override
    public long logStartOffset()
    {
        return log.logStartOffset();
    }

    @Override
    public long logEndOffset()
    {
        return log.logEndOffset();
    }

    @Override
    public long highWatermark()
    {
        return log.highWatermark();
    }

    @Override
    public long lastStableOffset()
    {
        return log.lastStableOffset();
    }

    @Override
    public long maybeIncrementHighWatermark(final long hw)
    {
        final long target = Math.min(hw, log.logEndOffset());
        if (target > log.highWatermark())
        {
            updateHighWatermark(target);
        }
        return log.highWatermark();
    }

    @Override
    public void updateHighWatermark(final long hw)
    {
        try
        {
            log.updateHighWatermark(hw);
        }
        catch (final IOException e)
        {
            throw storageError("updating the HW", e);
        }
    }

    @Override
    public AppendResult appendAsLeader(final MemoryRecords records, final int leaderEpoch)
    {
        final long endBefore = log.logEndOffset();
        final LogAppendInfo info;
        try
        {
            info = log.appendAsLeader(records, leaderEpoch);
        }
        catch (final IOException e)
        {
            throw storageError("appending", e);
        }
        catch (final RecordValidationException e)
        {
            // Not an ApiException itself: the broker maps the one it wraps (e.g. InvalidTimestampException).
            throw e.invalidException();
        }
        final boolean duplicate = log.logEndOffset() == endBefore && info.firstOffset() >= 0
            && info.lastOffset() < endBefore;
        return result(info, duplicate);
    }

    @Override
    public AppendResult appendMarkerAsLeader(final MemoryRecords markers, final int leaderEpoch)
    {
        return appendAsCoordinator(markers, leaderEpoch);
    }

    @Override
    public AppendResult appendAsCoordinator(final MemoryRecords records, final int leaderEpoch)
    {
        try
        {
            return result(log.appendAsLeader(records, leaderEpoch, AppendOrigin.COORDINATOR, RequestLocal.noCaching(),
                VerificationGuard.SENTINEL, TransactionVersion.TV_1.featureLevel()), false);
        }
        catch (final RecordValidationException e)
        {
            throw e.invalidException();
        }
    }

    @Override
    public long lastDataOffsetOf(final long producerId)
    {
        return log.producerStateManager().lastEntry(producerId).map(ProducerStateEntry::lastDataOffset).orElse(-1L);
    }

    @Override
    public List<OpenTransaction> openTransactions()
    {
        final List<OpenTransaction> open = new ArrayList<>();
        for (final DescribeProducersResponseData.ProducerState producer : log.activeProducers())
        {
            if (producer.currentTxnStartOffset() >= 0)
            {
                open.add(new OpenTransaction(producer.producerId(), (short)producer.producerEpoch(),
                    producer.coordinatorEpoch(), producer.currentTxnStartOffset()));
            }
        }
        return open;
    }

    @Override
    public List<DescribeProducersResponseData.ProducerState> activeProducers()
    {
        return log.activeProducers();
    }

    @Override
    public boolean recordDeletionAllowed()
    {
        return log.config().delete;
    }

    @Override
    public AppendResult appendAsFollower(final MemoryRecords records, final int leaderEpoch)
    {
        int epoch = leaderEpoch;
        for (final RecordBatch batch : records.batches())
        {
            epoch = Math.max(epoch, batch.partitionLeaderEpoch());
        }
        return result(log.appendAsFollower(records, epoch), false);
    }

    private AppendResult result(final LogAppendInfo info, final boolean duplicate)
    {
        final long first = info.firstOffset();
        final long last = info.lastOffset();
        final int count = duplicate || first < 0 ? (int)Math.max(0, last - first + 1) : (int)info.numMessages();
        return new AppendResult(first, last, info.logAppendTime(), log.logStartOffset(), count, duplicate);
    }

    @Override
    public ReadResult read(final long offset, final int maxBytes, final FetchIsolation isolation,
        final boolean minOneMessage)
    {
        final long hw = log.highWatermark();
        final long lso = log.lastStableOffset();
        final long lst = log.logStartOffset();
        final long leo = log.logEndOffset();
        final FetchDataInfo info;
        try
        {
            info = log.read(offset, maxBytes, isolation, minOneMessage);
        }
        catch (final IOException e)
        {
            throw storageError("reading", e);
        }
        final List<FetchResponseData.AbortedTransaction> aborted = isolation == FetchIsolation.TXN_COMMITTED
            ? info.abortedTransactions.orElse(List.of()) : List.of();
        return new ReadResult(info.records, hw, lso, lst, leo, aborted);
    }

    @Override
    public OptionalInt latestEpoch()
    {
        final Optional<Integer> epoch = log.latestEpoch();
        return epoch.isPresent() ? OptionalInt.of(epoch.get()) : OptionalInt.empty();
    }

    @Override
    public OptionalInt epochForOffset(final long offset)
    {
        return log.leaderEpochCache().epochForOffset(offset);
    }

    @Override
    public Optional<EpochEndOffset> endOffsetForEpoch(final int leaderEpoch)
    {
        final Optional<OffsetAndEpoch> found = log.endOffsetForEpoch(leaderEpoch);
        return found.map(e -> new EpochEndOffset(e.epoch(), e.offset()));
    }

    @Override
    public void assignEpochStartOffset(final int leaderEpoch, final long startOffset)
    {
        log.assignEpochStartOffset(leaderEpoch, startOffset);
    }

    @Override
    public boolean maybeIncrementLogStartOffset(final long offset)
    {
        return log.maybeIncrementLogStartOffset(offset, LogStartOffsetIncrementReason.ClientRecordDeletion);
    }

    @Override
    public void truncateTo(final long offset)
    {
        // Only a truncation into the cleaned or cleanable segments can race with the cleaner (Kafka's rule too).
        if (offset >= log.activeSegment().baseOffset())
        {
            log.truncateTo(offset);
            return;
        }
        cleaning.pause(log.topicPartition());
        try
        {
            log.truncateTo(offset);
        }
        finally
        {
            cleaning.resume(log);
        }
    }

    @Override
    public void truncateFullyAndStartAt(final long offset)
    {
        cleaning.pause(log.topicPartition());
        try
        {
            log.truncateFullyAndStartAt(offset, Optional.of(offset));
        }
        finally
        {
            cleaning.resume(log);
        }
    }

    @Override
    public Optional<TimestampOffset> offsetForTimestamp(final long timestamp)
    {
        final OffsetResultHolder holder = log.fetchOffsetByTimestamp(timestamp, Optional.empty());
        if (holder.maybeOffsetsError().isPresent())
        {
            throw holder.maybeOffsetsError().get();
        }
        final Optional<FileRecords.TimestampAndOffset> found = holder.timestampAndOffsetOpt();
        return found.map(t -> new TimestampOffset(t.timestamp, t.offset,
            t.leaderEpoch.orElse(RecordBatch.NO_PARTITION_LEADER_EPOCH)));
    }

    @Override
    public void flush()
    {
        log.flush(false);
    }

    @Override
    public int deleteOldSegments()
    {
        try
        {
            return log.deleteOldSegments();
        }
        catch (final IOException e)
        {
            throw storageError("deleting old segments", e);
        }
    }

    @Override
    public void close()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        log.prepareActiveSegmentForClose();
        log.flush(true);
        log.removeLogMetrics();
        log.close();
    }

    /**
     * Releases the log's files the way a crash leaves them: nothing flushed, the active segment's indexes as
     * they are. The next open recovers the log (in-process crash tests).
     */
    void abandon()
    {
        if (!closed.compareAndSet(false, true))
        {
            return;
        }
        log.removeLogMetrics();
        log.close();
    }

    @Override
    public void delete()
    {
        closed.set(true);
        log.removeLogMetrics();
        log.delete();
    }

    @Override
    public String toString()
    {
        return "UnifiedLogPartitionLog(" + log.topicPartition() + ", dir=" + log.dir() + ")";
    }

    private KafkaStorageException storageError(final String what, final IOException e)
    {
        return new KafkaStorageException("I/O error " + what + " on " + log.topicPartition() + " in "
            + log.parentDir(), e);
    }
}

package io.syncmirror.broker.storage;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.TreeSet;
import java.util.concurrent.locks.StampedLock;
import java.util.function.Supplier;

import org.agrona.collections.Long2ObjectHashMap;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.OutOfOrderSequenceException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.errors.UnsupportedForMessageFormatException;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.DefaultRecordBatch;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.server.storage.log.UnexpectedAppendOffsetException;
import org.apache.kafka.storage.internals.log.OffsetsOutOfOrderException;

/**
 * A partition log kept on the heap, for benchmarks at 100k partitions; thread-safety as {@link PartitionLog}:
 * mutations are serialized by the caller, reads and offset getters run on any thread without blocking writers.
 *
 * <p>It honours the observable contract of Kafka's {@code UnifiedLog} that the broker relies on: offsets and the
 * leader epoch are assigned in the appended batch's own buffer (both lie outside a v2 batch's CRC, so no CRC is
 * recomputed unless {@code LogAppendTime} rewrites the timestamps), incoming CRCs are checked, idempotent producer
 * state keeps each producer's last five batches (a retried batch answers its original offsets), transactions hold
 * the last stable offset at their first offset until their marker is appended and replicated (below the HW), and
 * the leader-epoch cache follows {@code LeaderEpochFileCache}'s assignment, lookup and truncation rules.
 *
 * <p>Storage: batches are copied into chunks (the analogue of segments: 4 KiB growing to 1 MiB) and indexed by
 * parallel primitive arrays, so one batch costs 32 bytes of index and an empty log allocates no arrays at all.
 * Chunk bytes are never overwritten: a truncation starts a new chunk, so a read's zero-copy slice stays valid
 * while the writer goes on. Readers run optimistically under a {@link StampedLock} and retry under its read lock
 * only when a mutation overlapped them. Producer state after a truncation is rebuilt by replaying the log, as
 * Kafka rebuilds it from its snapshots. Not modelled: producer-id expiry, compaction, deep validation of the
 * records inside a batch (offset deltas, compressed payloads).
 */
public final class MemoryPartitionLog implements PartitionLog
{
    private static final int MIN_CHUNK_BYTES = 4 * 1024;
    private static final int MAX_CHUNK_BYTES = 1024 * 1024;
    private static final int PRODUCER_BATCHES_KEPT = 5;
    private static final int LENGTH_OFFSET = 8;
    private static final int LOG_OVERHEAD = 12;
    private static final int DEFAULT_MAX_MESSAGE_BYTES = 1024 * 1024 + 12;
    private static final long NO_OFFSET = -1L;
    private static final long DEFAULT_TIMESTAMP_AFTER_MAX_MS = 3_600_000L;

    private final TopicPartition topicPartition;
    private final Uuid topicId;
    private final Time time;
    private final StampedLock lock = new StampedLock();

    // Topic configs in force.
    private volatile boolean logAppendTime;
    private volatile long retentionMs;
    private volatile long retentionBytes;
    private volatile int maxMessageBytes;
    private volatile long timestampBeforeMaxMs;
    private volatile boolean deletePolicy;
    private volatile long timestampAfterMaxMs;

    // Offsets readable from any thread.
    private volatile long logStartOffset;
    private volatile long logEndOffset;
    private volatile long highWatermark;
    private volatile long firstUnstableOffset = Long.MAX_VALUE;

    // Batch index: live batches are [firstBatch, batchCount). Guarded by the stamped lock for readers.
    private ByteBuffer[] batchChunk;
    private int[] batchPosition;
    private int[] batchSize;
    private long[] batchBaseOffset;
    private long[] batchLastOffset;
    private long[] batchMaxTimestamp;
    private int firstBatch;
    private int batchCount;
    private ByteBuffer activeChunk;
    private long sizeBytes;

    // Leader-epoch cache: epochs ascending, each with its start offset.
    private int[] epochs;
    private long[] epochStartOffsets;
    private int epochCount;

    // Producer and transaction state, allocated on first use.
    private Long2ObjectHashMap<ProducerEntry> producers;
    private TreeSet<Long> ongoingTxnFirstOffsets;
    private ArrayDeque<long[]> unreplicatedTxns;
    private ArrayList<long[]> abortedTxns;

    public MemoryPartitionLog(
        final TopicPartition topicPartition, final Uuid topicId, final Map<String, String> topicConfig, final Time time)
    {
        this.topicPartition = topicPartition;
        this.topicId = topicId;
        this.time = time;
        updateConfig(topicConfig);
    }

    /**
     * Applies topic configs: message.timestamp.type, message.timestamp.before.max.ms and .after.max.ms,
     * retention.ms, retention.bytes, max.message.bytes.
     */
    public void updateConfig(final Map<String, String> topicConfig)
    {
        logAppendTime = "LogAppendTime".equals(topicConfig.get("message.timestamp.type"));
        deletePolicy = topicConfig.getOrDefault("cleanup.policy", "delete").contains("delete");
        retentionMs = parseLong(topicConfig.get("retention.ms"), -1L);
        retentionBytes = parseLong(topicConfig.get("retention.bytes"), -1L);
        maxMessageBytes = (int)parseLong(topicConfig.get("max.message.bytes"), DEFAULT_MAX_MESSAGE_BYTES);
        timestampBeforeMaxMs = parseLong(topicConfig.get("message.timestamp.before.max.ms"), Long.MAX_VALUE);
        timestampAfterMaxMs = parseLong(topicConfig.get("message.timestamp.after.max.ms"),
            DEFAULT_TIMESTAMP_AFTER_MAX_MS);
    }

    @Override
    public TopicPartition topicPartition()
    {
        return topicPartition;
    }

    @Override
    public Uuid topicId()
    {
        return topicId;
    }

    @Override
    public long logStartOffset()
    {
        return logStartOffset;
    }

    @Override
    public long logEndOffset()
    {
        return logEndOffset;
    }

    @Override
    public long highWatermark()
    {
        return highWatermark;
    }

    @Override
    public long lastStableOffset()
    {
        return Math.min(firstUnstableOffset, highWatermark);
    }

    @Override
    public long maybeIncrementHighWatermark(final long hw)
    {
        final long target = Math.min(hw, logEndOffset);
        if (target > highWatermark)
        {
            setHighWatermark(target);
        }
        return highWatermark;
    }

    @Override
    public void updateHighWatermark(final long hw)
    {
        setHighWatermark(Math.max(logStartOffset, Math.min(hw, logEndOffset)));
    }

    private void setHighWatermark(final long hw)
    {
        final long stamp = lock.writeLock();
        try
        {
            highWatermark = hw;
            if (unreplicatedTxns != null)
            {
                while (!unreplicatedTxns.isEmpty() && unreplicatedTxns.peekFirst()[1] < hw)
                {
                    unreplicatedTxns.pollFirst();
                }
            }
            refreshFirstUnstableOffset();
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    @Override
    public AppendResult appendAsLeader(final MemoryRecords records, final int leaderEpoch)
    {
        // First pass: everything that can reject the append, so a rejected append leaves no trace.
        long prevPid = RecordBatch.NO_PRODUCER_ID;
        short prevEpoch = RecordBatch.NO_PRODUCER_EPOCH;
        int prevLastSeq = RecordBatch.NO_SEQUENCE;
        final long nowMs = time.milliseconds();
        for (final MutableRecordBatch batch : records.batches())
        {
            validateBatch(batch);
            validateTimestamps(batch, nowMs);
            if (batch.isControlBatch())
            {
                throw new InvalidRecordException("Clients may not write control batches to " + topicPartition);
            }
            if (!batch.hasProducerId())
            {
                continue;
            }
            final long pid = batch.producerId();
            final ProducerEntry entry = producers == null ? null : producers.get(pid);
            if (pid == prevPid)
            {
                checkSequence(batch, prevEpoch, prevLastSeq, true);
            }
            else
            {
                if (entry != null && batch.producerEpoch() == entry.epoch)
                {
                    final int duplicate = entry.findDuplicate(batch.baseSequence(), batch.lastSequence());
                    if (duplicate >= 0)
                    {
                        return new AppendResult(entry.firstOffset[duplicate], entry.lastOffset[duplicate],
                            logAppendTime ? entry.timestamp[duplicate] : RecordBatch.NO_TIMESTAMP, logStartOffset,
                            (int)(entry.lastOffset[duplicate] - entry.firstOffset[duplicate] + 1), true);
                    }
                }
                if (entry != null)
                {
                    if (batch.producerEpoch() < entry.epoch)
                    {
                        throw new InvalidProducerEpochException("Producer " + pid + " epoch " + batch.producerEpoch()
                            + " is below the current epoch " + entry.epoch + " on " + topicPartition);
                    }
                    checkSequence(batch, entry.epoch, entry.lastSequence(), entry.epoch != RecordBatch.NO_PRODUCER_EPOCH);
                    if (!batch.isTransactional() && entry.txnFirstOffset != NO_OFFSET)
                    {
                        throw new InvalidTxnStateException("Expected a transactional write from producer " + pid
                            + " on " + topicPartition);
                    }
                }
            }
            prevPid = pid;
            prevEpoch = batch.producerEpoch();
            prevLastSeq = batch.lastSequence();
        }
        return appendAssigningOffsets(records, leaderEpoch);
    }

    @Override
    public AppendResult appendMarkerAsLeader(final MemoryRecords markers, final int leaderEpoch)
    {
        final long nowMs = time.milliseconds();
        for (final MutableRecordBatch batch : markers.batches())
        {
            validateBatch(batch);
            validateTimestamps(batch, nowMs);
            if (!batch.isControlBatch() || !batch.hasProducerId())
            {
                throw new InvalidRecordException("Expected a transaction marker on " + topicPartition);
            }
            final ProducerEntry entry = producers == null ? null : producers.get(batch.producerId());
            if (entry != null)
            {
                if (batch.producerEpoch() < entry.epoch)
                {
                    throw new InvalidProducerEpochException("Marker epoch " + batch.producerEpoch()
                        + " is below producer " + batch.producerId() + "'s epoch " + entry.epoch);
                }
                final EndTransactionMarker marker = endTxnMarker(batch);
                if (marker != null && marker.coordinatorEpoch() < entry.coordinatorEpoch)
                {
                    throw new TransactionCoordinatorFencedException("Coordinator epoch " + marker.coordinatorEpoch()
                        + " is below " + entry.coordinatorEpoch + " for producer " + batch.producerId());
                }
            }
        }
        return appendAssigningOffsets(markers, leaderEpoch);
    }

    @Override
    public AppendResult appendAsCoordinator(final MemoryRecords records, final int leaderEpoch)
    {
        boolean allMarkers = true;
        boolean anyMarker = false;
        for (final MutableRecordBatch batch : records.batches())
        {
            allMarkers &= batch.isControlBatch();
            anyMarker |= batch.isControlBatch();
        }
        if (allMarkers)
        {
            return appendMarkerAsLeader(records, leaderEpoch);
        }
        if (anyMarker)
        {
            throw new InvalidRecordException("a coordinator append to " + topicPartition
                + " mixes transaction markers with records");
        }
        final long nowMs = time.milliseconds();
        for (final MutableRecordBatch batch : records.batches())
        {
            validateBatch(batch);
            validateTimestamps(batch, nowMs);
        }
        return appendAssigningOffsets(records, leaderEpoch);
    }

    private AppendResult appendAssigningOffsets(final MemoryRecords records, final int leaderEpoch)
    {
        final long nowMs = time.milliseconds();
        final boolean appendTime = logAppendTime;
        long nextOffset = logEndOffset;
        final long firstOffset = nextOffset;
        final long stamp = lock.writeLock();
        try
        {
            for (final MutableRecordBatch batch : records.batches())
            {
                final long count = batch.lastOffset() - batch.baseOffset() + 1;
                batch.setLastOffset(nextOffset + count - 1);
                batch.setPartitionLeaderEpoch(leaderEpoch);
                if (appendTime)
                {
                    batch.setMaxTimestamp(TimestampType.LOG_APPEND_TIME, nowMs);
                }
                assignEpochLocked(leaderEpoch, batch.baseOffset());
                storeBatch(batch);
                applyProducerState(batch);
                nextOffset += count;
            }
            logEndOffset = nextOffset;
            refreshFirstUnstableOffset();
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
        return new AppendResult(firstOffset, nextOffset - 1, appendTime ? nowMs : RecordBatch.NO_TIMESTAMP,
            logStartOffset, (int)(nextOffset - firstOffset), false);
    }

    @Override
    public AppendResult appendAsFollower(final MemoryRecords records, final int leaderEpoch)
    {
        long expected = logEndOffset;
        boolean firstBatchSeen = false;
        for (final MutableRecordBatch batch : records.batches())
        {
            validateBatch(batch);
            if (batch.baseOffset() < expected)
            {
                if (firstBatchSeen)
                {
                    throw new OffsetsOutOfOrderException("Batch at " + batch.baseOffset() + " follows offset "
                        + (expected - 1) + " in one append to " + topicPartition);
                }
                throw new UnexpectedAppendOffsetException("Batch at " + batch.baseOffset()
                    + " is below the next offset " + expected + " of " + topicPartition, batch.baseOffset(),
                    batch.lastOffset());
            }
            firstBatchSeen = true;
            expected = batch.lastOffset() + 1;
        }
        long firstOffset = NO_OFFSET;
        long lastOffset = NO_OFFSET;
        int recordCount = 0;
        final long stamp = lock.writeLock();
        try
        {
            for (final MutableRecordBatch batch : records.batches())
            {
                if (firstOffset == NO_OFFSET)
                {
                    firstOffset = batch.baseOffset();
                }
                lastOffset = batch.lastOffset();
                recordCount += (int)(batch.lastOffset() - batch.baseOffset() + 1);
                assignEpochLocked(batch.partitionLeaderEpoch(), batch.baseOffset());
                storeBatch(batch);
                applyProducerState(batch);
            }
            if (lastOffset != NO_OFFSET)
            {
                logEndOffset = lastOffset + 1;
            }
            refreshFirstUnstableOffset();
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
        return new AppendResult(firstOffset, lastOffset, RecordBatch.NO_TIMESTAMP, logStartOffset, recordCount, false);
    }

    private void validateBatch(final RecordBatch batch)
    {
        if (batch.magic() < RecordBatch.MAGIC_VALUE_V2)
        {
            throw new UnsupportedForMessageFormatException("Only v2 record batches are accepted on " + topicPartition);
        }
        if (batch.sizeInBytes() > maxMessageBytes)
        {
            throw new RecordTooLargeException("Batch of " + batch.sizeInBytes() + " bytes exceeds max.message.bytes "
                + maxMessageBytes + " on " + topicPartition);
        }
        if (!batch.isValid())
        {
            throw new CorruptRecordException("Batch at " + batch.baseOffset() + " fails its CRC check on "
                + topicPartition);
        }
    }

    /** As Kafka's LogValidator for CreateTime topics, on the batch's bounds rather than on every record. */
    private void validateTimestamps(final RecordBatch batch, final long nowMs)
    {
        if (logAppendTime)
        {
            return;
        }
        final long after = timestampAfterMaxMs;
        final long before = timestampBeforeMaxMs;
        final long maxTimestamp = batch.maxTimestamp();
        final long minTimestamp = batch instanceof DefaultRecordBatch ? ((DefaultRecordBatch)batch).baseTimestamp()
            : maxTimestamp;
        if ((maxTimestamp != RecordBatch.NO_TIMESTAMP && maxTimestamp - nowMs > after)
            || (minTimestamp != RecordBatch.NO_TIMESTAMP && nowMs - minTimestamp > before))
        {
            throw new InvalidTimestampException("Timestamps of the batch at " + batch.baseOffset() + " are outside "
                + "the allowed range on " + topicPartition);
        }
    }

    private void checkSequence(
        final RecordBatch batch, final short currentEpoch, final int currentLastSeq, final boolean hasEpoch)
    {
        if (!hasEpoch)
        {
            return;
        }
        final int firstSeq = batch.baseSequence();
        if (batch.producerEpoch() != currentEpoch)
        {
            if (firstSeq != 0)
            {
                throw new OutOfOrderSequenceException("New epoch " + batch.producerEpoch() + " of producer "
                    + batch.producerId() + " must start at sequence 0, not " + firstSeq + " on " + topicPartition);
            }
        }
        else if (!(firstSeq == currentLastSeq + 1L || (firstSeq == 0 && currentLastSeq == Integer.MAX_VALUE)))
        {
            throw new OutOfOrderSequenceException("Out of order sequence " + firstSeq + " after " + currentLastSeq
                + " for producer " + batch.producerId() + " on " + topicPartition);
        }
    }

    private void storeBatch(final RecordBatch batch)
    {
        final int size = batch.sizeInBytes();
        if (activeChunk == null || activeChunk.remaining() < size)
        {
            final int previous = activeChunk == null ? MIN_CHUNK_BYTES / 2 : activeChunk.capacity();
            activeChunk = ByteBuffer.allocate(Math.max(size, Math.min(MAX_CHUNK_BYTES, previous * 2)));
        }
        final int position = activeChunk.position();
        batch.writeTo(activeChunk);
        if (batchBaseOffset == null || batchCount == batchBaseOffset.length)
        {
            growIndex();
        }
        final int i = batchCount;
        batchChunk[i] = activeChunk;
        batchPosition[i] = position;
        batchSize[i] = size;
        batchBaseOffset[i] = batch.baseOffset();
        batchLastOffset[i] = batch.lastOffset();
        batchMaxTimestamp[i] = batch.maxTimestamp();
        batchCount = i + 1;
        sizeBytes += size;
    }

    private void growIndex()
    {
        final int live = batchCount - firstBatch;
        final int capacity = batchBaseOffset == null ? 4 : Math.max(4, live * 2);
        // Copies rather than resizing in place, so an optimistic reader holding the old arrays sees old values.
        batchChunk = Arrays.copyOfRange(batchChunk == null ? new ByteBuffer[0] : batchChunk, firstBatch,
            firstBatch + capacity);
        batchPosition = copyRange(batchPosition, firstBatch, capacity);
        batchSize = copyRange(batchSize, firstBatch, capacity);
        batchBaseOffset = copyRange(batchBaseOffset, firstBatch, capacity);
        batchLastOffset = copyRange(batchLastOffset, firstBatch, capacity);
        batchMaxTimestamp = copyRange(batchMaxTimestamp, firstBatch, capacity);
        batchCount = live;
        firstBatch = 0;
    }

    private static int[] copyRange(final int[] a, final int from, final int capacity)
    {
        return a == null ? new int[capacity] : Arrays.copyOfRange(a, from, from + capacity);
    }

    private static long[] copyRange(final long[] a, final int from, final int capacity)
    {
        return a == null ? new long[capacity] : Arrays.copyOfRange(a, from, from + capacity);
    }

    @Override
    public long lastDataOffsetOf(final long producerId)
    {
        final long stamp = lock.readLock();
        try
        {
            final ProducerEntry entry = producers == null ? null : producers.get(producerId);
            return entry == null || entry.batchCount == 0 ? -1L :
                entry.lastOffset[(entry.batchHead + entry.batchCount - 1) % PRODUCER_BATCHES_KEPT];
        }
        finally
        {
            lock.unlockRead(stamp);
        }
    }

    @Override
    public List<DescribeProducersResponseData.ProducerState> activeProducers()
    {
        final List<DescribeProducersResponseData.ProducerState> states = new ArrayList<>();
        final long stamp = lock.readLock();
        try
        {
            if (producers != null)
            {
                producers.forEach((producerId, entry) ->
                {
                    final long lastTimestamp = entry.batchCount == 0 ? RecordBatch.NO_TIMESTAMP
                        : entry.timestamp[(entry.batchHead + entry.batchCount - 1) % PRODUCER_BATCHES_KEPT];
                    states.add(new DescribeProducersResponseData.ProducerState().setProducerId(producerId)
                        .setProducerEpoch(entry.epoch).setLastSequence(entry.lastSequence())
                        .setLastTimestamp(lastTimestamp).setCoordinatorEpoch(entry.coordinatorEpoch)
                        .setCurrentTxnStartOffset(entry.txnFirstOffset == NO_OFFSET ? -1L : entry.txnFirstOffset));
                });
            }
        }
        finally
        {
            lock.unlockRead(stamp);
        }
        return states;
    }

    @Override
    public boolean recordDeletionAllowed()
    {
        return deletePolicy;
    }

    @Override
    public List<OpenTransaction> openTransactions()
    {
        final List<OpenTransaction> open = new ArrayList<>();
        // Producer state is written under the write lock; the read lock keeps a writer out while it is copied.
        final long stamp = lock.readLock();
        try
        {
            if (producers != null)
            {
                producers.forEach((producerId, entry) ->
                {
                    if (entry.txnFirstOffset != NO_OFFSET)
                    {
                        open.add(new OpenTransaction(producerId, entry.epoch, entry.coordinatorEpoch,
                            entry.txnFirstOffset));
                    }
                });
            }
        }
        finally
        {
            lock.unlockRead(stamp);
        }
        return open;
    }

    private void applyProducerState(final RecordBatch batch)
    {
        if (!batch.hasProducerId())
        {
            return;
        }
        if (producers == null)
        {
            producers = new Long2ObjectHashMap<>();
        }
        ProducerEntry entry = producers.get(batch.producerId());
        if (entry == null)
        {
            entry = new ProducerEntry();
            producers.put(batch.producerId(), entry);
        }
        if (batch.producerEpoch() != entry.epoch)
        {
            entry.epoch = batch.producerEpoch();
            entry.batchCount = 0;
        }
        if (batch.isControlBatch())
        {
            final EndTransactionMarker marker = endTxnMarker(batch);
            if (marker == null)
            {
                return;
            }
            entry.coordinatorEpoch = marker.coordinatorEpoch();
            if (entry.txnFirstOffset != NO_OFFSET)
            {
                completeTxn(batch.producerId(), entry.txnFirstOffset, batch.lastOffset(),
                    marker.controlType() == ControlRecordType.ABORT);
                entry.txnFirstOffset = NO_OFFSET;
            }
            return;
        }
        entry.addBatch(batch.baseSequence(), batch.lastSequence(), batch.baseOffset(), batch.lastOffset(),
            batch.maxTimestamp());
        if (batch.isTransactional() && entry.txnFirstOffset == NO_OFFSET)
        {
            entry.txnFirstOffset = batch.baseOffset();
            if (ongoingTxnFirstOffsets == null)
            {
                ongoingTxnFirstOffsets = new TreeSet<>();
            }
            ongoingTxnFirstOffsets.add(batch.baseOffset());
        }
    }

    private void completeTxn(final long producerId, final long firstOffset, final long lastOffset, final boolean aborted)
    {
        ongoingTxnFirstOffsets.remove(firstOffset);
        if (aborted)
        {
            if (abortedTxns == null)
            {
                abortedTxns = new ArrayList<>();
            }
            abortedTxns.add(new long[] {producerId, firstOffset, lastOffset});
        }
        // Until the marker is below the HW, a follower elected leader might not have it: keep the LSO at the txn.
        if (lastOffset >= highWatermark)
        {
            if (unreplicatedTxns == null)
            {
                unreplicatedTxns = new ArrayDeque<>();
            }
            unreplicatedTxns.addLast(new long[] {firstOffset, lastOffset});
        }
    }

    private void refreshFirstUnstableOffset()
    {
        long first = Long.MAX_VALUE;
        if (ongoingTxnFirstOffsets != null && !ongoingTxnFirstOffsets.isEmpty())
        {
            first = ongoingTxnFirstOffsets.first();
        }
        if (unreplicatedTxns != null)
        {
            for (final long[] txn : unreplicatedTxns)
            {
                first = Math.min(first, txn[0]);
            }
        }
        firstUnstableOffset = first == Long.MAX_VALUE ? first : Math.max(first, logStartOffset);
    }

    private static EndTransactionMarker endTxnMarker(final RecordBatch batch)
    {
        final Iterator<Record> records = batch.iterator();
        if (!records.hasNext())
        {
            return null;
        }
        final Record record = records.next();
        final ControlRecordType type = ControlRecordType.parse(record.key());
        if (type != ControlRecordType.COMMIT && type != ControlRecordType.ABORT)
        {
            return null;
        }
        return EndTransactionMarker.deserialize(record);
    }

    @Override
    public ReadResult read(final long offset, final int maxBytes, final FetchIsolation isolation,
        final boolean minOneMessage)
    {
        final long hw = highWatermark;
        final long lso = lastStableOffset();
        final long lst = logStartOffset;
        final long leo = logEndOffset;
        if (offset < lst || offset > leo)
        {
            throw new OffsetOutOfRangeException("Offset " + offset + " is outside [" + lst + ", " + leo + "] of "
                + topicPartition);
        }
        final long maxOffset = isolation == FetchIsolation.LOG_END ? leo
            : isolation == FetchIsolation.HIGH_WATERMARK ? hw : lso;
        final boolean committed = isolation == FetchIsolation.TXN_COMMITTED;
        return optimisticRead(() -> readLocked(offset, maxBytes, maxOffset, minOneMessage, committed, hw, lso, lst, leo));
    }

    private ReadResult readLocked(final long offset, final int maxBytes, final long maxOffset,
        final boolean minOneMessage, final boolean committed, final long hw, final long lso, final long lst,
        final long leo)
    {
        final int first = offset >= maxOffset ? batchCount : findBatch(offset);
        int end = first;
        int bytes = 0;
        while (end < batchCount && batchLastOffset[end] < maxOffset && batchChunk[end] == batchChunk[first])
        {
            final int size = batchSize[end];
            if (bytes + size > maxBytes && !(bytes == 0 && minOneMessage))
            {
                break;
            }
            bytes += size;
            end++;
        }
        if (end == first)
        {
            return new ReadResult(MemoryRecords.EMPTY, hw, lso, lst, leo, List.of());
        }
        final ByteBuffer slice = batchChunk[first].duplicate();
        slice.limit(batchPosition[first] + bytes).position(batchPosition[first]);
        final MemoryRecords records = MemoryRecords.readableRecords(slice.slice());
        final List<FetchResponseData.AbortedTransaction> aborted = committed
            ? abortedBetween(offset, batchLastOffset[end - 1] + 1) : List.of();
        return new ReadResult(records, hw, lso, lst, leo, aborted);
    }

    private List<FetchResponseData.AbortedTransaction> abortedBetween(final long fromOffset, final long toOffset)
    {
        if (abortedTxns == null)
        {
            return List.of();
        }
        List<FetchResponseData.AbortedTransaction> found = null;
        for (int i = 0, n = abortedTxns.size(); i < n; i++)
        {
            final long[] txn = abortedTxns.get(i);
            if (txn[2] >= fromOffset && txn[1] < toOffset)
            {
                if (found == null)
                {
                    found = new ArrayList<>();
                }
                found.add(new FetchResponseData.AbortedTransaction().setProducerId(txn[0]).setFirstOffset(txn[1]));
            }
        }
        return found == null ? List.of() : found;
    }

    /** The index of the first live batch whose last offset is at or above {@code offset}. */
    private int findBatch(final long offset)
    {
        int low = firstBatch;
        int high = batchCount - 1;
        while (low <= high)
        {
            final int mid = (low + high) >>> 1;
            if (batchLastOffset[mid] < offset)
            {
                low = mid + 1;
            }
            else
            {
                high = mid - 1;
            }
        }
        return low;
    }

    private <T> T optimisticRead(final Supplier<T> read)
    {
        final long optimistic = lock.tryOptimisticRead();
        if (optimistic != 0)
        {
            try
            {
                final T result = read.get();
                if (lock.validate(optimistic))
                {
                    return result;
                }
            }
            catch (final RuntimeException overlappedMutation)
            {
                // A mutation overlapped the read and left it looking at half-updated arrays; retried under lock.
            }
        }
        final long stamp = lock.readLock();
        try
        {
            return read.get();
        }
        finally
        {
            lock.unlockRead(stamp);
        }
    }

    @Override
    public OptionalInt latestEpoch()
    {
        return optimisticRead(() -> epochCount == 0 ? OptionalInt.empty() : OptionalInt.of(epochs[epochCount - 1]));
    }

    @Override
    public OptionalInt epochForOffset(final long offset)
    {
        return optimisticRead(() ->
        {
            final int epoch = epochForOffsetLocked(offset);
            return epoch == RecordBatch.NO_PARTITION_LEADER_EPOCH ? OptionalInt.empty() : OptionalInt.of(epoch);
        });
    }

    @Override
    public Optional<EpochEndOffset> endOffsetForEpoch(final int leaderEpoch)
    {
        return optimisticRead(() -> endOffsetForEpochLocked(leaderEpoch));
    }

    private Optional<EpochEndOffset> endOffsetForEpochLocked(final int leaderEpoch)
    {
        if (leaderEpoch < 0 || epochCount == 0)
        {
            return Optional.empty();
        }
        if (epochs[epochCount - 1] == leaderEpoch)
        {
            return Optional.of(new EpochEndOffset(leaderEpoch, logEndOffset));
        }
        int higher = 0;
        while (higher < epochCount && epochs[higher] <= leaderEpoch)
        {
            higher++;
        }
        if (higher == epochCount)
        {
            return Optional.empty();
        }
        // Below every known epoch: Kafka answers the asked epoch with the first later epoch's start.
        final int epoch = higher == 0 ? leaderEpoch : epochs[higher - 1];
        return Optional.of(new EpochEndOffset(epoch, epochStartOffsets[higher]));
    }

    @Override
    public void assignEpochStartOffset(final int leaderEpoch, final long startOffset)
    {
        final long stamp = lock.writeLock();
        try
        {
            assignEpochLocked(leaderEpoch, startOffset);
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    private void assignEpochLocked(final int epoch, final long startOffset)
    {
        if (epoch < 0)
        {
            return;
        }
        if (epochCount > 0 && epochs[epochCount - 1] == epoch && startOffset >= epochStartOffsets[epochCount - 1])
        {
            return;
        }
        // As LeaderEpochFileCache: entries that the new one contradicts (a later or equal epoch, or a start at or
        // after the new start) are removed, so a lower epoch wipes every higher one.
        int keep = 0;
        for (int i = 0; i < epochCount; i++)
        {
            if (epochs[i] < epoch && epochStartOffsets[i] < startOffset)
            {
                epochs[keep] = epochs[i];
                epochStartOffsets[keep] = epochStartOffsets[i];
                keep++;
            }
        }
        epochCount = keep;
        if (epochs == null || epochCount == epochs.length)
        {
            final int capacity = epochs == null ? 2 : epochs.length * 2;
            epochs = epochs == null ? new int[capacity] : Arrays.copyOf(epochs, capacity);
            epochStartOffsets = epochStartOffsets == null ? new long[capacity]
                : Arrays.copyOf(epochStartOffsets, capacity);
        }
        epochs[epochCount] = epoch;
        epochStartOffsets[epochCount] = startOffset;
        epochCount++;
    }

    private int epochForOffsetLocked(final long offset)
    {
        int found = RecordBatch.NO_PARTITION_LEADER_EPOCH;
        for (int i = 0; i < epochCount && epochStartOffsets[i] <= offset; i++)
        {
            found = epochs[i];
        }
        return found;
    }

    @Override
    public boolean maybeIncrementLogStartOffset(final long offset)
    {
        if (offset > highWatermark)
        {
            throw new OffsetOutOfRangeException("Cannot move the log start offset of " + topicPartition + " to "
                + offset + ", above the HW " + highWatermark);
        }
        if (offset <= logStartOffset)
        {
            return false;
        }
        final long stamp = lock.writeLock();
        try
        {
            moveLogStartLocked(offset);
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
        return true;
    }

    private void moveLogStartLocked(final long offset)
    {
        logStartOffset = offset;
        // As LeaderEpochFileCache.truncateFromStart: the epoch covering the new start now starts there.
        int firstKept = 0;
        while (firstKept + 1 < epochCount && epochStartOffsets[firstKept + 1] <= offset)
        {
            firstKept++;
        }
        if (epochCount > 0 && epochStartOffsets[firstKept] < offset)
        {
            System.arraycopy(epochs, firstKept, epochs, 0, epochCount - firstKept);
            System.arraycopy(epochStartOffsets, firstKept, epochStartOffsets, 0, epochCount - firstKept);
            epochCount -= firstKept;
            epochStartOffsets[0] = offset;
        }
        if (abortedTxns != null)
        {
            abortedTxns.removeIf(txn -> txn[2] < offset);
        }
        refreshFirstUnstableOffset();
    }

    @Override
    public void truncateTo(final long offset)
    {
        if (offset >= logEndOffset)
        {
            return;
        }
        final long target = Math.max(offset, logStartOffset);
        final long stamp = lock.writeLock();
        try
        {
            int keep = findBatch(target);
            // Whole batches only: a batch straddling the target is dropped, as Kafka truncates to a batch boundary.
            final long newEnd = keep < batchCount ? Math.min(target, batchBaseOffset[keep]) : target;
            for (int i = keep; i < batchCount; i++)
            {
                sizeBytes -= batchSize[i];
                batchChunk[i] = null;
            }
            batchCount = keep;
            // New appends go to a fresh chunk: bytes a reader may still hold are never overwritten.
            activeChunk = null;
            logEndOffset = Math.max(newEnd, logStartOffset);
            if (highWatermark > logEndOffset)
            {
                highWatermark = logEndOffset;
            }
            int epochKeep = 0;
            while (epochKeep < epochCount && epochStartOffsets[epochKeep] < logEndOffset)
            {
                epochKeep++;
            }
            epochCount = epochKeep;
            rebuildProducerStateLocked();
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    private void rebuildProducerStateLocked()
    {
        producers = null;
        ongoingTxnFirstOffsets = null;
        unreplicatedTxns = null;
        abortedTxns = null;
        for (int i = firstBatch; i < batchCount; i++)
        {
            final ByteBuffer bytes = batchChunk[i].duplicate();
            bytes.limit(batchPosition[i] + batchSize[i]).position(batchPosition[i]);
            for (final MutableRecordBatch batch : MemoryRecords.readableRecords(bytes.slice()).batches())
            {
                applyProducerState(batch);
            }
        }
        refreshFirstUnstableOffset();
    }

    @Override
    public void truncateFullyAndStartAt(final long offset)
    {
        final long stamp = lock.writeLock();
        try
        {
            batchChunk = null;
            batchPosition = null;
            batchSize = null;
            batchBaseOffset = null;
            batchLastOffset = null;
            batchMaxTimestamp = null;
            firstBatch = 0;
            batchCount = 0;
            activeChunk = null;
            sizeBytes = 0;
            epochs = null;
            epochStartOffsets = null;
            epochCount = 0;
            producers = null;
            ongoingTxnFirstOffsets = null;
            unreplicatedTxns = null;
            abortedTxns = null;
            logStartOffset = offset;
            logEndOffset = offset;
            highWatermark = offset;
            firstUnstableOffset = Long.MAX_VALUE;
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    @Override
    public Optional<TimestampOffset> offsetForTimestamp(final long timestamp)
    {
        return optimisticRead(() -> offsetForTimestampLocked(timestamp));
    }

    private Optional<TimestampOffset> offsetForTimestampLocked(final long timestamp)
    {
        if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP || timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP)
        {
            final long start = logStartOffset;
            return Optional.of(new TimestampOffset(RecordBatch.NO_TIMESTAMP, start, epochForOffsetLocked(start)));
        }
        if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP)
        {
            return Optional.of(new TimestampOffset(RecordBatch.NO_TIMESTAMP, logEndOffset,
                epochCount == 0 ? RecordBatch.NO_PARTITION_LEADER_EPOCH : epochs[epochCount - 1]));
        }
        if (timestamp == ListOffsetsRequest.MAX_TIMESTAMP)
        {
            int best = -1;
            for (int i = firstBatch; i < batchCount; i++)
            {
                if (best < 0 || batchMaxTimestamp[i] > batchMaxTimestamp[best])
                {
                    best = i;
                }
            }
            if (best < 0)
            {
                return Optional.empty();
            }
            return firstRecordAtOrAfter(best, batchMaxTimestamp[best]);
        }
        if (timestamp < 0)
        {
            return Optional.empty();
        }
        for (int i = firstBatch; i < batchCount; i++)
        {
            if (batchMaxTimestamp[i] >= timestamp)
            {
                final Optional<TimestampOffset> found = firstRecordAtOrAfter(i, timestamp);
                if (found.isPresent())
                {
                    return found;
                }
            }
        }
        return Optional.empty();
    }

    private Optional<TimestampOffset> firstRecordAtOrAfter(final int batchIndex, final long timestamp)
    {
        final ByteBuffer bytes = batchChunk[batchIndex].duplicate();
        bytes.limit(batchPosition[batchIndex] + batchSize[batchIndex]).position(batchPosition[batchIndex]);
        for (final MutableRecordBatch batch : MemoryRecords.readableRecords(bytes.slice()).batches())
        {
            for (final Record record : batch)
            {
                if (record.timestamp() >= timestamp && record.offset() >= logStartOffset)
                {
                    return Optional.of(new TimestampOffset(record.timestamp(), record.offset(),
                        batch.partitionLeaderEpoch()));
                }
            }
        }
        return Optional.empty();
    }

    @Override
    public void flush()
    {
    }

    /**
     * Drops whole chunks below the HW that a moved log start offset, retention.ms (by the chunk's largest record
     * timestamp) or retention.bytes make eligible; the active chunk stays, as Kafka keeps the active segment.
     */
    @Override
    public int deleteOldSegments()
    {
        final long nowMs = time.milliseconds();
        final long stamp = lock.writeLock();
        try
        {
            int deleted = 0;
            while (firstBatch < batchCount && batchChunk[firstBatch] != activeChunk)
            {
                final ByteBuffer chunk = batchChunk[firstBatch];
                int end = firstBatch;
                long chunkMaxTimestamp = RecordBatch.NO_TIMESTAMP;
                long chunkBytes = 0;
                while (end < batchCount && batchChunk[end] == chunk)
                {
                    chunkMaxTimestamp = Math.max(chunkMaxTimestamp, batchMaxTimestamp[end]);
                    chunkBytes += batchSize[end];
                    end++;
                }
                final long nextOffset = batchLastOffset[end - 1] + 1;
                final boolean belowStart = nextOffset <= logStartOffset;
                final boolean expired = retentionMs >= 0 && nowMs - chunkMaxTimestamp > retentionMs;
                final boolean oversized = retentionBytes >= 0 && sizeBytes - chunkBytes >= retentionBytes;
                if (nextOffset > highWatermark || !(belowStart || expired || oversized))
                {
                    break;
                }
                for (int i = firstBatch; i < end; i++)
                {
                    batchChunk[i] = null;
                }
                firstBatch = end;
                sizeBytes -= chunkBytes;
                if (nextOffset > logStartOffset)
                {
                    moveLogStartLocked(nextOffset);
                }
                deleted++;
            }
            return deleted;
        }
        finally
        {
            lock.unlockWrite(stamp);
        }
    }

    @Override
    public void close()
    {
    }

    @Override
    public void delete()
    {
        truncateFullyAndStartAt(0);
    }

    /** Bytes of batch data held (retention.bytes counts these). */
    public long sizeInBytes()
    {
        return sizeBytes;
    }

    @Override
    public String toString()
    {
        return "MemoryPartitionLog(" + topicPartition + ", start=" + logStartOffset + ", end=" + logEndOffset
            + ", hw=" + highWatermark + ")";
    }

    private static long parseLong(final String value, final long defaultValue)
    {
        return value == null ? defaultValue : Long.parseLong(value.trim());
    }

    /** One producer's state: epoch, open transaction and its last five batches, as a ring. */
    private static final class ProducerEntry
    {
        short epoch = RecordBatch.NO_PRODUCER_EPOCH;
        int coordinatorEpoch = -1;
        long txnFirstOffset = NO_OFFSET;
        int batchHead;
        int batchCount;
        final int[] firstSeq = new int[PRODUCER_BATCHES_KEPT];
        final int[] lastSeq = new int[PRODUCER_BATCHES_KEPT];
        final long[] firstOffset = new long[PRODUCER_BATCHES_KEPT];
        final long[] lastOffset = new long[PRODUCER_BATCHES_KEPT];
        final long[] timestamp = new long[PRODUCER_BATCHES_KEPT];

        int lastSequence()
        {
            return batchCount == 0 ? RecordBatch.NO_SEQUENCE
                : lastSeq[(batchHead + batchCount - 1) % PRODUCER_BATCHES_KEPT];
        }

        int findDuplicate(final int first, final int last)
        {
            for (int n = 0; n < batchCount; n++)
            {
                final int i = (batchHead + n) % PRODUCER_BATCHES_KEPT;
                if (firstSeq[i] == first && lastSeq[i] == last)
                {
                    return i;
                }
            }
            return -1;
        }

        void addBatch(final int first, final int last, final long firstOff, final long lastOff, final long ts)
        {
            final int i;
            if (batchCount == PRODUCER_BATCHES_KEPT)
            {
                i = batchHead;
                batchHead = (batchHead + 1) % PRODUCER_BATCHES_KEPT;
            }
            else
            {
                i = (batchHead + batchCount) % PRODUCER_BATCHES_KEPT;
                batchCount++;
            }
            firstSeq[i] = first;
            lastSeq[i] = last;
            firstOffset[i] = firstOff;
            lastOffset[i] = lastOff;
            timestamp[i] = ts;
        }
    }
}

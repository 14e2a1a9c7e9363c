package io.syncmirror.broker.controller;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;

import io.syncmirror.broker.storage.PartitionLog;

/**
 * Just enough of a {@link PartitionLog} for the metadata log: leader appends that assign offsets, reads from an
 * offset, HW moves. Its batches survive {@link #close()} so a test can reopen it as after a restart; the HW does
 * not, as with Kafka's log engine. Not thread-safe beyond synchronized methods.
 */
final class FakePartitionLog implements PartitionLog
{
    private final List<ByteBuffer> batches = new ArrayList<>();
    private final List<Long> baseOffsets = new ArrayList<>();
    private long logEndOffset;
    private long highWatermark;
    int flushes;

    /** The same data, with the HW forgotten, as a reopened log. */
    synchronized FakePartitionLog reopen()
    {
        final FakePartitionLog copy = new FakePartitionLog();
        copy.batches.addAll(batches);
        copy.baseOffsets.addAll(baseOffsets);
        copy.logEndOffset = logEndOffset;
        return copy;
    }

    @Override
    public TopicPartition topicPartition()
    {
        return new TopicPartition("__cluster_metadata", 0);
    }

    @Override
    public Uuid topicId()
    {
        return Uuid.METADATA_TOPIC_ID;
    }

    @Override
    public long logStartOffset()
    {
        return 0;
    }

    @Override
    public synchronized long logEndOffset()
    {
        return logEndOffset;
    }

    @Override
    public synchronized long highWatermark()
    {
        return highWatermark;
    }

    @Override
    public long lastStableOffset()
    {
        return highWatermark();
    }

    @Override
    public synchronized long maybeIncrementHighWatermark(final long hw)
    {
        highWatermark = Math.max(highWatermark, Math.min(hw, logEndOffset));
        return highWatermark;
    }

    @Override
    public synchronized void updateHighWatermark(final long hw)
    {
        highWatermark = Math.min(hw, logEndOffset);
    }

    @Override
    public synchronized AppendResult appendAsLeader(final MemoryRecords records, final int leaderEpoch)
    {
        final long first = logEndOffset;
        int count = 0;
        for (final MutableRecordBatch batch : records.batches())
        {
            final int n = (int) (batch.lastOffset() - batch.baseOffset() + 1);
            batch.setLastOffset(logEndOffset + n - 1);
            batch.setPartitionLeaderEpoch(leaderEpoch);
            final ByteBuffer copy = ByteBuffer.allocate(batch.sizeInBytes());
            batch.writeTo(copy);
            copy.flip();
            batches.add(copy);
            baseOffsets.add(logEndOffset);
            logEndOffset += n;
            count += n;
        }
        return new AppendResult(first, logEndOffset - 1, -1, 0, count, false);
    }

    @Override
    public AppendResult appendMarkerAsLeader(final MemoryRecords markers, final int leaderEpoch)
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public AppendResult appendAsFollower(final MemoryRecords records, final int leaderEpoch)
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public synchronized ReadResult read(final long offset, final int maxBytes, final FetchIsolation isolation,
        final boolean minOneMessage)
    {
        final long limit = isolation == FetchIsolation.LOG_END ? logEndOffset : highWatermark;
        int size = 0;
        final List<ByteBuffer> out = new ArrayList<>();
        for (int i = 0; i < batches.size(); i++)
        {
            final long base = baseOffsets.get(i);
            final long next = i + 1 < batches.size() ? baseOffsets.get(i + 1) : logEndOffset;
            if (next <= offset || base >= limit)
            {
                continue;
            }
            if (!out.isEmpty() && size + batches.get(i).remaining() > maxBytes)
            {
                break;
            }
            out.add(batches.get(i).duplicate());
            size += batches.get(i).remaining();
        }
        final ByteBuffer buffer = ByteBuffer.allocate(size);
        out.forEach(buffer::put);
        buffer.flip();
        return new ReadResult(MemoryRecords.readableRecords(buffer), highWatermark, highWatermark, 0, logEndOffset,
            List.of());
    }

    @Override
    public OptionalInt latestEpoch()
    {
        return OptionalInt.of(0);
    }

    @Override
    public Optional<EpochEndOffset> endOffsetForEpoch(final int leaderEpoch)
    {
        return Optional.empty();
    }

    @Override
    public void assignEpochStartOffset(final int leaderEpoch, final long startOffset)
    {
    }

    @Override
    public boolean maybeIncrementLogStartOffset(final long offset)
    {
        throw new UnsupportedOperationException("not used by these tests");
    }

    @Override
    public void truncateTo(final long offset)
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public void truncateFullyAndStartAt(final long offset)
    {
        throw new UnsupportedOperationException();
    }

    @Override
    public Optional<TimestampOffset> offsetForTimestamp(final long timestamp)
    {
        return Optional.empty();
    }

    @Override
    public synchronized void flush()
    {
        flushes++;
    }

    @Override
    public int deleteOldSegments()
    {
        return 0;
    }

    @Override
    public void close()
    {
    }

    @Override
    public void delete()
    {
    }
}

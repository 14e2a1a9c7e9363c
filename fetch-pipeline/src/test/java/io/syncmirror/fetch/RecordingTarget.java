package io.syncmirror.fetch;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;

/** A follower's logs for fetcher tests: appends what arrives, truncates on request, records every callback. */
final class RecordingTarget implements FetchTarget
{
    /** One follower log. */
    static final class FollowerLog
    {
        volatile long logEndOffset;
        volatile long highWatermark = -1L;
        volatile int latestEpoch = -1;
    }

    final Map<TopicPartition, FollowerLog> logs = new ConcurrentHashMap<>();
    final List<String> events = new CopyOnWriteArrayList<>();
    volatile long restartOffsetOnOutOfRange;
    volatile boolean failAppends;
    /** Whether {@link #logEndOffset} reports the log's end (a broker's target does) or -1 (unknown). */
    volatile boolean reportsLogEnd;
    /** How many truncation requests to answer with RETRY_LATER before truncating. */
    volatile int truncationRefusals;

    FollowerLog log(final TopicPartition partition)
    {
        return logs.computeIfAbsent(partition, tp -> new FollowerLog());
    }

    @Override
    public long onRecords(
        final TopicPartition partition, final Records records, final long highWatermark, final long logStartOffset)
    {
        if (failAppends)
        {
            throw new IllegalStateException("disk full");
        }
        final FollowerLog log = log(partition);
        for (final RecordBatch batch : records.batches())
        {
            if (batch.baseOffset() != log.logEndOffset)
            {
                throw new IllegalStateException("gap: batch at " + batch.baseOffset() + ", log end " + log.logEndOffset);
            }
            log.logEndOffset = batch.lastOffset() + 1;
            log.latestEpoch = batch.partitionLeaderEpoch();
        }
        log.highWatermark = Math.min(highWatermark, log.logEndOffset);
        return log.logEndOffset;
    }

    @Override
    public long onDivergingEpoch(final TopicPartition partition, final int epoch, final long endOffset)
    {
        events.add("diverging " + partition + " epoch=" + epoch + " end=" + endOffset);
        if (truncationRefusals > 0)
        {
            truncationRefusals--;
            return RETRY_LATER;
        }
        final FollowerLog log = log(partition);
        log.logEndOffset = Math.min(log.logEndOffset, endOffset);
        log.latestEpoch = epoch;
        return log.logEndOffset;
    }

    @Override
    public long onOffsetOutOfRange(final TopicPartition partition)
    {
        events.add("outOfRange " + partition);
        log(partition).logEndOffset = restartOffsetOnOutOfRange;
        return restartOffsetOnOutOfRange;
    }

    @Override
    public void onPartitionError(final TopicPartition partition, final Errors error)
    {
        events.add("error " + partition + " " + error);
    }

    @Override
    public void onPositionConfirmed(final TopicPartition partition, final int leaderEpoch)
    {
        events.add("confirmed " + partition + " at " + log(partition).logEndOffset + " epoch=" + leaderEpoch);
    }

    @Override
    public int latestEpoch(final TopicPartition partition)
    {
        return log(partition).latestEpoch;
    }

    @Override
    public long logEndOffset(final TopicPartition partition)
    {
        return reportsLogEnd ? log(partition).logEndOffset : -1L;
    }
}

package io.syncmirror.fetch;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Records;

/**
 * The owner of the partitions a {@link FetcherEngine} fetches (the broker's replica manager for followers, the
 * mirror manager for mirror fetchers): it appends what arrives and says where to fetch next. Every method is
 * called on the fetcher's thread, one partition at a time; a method may block for the length of an append or a
 * truncation, never on the network. A method that throws marks the partition delayed for the fetcher's backoff
 * and is reported through {@link #onPartitionError} with {@code Errors.forException}.
 */
public interface FetchTarget
{
    /** A return value of the offset callbacks meaning "not now": the fetcher retries after its backoff. */
    long RETRY_LATER = -1L;

    /**
     * Appends {@code records} (possibly empty: only the high watermark or log start offset moved) at the
     * partition's fetch offset and applies the leader's high watermark and log start offset. Returns the new
     * fetch offset (the log end offset after the append), or {@link #RETRY_LATER}.
     */
    long onRecords(TopicPartition partition, Records records, long highWatermark, long logStartOffset);

    /**
     * The leader says this log diverges from its own after {@code epoch}, whose last offset there is
     * {@code endOffset}: truncate (to at most endOffset, and to the end of the local entry for that epoch) and
     * return the new fetch offset, or {@link #RETRY_LATER}.
     */
    long onDivergingEpoch(TopicPartition partition, int epoch, long endOffset);

    /** The fetch offset is outside the leader's log: return where to restart, or {@link #RETRY_LATER}. */
    long onOffsetOutOfRange(TopicPartition partition);

    /**
     * A partition-level error. FENCED_LEADER_EPOCH and NOT_LEADER_OR_FOLLOWER have already removed the partition
     * from the fetcher (add it again when metadata names a leader); other errors delay it for the backoff.
     */
    void onPartitionError(TopicPartition partition, Errors error);

    /**
     * {@link #onPartitionError(TopicPartition, Errors)} with the response's partition data, whose CurrentLeader
     * (KIP-951) names the leader and epoch the source knows on NOT_LEADER_OR_FOLLOWER and FENCED_LEADER_EPOCH: a
     * fetcher that tracks another cluster's epochs learns them from it. The engine calls this one.
     */
    default void onPartitionError(final TopicPartition partition, final Errors error,
        final FetchResponseData.PartitionData data)
    {
        onPartitionError(partition, error);
    }

    /**
     * The leader of epoch {@code leaderEpoch} answered a fetch at this partition's position (its fetch offset and
     * last fetched epoch) without an error or a diverging epoch, in an incremental response that left the
     * partition out because nothing was new: the log matches the leader's history up to its end. Called once per
     * position the partition was started or truncated to; {@link #onRecords} says the same when the response names
     * the partition.
     */
    default void onPositionConfirmed(final TopicPartition partition, final int leaderEpoch)
    {
    }

    /** The epoch of the log's last batch (LastFetchedEpoch), -1 if the log is empty or has no epochs. */
    int latestEpoch(TopicPartition partition);

    /**
     * The log's end offset now, -1 if unknown. A partition (re)started by {@link FetcherEngine#addPartition} fetches
     * from here rather than from the offset its caller read earlier on another thread: appends of this fetcher in
     * between would otherwise make every later fetch start below the log's end and every append fail.
     */
    default long logEndOffset(final TopicPartition partition)
    {
        return -1L;
    }

    /** The log's start offset, sent to the leader (it bounds DeleteRecords' low watermark); -1 if unknown. */
    default long localLogStartOffset(final TopicPartition partition)
    {
        return -1L;
    }
}

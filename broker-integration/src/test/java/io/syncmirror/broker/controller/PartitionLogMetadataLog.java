package io.syncmirror.broker.controller;

import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.server.storage.log.FetchIsolation;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.storage.PartitionLog;

/**
 * A {@link MetadataLog} on a {@link PartitionLog}, committed on append: the controller's tests run a controller on
 * it without a metadata quorum, and reopen it as a restart would (brokers run theirs on the quorum's log,
 * {@code quorum.RaftMetadataLog}, a quorum of one for a single controller). Thread-safety as {@link MetadataLog}:
 * appends from one thread, reads from any.
 *
 * <p>An append is flushed before it counts, so everything the log holds when it is reopened was committed:
 * opening moves the HW to the log end (the log store does not need to have checkpointed it).
 *
 * <p>Open the underlying log with {@link #TOPIC_CONFIG}: Kafka's default retention (7 days) would delete the
 * metadata log's old segments, and with them the cluster's state (there are no snapshots yet).
 */
final class PartitionLogMetadataLog implements MetadataLog
{
    /** Topic config overrides for {@code __cluster_metadata-0}: keep everything, never compact. */
    static final java.util.Map<String, String> TOPIC_CONFIG = java.util.Map.of(
        "retention.ms", "-1", "retention.bytes", "-1", "cleanup.policy", "delete");

    /** Batches are written with this leader epoch; with one controller there is never another. */
    private static final int CONTROLLER_EPOCH = 0;

    private final PartitionLog partitionLog;

    PartitionLogMetadataLog(final PartitionLog partitionLog)
    {
        this.partitionLog = partitionLog;
        partitionLog.maybeIncrementHighWatermark(partitionLog.logEndOffset());
    }

    @Override
    public long append(final java.util.List<MetadataRecord> records, final long timeMs)
    {
        final MemoryRecords batch = MetadataRecordCodec.encodeBatch(0, timeMs, records);
        // A leader append takes batches as a producer sends them, based at offset 0 (Kafka's log validator
        // refuses any other base); the log assigns the real offsets.
        final PartitionLog.AppendResult result = partitionLog.appendAsLeader(batch, CONTROLLER_EPOCH);
        partitionLog.flush();
        partitionLog.maybeIncrementHighWatermark(partitionLog.logEndOffset());
        return result.lastOffset();
    }

    @Override
    public Records read(final long offset, final int maxBytes)
    {
        if (offset >= partitionLog.highWatermark())
        {
            return MemoryRecords.EMPTY;
        }
        return partitionLog.read(offset, maxBytes, FetchIsolation.HIGH_WATERMARK, true).records();
    }

    @Override
    public long endOffset()
    {
        return partitionLog.logEndOffset();
    }

    @Override
    public long highWatermark()
    {
        return partitionLog.highWatermark();
    }

    @Override
    public void close()
    {
        partitionLog.close();
    }
}

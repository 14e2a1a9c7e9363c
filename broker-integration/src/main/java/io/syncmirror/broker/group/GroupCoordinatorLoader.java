package io.syncmirror.broker.group;

import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.coordinator.common.runtime.CoordinatorLoader;
import org.apache.kafka.coordinator.common.runtime.CoordinatorLoaderImpl;
import org.apache.kafka.coordinator.common.runtime.CoordinatorPlayback;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.Deserializer;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.apache.kafka.storage.internals.log.UnifiedLog;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.coordinator.ReplicaAccess;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.broker.storage.UnifiedLogPartitionLog;

/**
 * Loads a {@code __consumer_offsets} partition into the group coordinator when this broker becomes its leader.
 * Thread-safe: loads run on their own threads and complete the returned futures there.
 *
 * <p>A partition on Kafka's log engine is loaded by Kafka's own {@link CoordinatorLoaderImpl}. A partition on the
 * heap log (the benchmarks' storage) has no {@link UnifiedLog}, so it is replayed here the same way: every batch
 * from the log start to the log end, data records through the coordinator's record serde, transaction markers as
 * end-of-transaction replays, the last written offset after each batch, and the HW as the last committed offset at
 * the end. Record types the serde does not know are skipped, as Kafka's loader skips them.
 */
final class GroupCoordinatorLoader implements CoordinatorLoader<CoordinatorRecord>
{
    private static final Logger LOG = LoggerFactory.getLogger(GroupCoordinatorLoader.class);

    private final ReplicaAccess replicas;
    private final Time time;
    private final int loadBufferSize;
    private final Deserializer<CoordinatorRecord> serde = new GroupCoordinatorRecordSerde();
    private final CoordinatorLoaderImpl<CoordinatorRecord> kafkaLoader;
    private final ExecutorService heapLoads;

    GroupCoordinatorLoader(final int brokerId, final ReplicaAccess replicas, final Time time,
        final int loadBufferSize)
    {
        this.replicas = replicas;
        this.time = time;
        this.loadBufferSize = loadBufferSize;
        this.kafkaLoader = new CoordinatorLoaderImpl<>(time, this::unifiedLog,
            tp -> replicas.leaderLog(tp).map(PartitionLog::logEndOffset), serde, loadBufferSize,
            CoordinatorLoaderImpl.DEFAULT_COMMIT_INTERVAL_OFFSETS);
        this.heapLoads = Executors.newSingleThreadExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "group-coordinator-heap-loader-" + brokerId);
            thread.setDaemon(true);
            return thread;
        });
    }

    private Optional<UnifiedLog> unifiedLog(final TopicPartition tp)
    {
        return replicas.leaderLog(tp).filter(UnifiedLogPartitionLog.class::isInstance)
            .map(log -> ((UnifiedLogPartitionLog)log).unifiedLog());
    }

    @Override
    public CompletableFuture<LoadSummary> load(final TopicPartition tp,
        final CoordinatorPlayback<CoordinatorRecord> playback)
    {
        final Optional<PartitionLog> log = replicas.leaderLog(tp);
        if (log.isEmpty())
        {
            return CompletableFuture.failedFuture(new NotLeaderOrFollowerException("broker does not lead " + tp));
        }
        if (log.get() instanceof UnifiedLogPartitionLog)
        {
            return kafkaLoader.load(tp, playback);
        }
        final long queuedMs = time.milliseconds();
        final CompletableFuture<LoadSummary> done = new CompletableFuture<>();
        heapLoads.execute(() ->
        {
            try
            {
                done.complete(replay(tp, log.get(), playback, queuedMs));
            }
            catch (final RuntimeException e)
            {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    private LoadSummary replay(final TopicPartition tp, final PartitionLog log,
        final CoordinatorPlayback<CoordinatorRecord> playback, final long queuedMs)
    {
        final long startMs = time.milliseconds();
        final long endOffset = log.logEndOffset();
        long offset = log.logStartOffset();
        long records = 0;
        long bytes = 0;
        while (offset < endOffset)
        {
            final PartitionLog.ReadResult read = log.read(offset, loadBufferSize, FetchIsolation.LOG_END, true);
            long next = offset;
            for (final RecordBatch batch : read.records().batches())
            {
                if (batch.lastOffset() < offset)
                {
                    continue;
                }
                bytes += batch.sizeInBytes();
                if (batch.isControlBatch())
                {
                    replayMarker(batch, playback);
                }
                else
                {
                    for (final Record record : batch)
                    {
                        records++;
                        replayRecord(tp, batch, record, playback);
                    }
                }
                next = batch.nextOffset();
                // Strictly increasing, and never called on an empty log: the coordinator refuses both.
                playback.updateLastWrittenOffset(next);
            }
            if (next == offset)
            {
                break; // a trailing partial batch: nothing more to read whole
            }
            offset = next;
        }
        if (bytes == 0 && offset > 0)
        {
            // Nothing left below the log end (all of it deleted): what is written starts at the log start.
            playback.updateLastWrittenOffset(offset);
        }
        playback.updateLastCommittedOffset(Math.min(log.highWatermark(), offset));
        return new LoadSummary(startMs, time.milliseconds(), startMs - queuedMs, records, bytes);
    }

    private static void replayMarker(final RecordBatch batch, final CoordinatorPlayback<CoordinatorRecord> playback)
    {
        for (final Record record : batch)
        {
            final ControlRecordType type = ControlRecordType.parse(record.key());
            if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT)
            {
                playback.replayEndTransactionMarker(batch.producerId(), batch.producerEpoch(),
                    type == ControlRecordType.COMMIT ? TransactionResult.COMMIT : TransactionResult.ABORT);
            }
        }
    }

    private void replayRecord(final TopicPartition tp, final RecordBatch batch, final Record record,
        final CoordinatorPlayback<CoordinatorRecord> playback)
    {
        final CoordinatorRecord decoded;
        try
        {
            decoded = serde.deserialize(record.key(), record.value());
        }
        catch (final Deserializer.UnknownRecordTypeException e)
        {
            LOG.warn("skipping a record of unknown type {} at offset {} of {}", e.unknownType(), record.offset(), tp);
            return;
        }
        if (decoded != null)
        {
            playback.replay(record.offset(), batch.producerId(), batch.producerEpoch(), decoded);
        }
    }

    @Override
    public void close()
    {
        try
        {
            kafkaLoader.close();
        }
        catch (final Exception e)
        {
            LOG.warn("closing Kafka's coordinator loader failed", e);
        }
        heapLoads.shutdownNow();
        try
        {
            heapLoads.awaitTermination(5, TimeUnit.SECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }
}

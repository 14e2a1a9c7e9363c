package io.syncmirror.broker.coordinator;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TransactionCoordinatorFencedException;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.MutableRecordBatch;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;

import io.syncmirror.broker.storage.PartitionLog;

/**
 * The replica layer as the coordinators see it, in memory: one log per partition shared by every "broker" of a test
 * (so a coordinator started later reads what an earlier one wrote, as after a move), appends complete at once
 * unless the test holds them, and a partition can be told to refuse appends. Thread-safe.
 */
public final class FakeReplicaAccess implements ReplicaAccess
{
    private final Map<TopicPartition, FakeLog> logs = new HashMap<>();
    private final Map<String, List<LeadershipListener>> listeners = new HashMap<>();
    private final Set<TopicPartition> refusing = new HashSet<>();
    private final Map<TopicPartition, Map<Long, Integer>> markerEpochs = new HashMap<>();
    private final List<String> ensuredTopics = new ArrayList<>();
    private final List<Runnable> held = new ArrayList<>();
    private boolean holding;

    public synchronized FakeLog log(final TopicPartition partition)
    {
        return logs.computeIfAbsent(partition, FakeLog::new);
    }

    public synchronized void refuseAppends(final TopicPartition partition, final boolean refuse)
    {
        if (refuse)
        {
            refusing.add(partition);
        }
        else
        {
            refusing.remove(partition);
        }
    }

    /** While holding, appends are written but their futures complete only on {@link #release()}. */
    synchronized void hold(final boolean hold)
    {
        holding = hold;
    }

    void release()
    {
        final List<Runnable> toRun;
        synchronized (this)
        {
            toRun = new ArrayList<>(held);
            held.clear();
        }
        toRun.forEach(Runnable::run);
    }

    synchronized List<String> ensuredTopics()
    {
        return new ArrayList<>(ensuredTopics);
    }

    void becomeLeader(final TopicPartition partition, final int leaderEpoch)
    {
        final List<LeadershipListener> registered;
        synchronized (this)
        {
            registered = new ArrayList<>(listeners.getOrDefault(partition.topic(), List.of()));
        }
        registered.forEach(l -> l.onBecomeLeader(partition, leaderEpoch));
    }

    void resign(final TopicPartition partition)
    {
        final List<LeadershipListener> registered;
        synchronized (this)
        {
            registered = new ArrayList<>(listeners.getOrDefault(partition.topic(), List.of()));
        }
        registered.forEach(l -> l.onResign(partition));
    }

    /** Forgets the listeners registered so far (the broker that registered them stopped). */
    synchronized void clearListeners()
    {
        listeners.clear();
    }

    @Override
    public CompletableFuture<PartitionLog.AppendResult> appendAndWait(final TopicPartition partition,
        final MemoryRecords records, final long timeoutMs)
    {
        return append(partition, records);
    }

    @Override
    public CompletableFuture<PartitionLog.AppendResult> appendMarkersAndWait(final TopicPartition partition,
        final MemoryRecords markers, final long timeoutMs)
    {
        return append(partition, markers);
    }

    private CompletableFuture<PartitionLog.AppendResult> append(final TopicPartition partition,
        final MemoryRecords records)
    {
        final CompletableFuture<PartitionLog.AppendResult> result = new CompletableFuture<>();
        final PartitionLog.AppendResult appended;
        synchronized (this)
        {
            if (refusing.contains(partition))
            {
                return CompletableFuture.failedFuture(new NotLeaderOrFollowerException("refused by the test"));
            }
            if (fencedMarker(partition, records))
            {
                return CompletableFuture.failedFuture(
                    new TransactionCoordinatorFencedException("coordinator epoch below the last marker's"));
            }
            appended = log(partition).appendAsLeader(records, 0);
            if (holding)
            {
                held.add(() -> result.complete(appended));
                return result;
            }
        }
        result.complete(appended);
        return result;
    }

    /** As Kafka's producer state does: a marker from an older coordinator epoch than the last one is refused. */
    private boolean fencedMarker(final TopicPartition partition, final MemoryRecords records)
    {
        for (final RecordBatch batch : records.batches())
        {
            if (!batch.isControlBatch())
            {
                continue;
            }
            final int epoch = EndTransactionMarker.deserialize(batch.iterator().next()).coordinatorEpoch();
            final Map<Long, Integer> byProducer = markerEpochs.computeIfAbsent(partition, p -> new HashMap<>());
            final Integer last = byProducer.get(batch.producerId());
            if (last != null && epoch < last)
            {
                return true;
            }
            byProducer.put(batch.producerId(), epoch);
        }
        return false;
    }

    @Override
    public long appendAsLeaderNow(final TopicPartition partition, final MemoryRecords records)
    {
        return log(partition).appendAsCoordinator(records, 0).lastOffset() + 1;
    }

    @Override
    public boolean highWatermarkListener(final TopicPartition partition,
        final java.util.function.ObjLongConsumer<TopicPartition> listener)
    {
        return false;
    }

    @Override
    public Optional<Map<String, String>> topicConfig(final TopicPartition partition)
    {
        return Optional.of(Map.of());
    }

    @Override
    public synchronized Optional<PartitionLog> leaderLog(final TopicPartition partition)
    {
        return Optional.of(log(partition));
    }

    @Override
    public synchronized CompletableFuture<Void> ensureTopic(final String topic, final int partitions,
        final short replicationFactor, final Map<String, String> config)
    {
        ensuredTopics.add(topic + "/" + partitions + "/" + replicationFactor + "/" + config.get("min.insync.replicas"));
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public synchronized void addLeadershipListener(final String topic, final LeadershipListener listener)
    {
        listeners.computeIfAbsent(topic, t -> new ArrayList<>()).add(listener);
    }

    /** A partition's log: batches with offsets assigned on append. */
    public static final class FakeLog implements PartitionLog
    {
        private final TopicPartition partition;
        private final List<MemoryRecords> batches = new ArrayList<>();
        private long endOffset;

        FakeLog(final TopicPartition partition)
        {
            this.partition = partition;
        }

        synchronized List<RecordBatch> batches()
        {
            final List<RecordBatch> all = new ArrayList<>();
            for (final MemoryRecords records : batches)
            {
                records.batches().forEach(all::add);
            }
            return all;
        }

        @Override
        public TopicPartition topicPartition()
        {
            return partition;
        }

        @Override
        public Uuid topicId()
        {
            return Uuid.ZERO_UUID;
        }

        @Override
        public long logStartOffset()
        {
            return 0;
        }

        @Override
        public synchronized long logEndOffset()
        {
            return endOffset;
        }

        @Override
        public synchronized long highWatermark()
        {
            return endOffset;
        }

        @Override
        public synchronized long lastStableOffset()
        {
            return endOffset;
        }

        @Override
        public long maybeIncrementHighWatermark(final long hw)
        {
            return hw;
        }

        @Override
        public void updateHighWatermark(final long hw)
        {
        }

        @Override
        public synchronized AppendResult appendAsLeader(final MemoryRecords records, final int leaderEpoch)
        {
            final ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
            copy.put(records.buffer().duplicate());
            copy.flip();
            final MemoryRecords stored = MemoryRecords.readableRecords(copy);
            final long first = endOffset;
            int count = 0;
            for (final MutableRecordBatch batch : stored.batches())
            {
                final long span = batch.lastOffset() - batch.baseOffset();
                batch.setLastOffset(endOffset + span);
                endOffset += span + 1;
                count += (int) (span + 1);
            }
            batches.add(stored);
            return new AppendResult(first, endOffset - 1, -1L, 0L, count, false);
        }

        @Override
        public AppendResult appendAsCoordinator(final MemoryRecords records, final int leaderEpoch)
        {
            return appendAsLeader(records, leaderEpoch);
        }

        @Override
        public AppendResult appendMarkerAsLeader(final MemoryRecords markers, final int leaderEpoch)
        {
            return appendAsLeader(markers, leaderEpoch);
        }

        /** Keeps the batches' own offsets, as a follower does; they must start at the log end. */
        @Override
        public synchronized AppendResult appendAsFollower(final MemoryRecords records, final int leaderEpoch)
        {
            final ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
            copy.put(records.buffer().duplicate());
            copy.flip();
            final MemoryRecords stored = MemoryRecords.readableRecords(copy);
            final long first = endOffset;
            int count = 0;
            for (final MutableRecordBatch batch : stored.batches())
            {
                if (batch.baseOffset() != endOffset)
                {
                    throw new IllegalArgumentException("batch at " + batch.baseOffset() + ", log end " + endOffset);
                }
                count += (int)(batch.lastOffset() - batch.baseOffset() + 1);
                endOffset = batch.lastOffset() + 1;
            }
            batches.add(stored);
            return new AppendResult(first, endOffset - 1, -1L, 0L, count, false);
        }

        @Override
        public synchronized ReadResult read(final long offset, final int maxBytes, final FetchIsolation isolation,
            final boolean minOneMessage)
        {
            final List<RecordBatch> selected = new ArrayList<>();
            for (final RecordBatch batch : batches())
            {
                if (batch.lastOffset() >= offset)
                {
                    selected.add(batch);
                }
            }
            int size = 0;
            for (final RecordBatch batch : selected)
            {
                size += batch.sizeInBytes();
            }
            final ByteBuffer buffer = ByteBuffer.allocate(size);
            for (final RecordBatch batch : selected)
            {
                ((MutableRecordBatch) batch).writeTo(new org.apache.kafka.common.utils.internals.ByteBufferOutputStream(
                    buffer));
            }
            buffer.flip();
            return new ReadResult(MemoryRecords.readableRecords(buffer), endOffset, endOffset, 0L, endOffset,
                List.of());
        }

        @Override
        public OptionalInt latestEpoch()
        {
            return OptionalInt.empty();
        }

        @Override
        public OptionalInt epochForOffset(final long offset)
        {
            return OptionalInt.empty();
        }

        @Override
        public long lastDataOffsetOf(final long producerId)
        {
            return -1L; // the coordinator logs written here are never idempotent
        }

        @Override
        public List<OpenTransaction> openTransactions()
        {
            return List.of(); // the coordinator logs written here are never transactional
        }

        @Override
        public List<org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState> activeProducers()
        {
            return List.of();
        }

        @Override
        public boolean recordDeletionAllowed()
        {
            return false; // coordinator logs are compacted
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

        /** The log start stays at 0: nothing is ever deleted from this log. */
        @Override
        public boolean maybeIncrementLogStartOffset(final long offset)
        {
            return false;
        }

        /** Drops whole batches at and above {@code offset} (coordinator batches are never split here). */
        @Override
        public synchronized void truncateTo(final long offset)
        {
            final List<MemoryRecords> kept = new ArrayList<>();
            for (final MemoryRecords records : batches)
            {
                final RecordBatch first = records.batches().iterator().next();
                if (first.baseOffset() < offset)
                {
                    kept.add(records);
                }
            }
            batches.clear();
            batches.addAll(kept);
            endOffset = Math.min(endOffset, offset);
        }

        @Override
        public synchronized void truncateFullyAndStartAt(final long offset)
        {
            batches.clear();
            endOffset = offset;
        }

        @Override
        public Optional<TimestampOffset> offsetForTimestamp(final long timestamp)
        {
            return Optional.empty();
        }

        @Override
        public void flush()
        {
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
}

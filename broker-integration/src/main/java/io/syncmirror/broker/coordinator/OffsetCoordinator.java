package io.syncmirror.broker.coordinator;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.MetadataView;
import io.syncmirror.broker.storage.PartitionLog;

/**
 * Consumer offsets without group membership: the offsets half of Kafka's group coordinator, for consumers that
 * assign() partitions and commit (simple groups), and for transactional producers' sendOffsetsToTransaction.
 * Thread-safe: one lock guards the caches; it is never held while calling the replica layer or completing a
 * caller's future.
 *
 * <p>Offsets live in the compacted internal topic {@code __consumer_offsets}, owned by the leader of the group's
 * partition there, and are replayed from its log on becoming leader. A transactional commit is appended as a
 * transactional batch of the producer and stays pending until the transaction's marker lands in the same
 * partition ({@link #onMarkerWritten}): COMMIT makes it visible, ABORT drops it; the same rule applies on replay.
 * Every group is an empty classic group: commits with generation -1 are accepted, a member id or generation of a
 * group without membership is answered as Kafka does (UNKNOWN_MEMBER_ID, or GROUP_ID_NOT_FOUND /
 * ILLEGAL_GENERATION when the group does not exist).
 */
public final class OffsetCoordinator implements ReplicaAccess.LeadershipListener, TxnMarkerWriter.MarkerListener
{
    private static final Logger LOG = LoggerFactory.getLogger(OffsetCoordinator.class);

    /** An offset as committed or fetched. {@code leaderEpoch} is -1 when unknown. */
    public record CommittedOffset(long offset, int leaderEpoch, String metadata, long commitTimestampMs)
    {
    }

    /** An OffsetFetch answer for one partition: offset -1 and NONE when nothing is committed. */
    public record FetchedOffset(long offset, int leaderEpoch, String metadata, Errors error)
    {
    }

    /** An OffsetFetch answer for one group. */
    public record GroupOffsets(Errors error, Map<TopicPartition, FetchedOffset> offsets)
    {
    }

    /** A ListGroups answer of this broker: the group ids it coordinates, and NONE or a retriable error. */
    public record GroupListing(Errors error, List<String> groupIds)
    {
    }

    /** A DescribeGroups answer for one group: the coordinator error, and whether the group has offsets here. */
    public record GroupExistence(Errors error, boolean exists)
    {
    }

    private final CoordinatorConfig config;
    private final ReplicaAccess replicas;
    private final MetadataView metadata;
    private final Executor loadExecutor;
    private final Time time;
    private final InternalTopicCreation topicCreation = new InternalTopicCreation();

    private final Object lock = new Object();
    private final Map<Integer, OffsetsPartition> partitions = new HashMap<>();

    public OffsetCoordinator(final CoordinatorConfig config, final ReplicaAccess replicas, final MetadataView metadata,
        final Executor loadExecutor, final Time time)
    {
        this.config = config;
        this.replicas = replicas;
        this.metadata = metadata;
        this.loadExecutor = loadExecutor;
        this.time = time;
    }

    /** Registers for leadership of {@code __consumer_offsets} partitions. Call once before serving. */
    public void startup()
    {
        replicas.addLeadershipListener(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, this);
    }

    /** Creates {@code __consumer_offsets} once (later calls return the same future). */
    public CompletableFuture<Void> ensureTopic()
    {
        return topicCreation.ensure(() ->
        {
            final int alive = Math.max(1, metadata.liveBrokers().size());
            final short replicationFactor = (short) Math.min(config.offsetsTopicReplicationFactor(), alive);
            return replicas.ensureTopic(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, config.offsetsTopicPartitions(),
                replicationFactor, Map.of("cleanup.policy", "compact", "compression.type", "producer",
                    "segment.bytes", "104857600"));
        });
    }

    public TopicPartition partitionFor(final String groupId)
    {
        return new TopicPartition(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC, config.offsetsPartitionFor(groupId));
    }

    /** NONE when this broker serves the group now, else NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS. */
    public Errors coordinatorError(final String groupId)
    {
        synchronized (lock)
        {
            return partitionError(partitions.get(config.offsetsPartitionFor(groupId)));
        }
    }

    // ------------------------------------------------------------------------------------------------ commit

    /**
     * OffsetCommit. {@code groupIdNotFoundSupported} is whether the request version may carry GROUP_ID_NOT_FOUND
     * (OffsetCommit v9+; TxnOffsetCommitRequest.supportsGroupIdNotFoundError), else ILLEGAL_GENERATION stands in.
     */
    public CompletableFuture<Map<TopicPartition, Errors>> commitOffsets(final String groupId, final String memberId,
        final int generationId, final String groupInstanceId, final Map<TopicPartition, CommittedOffset> offsets,
        final boolean groupIdNotFoundSupported)
    {
        return commit(groupId, memberId, generationId, groupInstanceId, offsets, groupIdNotFoundSupported, -1L,
            (short) -1);
    }

    /** TxnOffsetCommit: the offsets become visible when the producer's transaction commits. */
    public CompletableFuture<Map<TopicPartition, Errors>> commitTransactionalOffsets(final String groupId,
        final long producerId, final short producerEpoch, final String memberId, final int generationId,
        final String groupInstanceId, final Map<TopicPartition, CommittedOffset> offsets,
        final boolean groupIdNotFoundSupported)
    {
        return commit(groupId, memberId, generationId, groupInstanceId, offsets, groupIdNotFoundSupported, producerId,
            producerEpoch);
    }

    private CompletableFuture<Map<TopicPartition, Errors>> commit(final String groupId, final String memberId,
        final int generationId, final String groupInstanceId, final Map<TopicPartition, CommittedOffset> offsets,
        final boolean groupIdNotFoundSupported, final long producerId, final short producerEpoch)
    {
        final boolean transactional = producerId >= 0;
        final Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        final List<TopicPartition> valid = new ArrayList<>();
        final List<SimpleRecord> records = new ArrayList<>();
        final int partitionIndex;
        final int coordinatorEpoch;
        final int baseSequence;
        synchronized (lock)
        {
            final Errors groupError;
            if (groupId == null || groupId.isEmpty())
            {
                groupError = Errors.INVALID_GROUP_ID;
            }
            else
            {
                final OffsetsPartition partition = partitions.get(config.offsetsPartitionFor(groupId));
                final Errors partitionError = partitionError(partition);
                if (partitionError != Errors.NONE)
                {
                    groupError = partitionError;
                }
                else if (transactional && partition.producerEpoch(producerId) > producerEpoch)
                {
                    groupError = Errors.INVALID_PRODUCER_EPOCH;
                }
                else
                {
                    groupError = validateMembership(partition, groupId, generationId, groupIdNotFoundSupported);
                }
            }
            if (groupError != Errors.NONE)
            {
                offsets.keySet().forEach(tp -> errors.put(tp, groupError));
                return CompletableFuture.completedFuture(errors);
            }
            final OffsetsPartition partition = partitions.get(config.offsetsPartitionFor(groupId));
            final long nowMs = time.milliseconds();
            for (final Map.Entry<TopicPartition, CommittedOffset> entry : offsets.entrySet())
            {
                final String meta = entry.getValue().metadata();
                if (meta != null && meta.getBytes(StandardCharsets.UTF_8).length > config.offsetMetadataMaxBytes())
                {
                    errors.put(entry.getKey(), Errors.OFFSET_METADATA_TOO_LARGE);
                    continue;
                }
                errors.put(entry.getKey(), Errors.NONE);
                valid.add(entry.getKey());
                final CommittedOffset value = entry.getValue();
                records.add(new SimpleRecord(nowMs, OffsetLogRecord.encodeKey(groupId, entry.getKey()),
                    OffsetLogRecord.encodeValue(new OffsetLogRecord.Value(value.offset(), value.leaderEpoch(),
                        value.metadata(), nowMs))));
            }
            if (valid.isEmpty())
            {
                return CompletableFuture.completedFuture(errors);
            }
            partitionIndex = partition.partition;
            coordinatorEpoch = partition.leaderEpoch;
            baseSequence = transactional ? partition.reserveSequences(producerId, producerEpoch, records.size()) : -1;
        }
        final MemoryRecords batch = transactional
            ? MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, producerEpoch, baseSequence,
                records.toArray(new SimpleRecord[0]))
            : MemoryRecords.withRecords(Compression.NONE, records.toArray(new SimpleRecord[0]));
        final TopicPartition logPartition = new TopicPartition(CoordinatorConfig.CONSUMER_OFFSETS_TOPIC,
            partitionIndex);
        CompletableFuture<PartitionLog.AppendResult> append;
        try
        {
            append = replicas.appendAndWait(logPartition, batch, config.appendTimeoutMs());
        }
        catch (final RuntimeException e)
        {
            append = CompletableFuture.failedFuture(e);
        }
        return append.handle((appended, error) ->
        {
            synchronized (lock)
            {
                final OffsetsPartition partition = partitions.get(partitionIndex);
                final Errors outcome;
                if (partition == null || partition.leaderEpoch != coordinatorEpoch)
                {
                    outcome = Errors.NOT_COORDINATOR;
                }
                else if (error != null)
                {
                    outcome = CoordinatorLogs.appendError(error, Errors.INVALID_COMMIT_OFFSET_SIZE);
                    if (transactional)
                    {
                        partition.releaseSequences(producerId, producerEpoch, baseSequence, records.size());
                    }
                }
                else
                {
                    outcome = Errors.NONE;
                    final long nowMs = time.milliseconds();
                    for (int i = 0; i < valid.size(); i++)
                    {
                        final TopicPartition tp = valid.get(i);
                        final CommittedOffset value = offsets.get(tp);
                        final StoredOffset stored = new StoredOffset(new CommittedOffset(value.offset(),
                            value.leaderEpoch(), value.metadata() == null ? "" : value.metadata(), nowMs),
                            appended.firstOffset() + i);
                        if (transactional)
                        {
                            partition.pending(producerId).computeIfAbsent(groupId, g -> new HashMap<>()).put(tp, stored);
                        }
                        else
                        {
                            partition.commit(groupId, tp, stored);
                        }
                    }
                }
                if (outcome != Errors.NONE)
                {
                    valid.forEach(tp -> errors.put(tp, outcome));
                }
            }
            return errors;
        });
    }

    /** Kafka's offset-commit validation for a group without members. Under the lock. */
    private static Errors validateMembership(final OffsetsPartition partition, final String groupId,
        final int generationId, final boolean groupIdNotFoundSupported)
    {
        if (generationId < 0)
        {
            partition.groups.computeIfAbsent(groupId, g -> new HashMap<>());
            return Errors.NONE;
        }
        if (!partition.groups.containsKey(groupId))
        {
            return groupIdNotFoundSupported ? Errors.GROUP_ID_NOT_FOUND : Errors.ILLEGAL_GENERATION;
        }
        // The group exists but has no members, so no member id or instance id can be valid.
        return Errors.UNKNOWN_MEMBER_ID;
    }

    // ------------------------------------------------------------------------------------------------- fetch

    /**
     * OffsetFetch for one group; {@code requested} null means every partition with a committed offset. With
     * {@code requireStable}, partitions with a pending transactional commit answer UNSTABLE_OFFSET_COMMIT.
     */
    public GroupOffsets fetchOffsets(final String groupId, final Collection<TopicPartition> requested,
        final boolean requireStable)
    {
        synchronized (lock)
        {
            if (groupId == null || groupId.isEmpty())
            {
                return new GroupOffsets(Errors.INVALID_GROUP_ID, Map.of());
            }
            final OffsetsPartition partition = partitions.get(config.offsetsPartitionFor(groupId));
            final Errors partitionError = partitionError(partition);
            if (partitionError != Errors.NONE)
            {
                return new GroupOffsets(partitionError, Map.of());
            }
            final Map<TopicPartition, StoredOffset> committed = partition.groups.getOrDefault(groupId, Map.of());
            final Map<TopicPartition, FetchedOffset> result = new LinkedHashMap<>();
            final Collection<TopicPartition> wanted = requested == null ? committed.keySet() : requested;
            for (final TopicPartition tp : wanted)
            {
                if (requireStable && partition.hasPendingOffset(groupId, tp))
                {
                    result.put(tp, new FetchedOffset(-1L, -1, "", Errors.UNSTABLE_OFFSET_COMMIT));
                    continue;
                }
                final StoredOffset stored = committed.get(tp);
                result.put(tp, stored == null
                    ? new FetchedOffset(-1L, -1, "", Errors.NONE)
                    : new FetchedOffset(stored.value.offset(), stored.value.leaderEpoch(), stored.value.metadata(),
                        Errors.NONE));
            }
            return new GroupOffsets(Errors.NONE, result);
        }
    }

    // ------------------------------------------------------------------------------------------------ listing

    /**
     * The groups this broker coordinates now (ListGroups): those with a committed or pending transactional offset
     * in an offsets partition it leads and has loaded, sorted. The error is COORDINATOR_LOAD_IN_PROGRESS while any
     * partition it leads is still loading, so that a caller retries rather than miss that partition's groups; the
     * groups of the loaded partitions are listed all the same.
     */
    public GroupListing listGroups()
    {
        synchronized (lock)
        {
            final Set<String> groupIds = new TreeSet<>();
            Errors error = Errors.NONE;
            for (final OffsetsPartition partition : partitions.values())
            {
                if (!partition.loaded)
                {
                    error = Errors.COORDINATOR_LOAD_IN_PROGRESS;
                    continue;
                }
                for (final Map.Entry<String, Map<TopicPartition, StoredOffset>> group : partition.groups.entrySet())
                {
                    if (!group.getValue().isEmpty())
                    {
                        groupIds.add(group.getKey());
                    }
                }
                for (final Map<String, Map<TopicPartition, StoredOffset>> pending :
                    partition.pendingByProducer.values())
                {
                    groupIds.addAll(pending.keySet());
                }
            }
            return new GroupListing(error, List.copyOf(groupIds));
        }
    }

    /**
     * Whether {@code groupId} exists here (DescribeGroups): NONE and true when it has a committed or pending
     * offset, NONE and false when this broker coordinates it but it has none, else the coordinator error.
     */
    public GroupExistence groupExists(final String groupId)
    {
        synchronized (lock)
        {
            if (groupId == null || groupId.isEmpty())
            {
                return new GroupExistence(Errors.INVALID_GROUP_ID, false);
            }
            final OffsetsPartition partition = partitions.get(config.offsetsPartitionFor(groupId));
            final Errors partitionError = partitionError(partition);
            if (partitionError != Errors.NONE)
            {
                return new GroupExistence(partitionError, false);
            }
            final boolean exists = !partition.groups.getOrDefault(groupId, Map.of()).isEmpty()
                || partition.hasPendingOffsets(groupId);
            return new GroupExistence(Errors.NONE, exists);
        }
    }

    // ------------------------------------------------------------------------------------------------ markers

    @Override
    public void onMarkerWritten(final TopicPartition partition, final long producerId, final short producerEpoch,
        final boolean committed, final long markerOffset)
    {
        if (!CoordinatorConfig.CONSUMER_OFFSETS_TOPIC.equals(partition.topic()))
        {
            return;
        }
        synchronized (lock)
        {
            final OffsetsPartition state = partitions.get(partition.partition());
            if (state == null)
            {
                return;
            }
            if (!state.loaded)
            {
                state.markersDuringLoad.add(new Marker(producerId, producerEpoch, committed, markerOffset));
                return;
            }
            state.completeTransaction(producerId, producerEpoch, committed, markerOffset);
        }
    }

    // --------------------------------------------------------------------------------------------- leadership

    @Override
    public void onBecomeLeader(final TopicPartition partition, final int leaderEpoch)
    {
        synchronized (lock)
        {
            partitions.put(partition.partition(), new OffsetsPartition(partition.partition(), leaderEpoch));
        }
        loadExecutor.execute(() -> load(partition, leaderEpoch));
    }

    @Override
    public void onResign(final TopicPartition partition)
    {
        synchronized (lock)
        {
            partitions.remove(partition.partition());
        }
    }

    private void load(final TopicPartition partition, final int leaderEpoch)
    {
        final OffsetsPartition loaded = new OffsetsPartition(partition.partition(), leaderEpoch);
        final long[] endOffset = {0L};
        try
        {
            replicas.leaderLog(partition).ifPresent(log -> CoordinatorLogs.replay(log, batch ->
            {
                replayBatch(loaded, batch);
                endOffset[0] = batch.nextOffset();
            }));
        }
        catch (final RuntimeException e)
        {
            LOG.error("loading {} failed; it answers NOT_COORDINATOR", partition, e);
            synchronized (lock)
            {
                final OffsetsPartition state = partitions.get(partition.partition());
                if (state != null && state.leaderEpoch == leaderEpoch)
                {
                    partitions.remove(partition.partition());
                }
            }
            return;
        }
        synchronized (lock)
        {
            final OffsetsPartition state = partitions.get(partition.partition());
            if (state == null || state.leaderEpoch != leaderEpoch)
            {
                return;
            }
            state.groups.putAll(loaded.groups);
            state.pendingByProducer.putAll(loaded.pendingByProducer);
            state.producers.putAll(loaded.producers);
            for (final Marker marker : state.markersDuringLoad)
            {
                if (marker.offset >= endOffset[0])
                {
                    state.completeTransaction(marker.producerId, marker.producerEpoch, marker.committed,
                        marker.offset);
                }
            }
            state.markersDuringLoad.clear();
            state.loaded = true;
        }
        LOG.info("loaded offsets of {} groups from {} at epoch {}", loaded.groups.size(), partition, leaderEpoch);
    }

    private static void replayBatch(final OffsetsPartition state, final RecordBatch batch)
    {
        if (batch.isControlBatch())
        {
            for (final Record record : batch)
            {
                final ControlRecordType type = ControlRecordType.parse(record.key());
                if (type == ControlRecordType.COMMIT || type == ControlRecordType.ABORT)
                {
                    state.completeTransaction(batch.producerId(), batch.producerEpoch(),
                        type == ControlRecordType.COMMIT, record.offset());
                }
            }
            return;
        }
        if (batch.isTransactional())
        {
            state.observeBatch(batch.producerId(), batch.producerEpoch(), batch.lastSequence());
        }
        for (final Record record : batch)
        {
            if (!record.hasKey())
            {
                continue;
            }
            final OffsetLogRecord.Key key = OffsetLogRecord.decodeKey(record.key());
            if (key == null)
            {
                continue;
            }
            if (!record.hasValue())
            {
                final Map<TopicPartition, StoredOffset> group = state.groups.get(key.groupId());
                if (group != null)
                {
                    group.remove(key.partition());
                }
                continue;
            }
            final OffsetLogRecord.Value value = OffsetLogRecord.decodeValue(record.value());
            final StoredOffset stored = new StoredOffset(new CommittedOffset(value.offset(), value.leaderEpoch(),
                value.metadata(), value.commitTimestampMs()), record.offset());
            if (batch.isTransactional())
            {
                state.pending(batch.producerId()).computeIfAbsent(key.groupId(), g -> new HashMap<>())
                    .put(key.partition(), stored);
            }
            else
            {
                state.commit(key.groupId(), key.partition(), stored);
            }
        }
    }

    /** Under the lock. */
    private static Errors partitionError(final OffsetsPartition partition)
    {
        if (partition == null)
        {
            return Errors.NOT_COORDINATOR;
        }
        return partition.loaded ? Errors.NONE : Errors.COORDINATOR_LOAD_IN_PROGRESS;
    }

    /** A committed offset and the log offset of its record, which orders it against transactional commits. */
    private record StoredOffset(CommittedOffset value, long recordOffset)
    {
    }

    private record Marker(long producerId, short producerEpoch, boolean committed, long offset)
    {
    }

    /** A producer's epoch and next sequence in one offsets partition, as the log's producer state sees it. */
    private static final class ProducerSequence
    {
        short epoch;
        int nextSequence;

        ProducerSequence(final short epoch, final int nextSequence)
        {
            this.epoch = epoch;
            this.nextSequence = nextSequence;
        }
    }

    /** One {@code __consumer_offsets} partition this broker leads. Guarded by the coordinator's lock. */
    private static final class OffsetsPartition
    {
        final int partition;
        final int leaderEpoch;
        final Map<String, Map<TopicPartition, StoredOffset>> groups = new HashMap<>();
        final Map<Long, Map<String, Map<TopicPartition, StoredOffset>>> pendingByProducer = new HashMap<>();
        final Map<Long, ProducerSequence> producers = new HashMap<>();
        final List<Marker> markersDuringLoad = new ArrayList<>();
        boolean loaded;

        OffsetsPartition(final int partition, final int leaderEpoch)
        {
            this.partition = partition;
            this.leaderEpoch = leaderEpoch;
        }

        Map<String, Map<TopicPartition, StoredOffset>> pending(final long producerId)
        {
            return pendingByProducer.computeIfAbsent(producerId, p -> new HashMap<>());
        }

        boolean hasPendingOffset(final String groupId, final TopicPartition tp)
        {
            for (final Map<String, Map<TopicPartition, StoredOffset>> byGroup : pendingByProducer.values())
            {
                final Map<TopicPartition, StoredOffset> offsets = byGroup.get(groupId);
                if (offsets != null && offsets.containsKey(tp))
                {
                    return true;
                }
            }
            return false;
        }

        boolean hasPendingOffsets(final String groupId)
        {
            for (final Map<String, Map<TopicPartition, StoredOffset>> byGroup : pendingByProducer.values())
            {
                if (byGroup.containsKey(groupId))
                {
                    return true;
                }
            }
            return false;
        }

        /** A later record wins: replaces only when this record comes after the one in force. */
        void commit(final String groupId, final TopicPartition tp, final StoredOffset stored)
        {
            final Map<TopicPartition, StoredOffset> group = groups.computeIfAbsent(groupId, g -> new HashMap<>());
            final StoredOffset existing = group.get(tp);
            if (existing == null || existing.recordOffset < stored.recordOffset)
            {
                group.put(tp, stored);
            }
        }

        void completeTransaction(final long producerId, final short producerEpoch, final boolean committed,
            final long markerOffset)
        {
            observeMarker(producerId, producerEpoch);
            final Map<String, Map<TopicPartition, StoredOffset>> pending = pendingByProducer.get(producerId);
            if (pending == null)
            {
                return;
            }
            for (final Iterator<Map.Entry<String, Map<TopicPartition, StoredOffset>>> groupIt =
                pending.entrySet().iterator(); groupIt.hasNext();)
            {
                final Map.Entry<String, Map<TopicPartition, StoredOffset>> group = groupIt.next();
                for (final Iterator<Map.Entry<TopicPartition, StoredOffset>> it = group.getValue().entrySet()
                    .iterator(); it.hasNext();)
                {
                    final Map.Entry<TopicPartition, StoredOffset> entry = it.next();
                    if (entry.getValue().recordOffset < markerOffset)
                    {
                        if (committed)
                        {
                            commit(group.getKey(), entry.getKey(), entry.getValue());
                        }
                        it.remove();
                    }
                }
                if (group.getValue().isEmpty())
                {
                    groupIt.remove();
                }
            }
            if (pending.isEmpty())
            {
                pendingByProducer.remove(producerId);
            }
        }

        short producerEpoch(final long producerId)
        {
            final ProducerSequence sequence = producers.get(producerId);
            return sequence == null ? -1 : sequence.epoch;
        }

        void observeBatch(final long producerId, final short epoch, final int lastSequence)
        {
            final ProducerSequence sequence = producers.get(producerId);
            if (sequence == null)
            {
                producers.put(producerId, new ProducerSequence(epoch, lastSequence + 1));
            }
            else
            {
                sequence.epoch = epoch;
                sequence.nextSequence = lastSequence + 1;
            }
        }

        /** A marker with a newer epoch resets the producer's sequence, as the log's producer state does. */
        void observeMarker(final long producerId, final short epoch)
        {
            final ProducerSequence sequence = producers.get(producerId);
            if (sequence == null)
            {
                producers.put(producerId, new ProducerSequence(epoch, 0));
            }
            else if (epoch > sequence.epoch)
            {
                sequence.epoch = epoch;
                sequence.nextSequence = 0;
            }
        }

        int reserveSequences(final long producerId, final short epoch, final int count)
        {
            ProducerSequence sequence = producers.get(producerId);
            if (sequence == null || epoch > sequence.epoch)
            {
                sequence = new ProducerSequence(epoch, 0);
                producers.put(producerId, sequence);
            }
            final int base = sequence.nextSequence;
            sequence.nextSequence += count;
            return base;
        }

        /** Gives back sequences of a failed append when nothing was reserved after them. */
        void releaseSequences(final long producerId, final short epoch, final int base, final int count)
        {
            final ProducerSequence sequence = producers.get(producerId);
            if (sequence != null && sequence.epoch == epoch && sequence.nextSequence == base + count)
            {
                sequence.nextSequence = base;
            }
        }
    }

    /** The committed offsets of a group served here (tests). */
    public Optional<CommittedOffset> committed(final String groupId, final TopicPartition tp)
    {
        synchronized (lock)
        {
            final OffsetsPartition partition = partitions.get(config.offsetsPartitionFor(groupId));
            if (partition == null || !partition.loaded)
            {
                return Optional.empty();
            }
            final StoredOffset stored = partition.groups.getOrDefault(groupId, Map.of()).get(tp);
            return stored == null ? Optional.empty() : Optional.of(stored.value);
        }
    }
}

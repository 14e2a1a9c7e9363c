package io.syncmirror.broker.replica;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.locks.ReentrantLock;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.record.internal.MemoryRecords;

import io.syncmirror.broker.adapter.HotPathAdapter;
import io.syncmirror.broker.adapter.MirrorLinks;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.hwgate.RequestShard;
import io.syncmirror.offheap.PartitionSlotIndex;

/**
 * One partition replica hosted by this broker: its log, its role (leader or follower) and, as leader, its
 * followers' progress and the bridge to the hot path's row. Thread-safety: role changes come from the metadata
 * thread under the append lock; appends hold the append lock only to append and register their wait; reads
 * and follower progress reports take no lock. The current role is one immutable {@link Role} in a volatile
 * field, so a reader sees one consistent epoch, assignment and ISR.
 */
public final class Partition
{
    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Partition.class);

    /**
     * The role as of the last metadata change: immutable, replaced whole. A leader's role carries its followers'
     * progress, indexed as its replica list (null on a follower), so a reader never pairs one with the other's
     * indices.
     */
    public record Role(boolean leader, int leaderId, int leaderEpoch, int partitionEpoch, List<Integer> replicas,
        List<Integer> isr, int slot, int minIsr, FollowerProgress progress)
    {
        /** The position of {@code brokerId} in the assignment (its ISR bit and LEO cell), or -1. */
        public int replicaIndex(final int brokerId)
        {
            // Unboxed compares: this runs for every partition of every follower fetch.
            for (int i = 0; i < replicas.size(); i++)
            {
                if (replicas.get(i) == brokerId)
                {
                    return i;
                }
            }
            return -1;
        }

        public int isrMask()
        {
            int mask = 0;
            for (final int id : isr)
            {
                final int index = replicas.indexOf(id);
                if (index >= 0)
                {
                    mask |= 1 << index;
                }
            }
            return mask;
        }
    }

    /** DeleteRecords' offset meaning "up to the high watermark". */
    public static final long DELETE_TO_HIGH_WATERMARK = -1L;
    private static final Role NONE =
        new Role(false, -1, -1, -1, List.of(), List.of(), PartitionSlotIndex.NO_SLOT, 1, null);
    private static final java.util.concurrent.atomic.AtomicReferenceFieldUpdater<Partition, Runnable>
        SYNC_REPORT_SIGNAL = java.util.concurrent.atomic.AtomicReferenceFieldUpdater.newUpdater(Partition.class,
            Runnable.class, "syncReportSignal");
    private static final java.util.concurrent.atomic.AtomicIntegerFieldUpdater<Partition> CREDITS_IN_FLIGHT =
        java.util.concurrent.atomic.AtomicIntegerFieldUpdater.newUpdater(Partition.class, "creditsInFlight");
    private static final java.util.concurrent.atomic.AtomicReferenceFieldUpdater<Partition, Runnable[]> WATCHERS =
        java.util.concurrent.atomic.AtomicReferenceFieldUpdater.newUpdater(Partition.class, Runnable[].class,
            "watchers");

    private final TopicPartition topicPartition;
    private final Uuid topicId;
    private final PartitionLog log;
    private final HotPathAdapter hotPath;
    private final int localBrokerId;
    private final Runnable afterCompletions;
    private final ReentrantLock appendLock = new ReentrantLock();
    // Fetch sessions holding this partition: each is told of every change a fetch could answer differently for
    // (append, HW, truncation, role, registration), parked or not, so that it reads only changed partitions.
    // Copy on write (ChangeWatchers): sessions join and leave rarely, and every append reads the array.
    private volatile Runnable[] watchers = ChangeWatchers.NONE;
    private volatile Role role = NONE;
    private volatile Map<String, String> topicConfig;
    /** Whether the topic is or was a mirror topic: the produce path reads this flag, not the config map. */
    private volatile boolean mirrorTopic;

    /** Follower LEO credits between their announcement and their end (beginCredit, endCredit). */
    private volatile int creditsInFlight;
    /** Set while the append lock's holder frees or re-initializes this partition's row (beginRowChange). */
    private volatile boolean rowChanging;
    /** Run inside a credit, after its check; tests hold a credit there (a preempted thread) while a row changes. */
    private Runnable creditCheckedHook;
    /** An ISR change sent to the controller and not yet seen in metadata; one at a time, as Kafka does. */
    private volatile boolean isrChangeInFlight;
    /** Where this partition goes when the ISR upkeep must look at it again (see {@link #needUpkeep}). */
    private final java.util.Queue<Partition> upkeepQueue;
    /**
     * Queued for the ISR upkeep or kept by it: written under the append lock, read without it by a follower's
     * fetch. False only while this broker leads with every replica in the ISR at the leader's LEO, or leads not
     * at all: then nothing can change the ISR until an append, a role change or a follower's LEO moves.
     */
    private volatile boolean upkeepQueued;

    // Cluster mirroring (destination side). A mirror topic's leader appends what its mirror fetcher brings from
    // the source; its own LEO counts towards the HW only up to the source HW it last saw, so the destination HW
    // is min(source HW, minimum LEO of the destination ISR) (KIP-1279). Guarded by appendLock.
    private boolean mirrorAppends;
    private long highWatermarkCap = Long.MAX_VALUE;
    /** The mirror coordinator finished this partition's failover: a removed mirror topic is writable. */
    private volatile boolean mirrorStopped;
    /** Where a failover ended the mirrored producers' era (MIRROR_PID_RESET), -1 for a topic never failed over. */
    private volatile long mirrorPidResetOffset = -1L;

    // Sync mirroring, source side. The link mask comes from metadata; the report state is guarded by appendLock,
    // which orders each report with the leadership changes that re-initialize the partition's row.
    /** The mirror links registered for this topic (bit m: link m), from the metadata image. */
    private volatile int syncLinkMask;
    /** What the registered mirrors reported, from the topic's first registered mirror on (else null). */
    private MirrorReportCells mirrorReports;

    // Sync mirroring, destination side.
    /**
     * The lowest LEO over the ISR this leader last reported to the source (-1 when it reports nothing): a follower
     * joins the ISR only once it reached it (hazard 2), so a new leader never lacks an acknowledged record.
     */
    private volatile long syncIsrJoinFloor = -1L;
    /**
     * The LEO at which this leader's epoch began (Kafka's leaderEpochStartOffset): a follower joins the ISR only
     * once it holds it, so a follower that missed records the previous leader committed, above this leader's
     * lagging HW, never enters the ISR and then wins an election without them.
     */
    private volatile long leaderEpochStartOffset = -1L;
    /** Run when a replica's LEO or the ISR changes while this partition reports to a source (the reporter). */
    private volatile Runnable syncReportSignal;
    /**
     * Told of every HW advance while this broker leads the partition; null for all but internal partitions whose
     * writers complete on the HW (the group coordinator's {@code __consumer_offsets}), so a data partition's HW
     * advance pays one volatile read for it.
     */
    private volatile java.util.function.ObjLongConsumer<TopicPartition> highWatermarkListener;

    /**
     * @param afterCompletions run after this partition completed waits on the calling thread: it delivers the
     *                         produces that thread owns itself (see ReplicaManager#drainCurrentOwner).
     */
    Partition(final TopicPartition topicPartition, final Uuid topicId, final PartitionLog log,
        final HotPathAdapter hotPath, final int localBrokerId, final Map<String, String> topicConfig,
        final Runnable afterCompletions, final java.util.Queue<Partition> upkeepQueue)
    {
        this.afterCompletions = afterCompletions;
        this.upkeepQueue = upkeepQueue;
        this.topicPartition = topicPartition;
        this.topicId = topicId;
        this.log = log;
        this.hotPath = hotPath;
        this.localBrokerId = localBrokerId;
        this.topicConfig = topicConfig;
        this.mirrorTopic = MirrorTopicConfig.isMirrorTopic(topicConfig);
    }

    /**
     * Sets (or with null clears) the listener of this partition's HW advances, called with the partition and its
     * new HW on the thread that advanced it; it must not block. Any thread.
     */
    public void highWatermarkListenerVolatile(final java.util.function.ObjLongConsumer<TopicPartition> listener)
    {
        this.highWatermarkListener = listener;
    }

    public TopicPartition topicPartition()
    {
        return topicPartition;
    }

    public Uuid topicId()
    {
        return topicId;
    }

    public PartitionLog log()
    {
        return log;
    }

    public Role role()
    {
        return role;
    }

    public boolean isLeader()
    {
        return role.leader;
    }

    Map<String, String> topicConfig()
    {
        return topicConfig;
    }

    void topicConfig(final Map<String, String> config)
    {
        this.mirrorTopic = MirrorTopicConfig.isMirrorTopic(config);
        this.topicConfig = config;
    }

    // ------------------------------------------------------------------------------------------------------
    // Role changes (metadata thread).
    // ------------------------------------------------------------------------------------------------------

    /**
     * Applies a metadata change naming this broker leader. A new epoch starts the log's epoch at its LEO and
     * re-initializes the hot-path row; the same epoch with a new ISR only publishes the ISR.
     *
     * @return false when the broker has no slot left to lead the partition.
     */
    boolean becomeLeader(final PartitionState state, final int minIsr, final long nowMs)
    {
        appendLock.lock();
        try
        {
            final Role previous = role;
            final int mask = isrMaskOf(state);
            if (previous.leader && previous.leaderEpoch == state.leaderEpoch())
            {
                // The same leadership keeps its followers' progress; a reassignment re-indexes it by replica id.
                final FollowerProgress progress = previous.replicas.equals(state.replicas()) ? previous.progress :
                    previous.progress.reindexed(previous.replicas, state.replicas(), nowMs);
                final Role next = new Role(true, localBrokerId, state.leaderEpoch(), state.partitionEpoch(),
                    state.replicas(), state.isr(), previous.slot, minIsr, progress);
                role = next;
                isrChangeInFlight = false;
                // Shrinks and same-membership changes publish at once. A committed ISR that adds a member the gate
                // does not count (not one this leader asked for: those are counted from the request on) keeps it
                // out until it reaches the HW; its reports then let it in (onFollowerFetch).
                if (!hotPath.changeIsr(previous.slot, mask, minIsr))
                {
                    hotPath.changeIsr(previous.slot, mask & hotPath.isrMask(previous.slot), minIsr);
                }
                maybeAdvanceHighWatermark(previous.slot, hotPath.highWatermark(previous.slot));
                needUpkeep();
                final Runnable reportSignal = syncReportSignal;
                if (reportSignal != null)
                {
                    reportSignal.run();
                }
                return true;
            }
            final long leo = log.logEndOffset();
            leaderEpochStartOffset = leo;
            final OptionalInt latest = log.latestEpoch();
            // An active mirror topic's log carries the source's epochs (hazard 3): a destination epoch written into
            // its epoch cache would sit between source epochs and be wiped by the next mirrored batch. The failover
            // epoch bump, above every source epoch, is the first destination epoch the log records.
            final boolean mirrored = MirrorTopicConfig.activeMirror(topicConfig) != null;
            if (!mirrored && (latest.isEmpty() || latest.getAsInt() < state.leaderEpoch()))
            {
                log.assignEpochStartOffset(state.leaderEpoch(), leo);
            }
            // Until its failover completes, a mirror topic's HW never passes what the source had committed.
            highWatermarkCap = MirrorTopicConfig.isMirrorTopic(topicConfig) && !mirrorStopped ?
                log.highWatermark() : Long.MAX_VALUE;
            final int slot;
            beginRowChange();
            try
            {
                slot = hotPath.attachLeader(topicId, topicPartition.partition(),
                    Math.min(log.highWatermark(), leo), mask, minIsr);
                if (slot == PartitionSlotIndex.NO_SLOT)
                {
                    role = NONE;
                    return false;
                }
                // Registered mirrors gate from the row's first HW on: a new source leader must not acknowledge what
                // the destinations have not reported to it.
                resetMirrorReports();
                hotPath.registeredMirrors(slot, syncLinkMask);
                // A new leader gives every ISR member a full lag window.
                role = new Role(true, localBrokerId, state.leaderEpoch(), state.partitionEpoch(), state.replicas(),
                    state.isr(), slot, minIsr, new FollowerProgress(state.replicas().size(), nowMs));
            }
            finally
            {
                endRowChange();
            }
            isrChangeInFlight = false;
            final int self = state.replicas().indexOf(localBrokerId);
            final long hw = hotPath.onLeo(slot, self, Math.min(leo, highWatermarkCap));
            maybeAdvanceHighWatermark(slot, hw);
            needUpkeep();
        }
        finally
        {
            appendLock.unlock();
        }
        notifyWatchers();
        return true;
    }

    /** Applies a metadata change naming another broker (or none) leader. */
    void becomeFollower(final PartitionState state)
    {
        appendLock.lock();
        try
        {
            final Role next = new Role(false, state.leader(), state.leaderEpoch(), state.partitionEpoch(),
                state.replicas(), state.isr(), PartitionSlotIndex.NO_SLOT, 1, null);
            giveUpRole(next);
            isrChangeInFlight = false;
        }
        finally
        {
            appendLock.unlock();
        }
        notifyWatchers();
    }

    /**
     * Under the append lock: {@code next} (not leading) replaces the role; a leader first frees its row, once the
     * credits in flight into it are done (hazard 10).
     */
    private void giveUpRole(final Role next)
    {
        if (!role.leader)
        {
            role = next;
            return;
        }
        beginRowChange();
        try
        {
            hotPath.detach(topicId, topicPartition.partition());
        }
        finally
        {
            role = next;
            endRowChange();
        }
    }

    /** The partition is going away from this broker. */
    void stop()
    {
        appendLock.lock();
        try
        {
            giveUpRole(NONE);
        }
        finally
        {
            appendLock.unlock();
        }
        notifyWatchers();
    }

    private static int isrMaskOf(final PartitionState state)
    {
        int mask = 0;
        for (final int id : state.isr())
        {
            final int index = state.replicas().indexOf(id);
            if (index >= 0)
            {
                mask |= 1 << index;
            }
        }
        return mask;
    }

    // ------------------------------------------------------------------------------------------------------
    // Leader appends.
    // ------------------------------------------------------------------------------------------------------

    /**
     * Appends a producer's batch as leader. With {@code shard} non-null (acks=all) the request's wait is
     * registered inside the append's critical section, so this slot's waits queue in offset order (hazard 7).
     *
     * @throws org.apache.kafka.common.errors.ApiException the append's error, nothing appended.
     */
    public PartitionLog.AppendResult appendAsLeader(final MemoryRecords records, final boolean acksAll,
        final RequestShard shard, final int request, final boolean markers)
    {
        return append(records, acksAll, shard, request, markers, false);
    }

    /**
     * Appends an embedded coordinator's records as leader ({@link PartitionLog#appendAsCoordinator}), acks=all
     * without a registered wait: the coordinator hears of the HW through its listener.
     *
     * @throws org.apache.kafka.common.errors.ApiException the append's error, nothing appended.
     */
    public PartitionLog.AppendResult appendAsCoordinator(final MemoryRecords records)
    {
        return append(records, true, null, RequestShard.NO_REQUEST, true, true);
    }

    /**
     * DeleteRecords on the leader: moves the log start offset up to {@code offset}, or to the HW when
     * {@code offset} is -1 (Kafka's "delete everything committed"); never above the HW, so nothing that a leader
     * change could still truncate is involved. Followers take the new start from their next fetch response.
     * Returns the log start offset now in force.
     *
     * @throws NotLeaderOrFollowerException    this broker does not lead the partition
     * @throws PolicyViolationException        a mirror topic (its start follows the source's), or a log that is
     *                                         only compacted (as Kafka refuses it)
     * @throws OffsetOutOfRangeException       {@code offset} is above the HW, or negative and not -1
     */
    public long deleteRecordsAsLeader(final long offset)
    {
        appendLock.lock();
        try
        {
            if (!role.leader)
            {
                throw new NotLeaderOrFollowerException("broker " + localBrokerId + " does not lead " +
                    topicPartition);
            }
            checkWritable();
            if (!log.recordDeletionAllowed())
            {
                throw new PolicyViolationException("Records of partition " + topicPartition + " can not be "
                    + "deleted due to the configured policy (cleanup.policy without delete)");
            }
            final long hw = log.highWatermark();
            final long target = offset == DELETE_TO_HIGH_WATERMARK ? hw : offset;
            if (target < 0 || target > hw)
            {
                throw new OffsetOutOfRangeException("Cannot delete records of " + topicPartition + " before offset "
                    + offset + ": it is outside [0, high watermark " + hw + "]");
            }
            log.maybeIncrementLogStartOffset(target);
        }
        finally
        {
            appendLock.unlock();
        }
        // Fetch sessions answer a moved log start differently: the followers' sessions must hear of it now, not
        // with the partition's next append.
        notifyWatchers();
        return log.logStartOffset();
    }

    private PartitionLog.AppendResult append(final MemoryRecords records, final boolean acksAll,
        final RequestShard shard, final int request, final boolean markers, final boolean coordinator)
    {
        final Role current;
        final PartitionLog.AppendResult result;
        appendLock.lock();
        try
        {
            current = role;
            if (!current.leader)
            {
                throw new NotLeaderOrFollowerException("broker " + localBrokerId + " does not lead " +
                    topicPartition);
            }
            if (!markers)
            {
                checkWritable();
                if (mirrorPidResetOffset >= 0)
                {
                    MirrorTopicWrites.checkNotAMirroredProducer(log, records, mirrorPidResetOffset);
                }
            }
            if (acksAll && hotPath.isrBelowMin(current.slot))
            {
                throw new NotEnoughReplicasException("the ISR of " + topicPartition + " has fewer than " +
                    current.minIsr + " (min.insync.replicas) replicas");
            }
            if (coordinator)
            {
                result = log.appendAsCoordinator(records, current.leaderEpoch);
            }
            else
            {
                result = markers ? log.appendMarkerAsLeader(records, current.leaderEpoch) :
                    log.appendAsLeader(records, current.leaderEpoch);
            }
            if (shard != null)
            {
                shard.watch(request, current.slot, result.lastOffset() + 1);
            }
            final long hw = hotPath.onLeo(current.slot, current.replicaIndex(localBrokerId),
                Math.min(log.logEndOffset(), highWatermarkCap));
            // The appending request is not answered from in here: its caller fills in the append's offsets
            // first and then drains its owner.
            maybeAdvanceHighWatermark(current.slot, hw, false);
            needUpkeep();
        }
        finally
        {
            appendLock.unlock();
        }
        notifyWatchers();
        return result;
    }

    /** Follows a HW the gate published: the log's HW first, then the waits it reached, then parked consumers. */
    private void maybeAdvanceHighWatermark(final int slot, final long hw)
    {
        maybeAdvanceHighWatermark(slot, hw, true);
    }

    private void maybeAdvanceHighWatermark(final int slot, final long hw, final boolean deliverOwn)
    {
        if (hw != HotPathAdapter.NO_ADVANCE)
        {
            final long logHighWatermark = log.maybeIncrementHighWatermark(hw);
            final java.util.function.ObjLongConsumer<TopicPartition> listener = highWatermarkListener;
            if (listener != null)
            {
                listener.accept(topicPartition, logHighWatermark);
            }
            hotPath.completeWaiters(slot);
            if (deliverOwn)
            {
                afterCompletions.run();
            }
            notifyWatchers();
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Cluster mirroring, destination side (the mirror coordinator and its fetcher).
    // ------------------------------------------------------------------------------------------------------

    /** Refuses a producer's append to a mirror topic ({@link MirrorTopicWrites#checkWritable}). */
    private void checkWritable()
    {
        // The flag first: every ordinary topic skips the config lookups on the produce path.
        if (mirrorTopic)
        {
            MirrorTopicWrites.checkWritable(topicPartition, topicConfig, mirrorStopped);
        }
    }

    /**
     * Marks where the failover ended the mirrored producers' era
     * ({@link MirrorTopicWrites#checkNotAMirroredProducer}).
     */
    public void mirrorPidResetOffset(final long offset)
    {
        mirrorPidResetOffset = offset;
    }

    /** Whether producers are refused here because the topic is (still) a mirror topic. */
    public boolean isMirrorReadOnly()
    {
        try
        {
            checkWritable();
            return false;
        }
        catch (final RuntimeException e)
        {
            return true;
        }
    }

    /** Allows or stops the mirror fetcher's appends; once stopped, a late fetch response appends nothing. */
    public void mirrorAppends(final boolean allowed)
    {
        appendLock.lock();
        try
        {
            mirrorAppends = allowed;
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /**
     * Marks the failover of this mirror topic complete (writable) or not: a topic that becomes a mirror again
     * (failback, or a stopped mirror restarted) holds its HW where it is until the source's HW lets it move.
     */
    public void mirrorStopped(final boolean stopped)
    {
        appendLock.lock();
        try
        {
            mirrorStopped = stopped;
            if (!stopped)
            {
                highWatermarkCap = Math.min(highWatermarkCap, log.highWatermark());
            }
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /**
     * Appends batches the mirror fetched from the source at their source offsets, bytes and leader epochs, as
     * this cluster's leader, follows the source log start offset, and lets the HW advance up to the source HW.
     *
     * @return the new LEO, or -1 when this broker does not lead the partition or mirror appends are stopped.
     */
    public long appendMirrored(final MemoryRecords records, final long sourceHighWatermark,
        final long sourceLogStartOffset)
    {
        long leo;
        appendLock.lock();
        try
        {
            final Role current = role;
            if (!current.leader || !mirrorAppends)
            {
                return -1L;
            }
            if (records.sizeInBytes() > 0)
            {
                int maxEpoch = -1;
                for (final var batch : records.batches())
                {
                    maxEpoch = Math.max(maxEpoch, batch.partitionLeaderEpoch());
                }
                log.appendAsFollower(records, maxEpoch);
            }
            leo = log.logEndOffset();
            final Runnable reportSignal = syncReportSignal;
            if (reportSignal != null && records.sizeInBytes() > 0)
            {
                reportSignal.run();
            }
            if (sourceHighWatermark > highWatermarkCap)
            {
                highWatermarkCap = sourceHighWatermark;
            }
            final long hw = hotPath.onLeo(current.slot, current.replicaIndex(localBrokerId),
                Math.min(leo, highWatermarkCap));
            maybeAdvanceHighWatermark(current.slot, hw);
            if (records.sizeInBytes() > 0)
            {
                needUpkeep();
            }
            // Retention at the source moved its log start: follow it as far as this log has committed.
            final long newStart = Math.min(sourceLogStartOffset, log.highWatermark());
            if (newStart > log.logStartOffset() && log.maybeIncrementLogStartOffset(newStart))
            {
                log.deleteOldSegments();
            }
        }
        finally
        {
            appendLock.unlock();
        }
        notifyWatchers();
        return leo;
    }

    /**
     * Truncates a mirror topic's log as its leader (to {@code offset}, or, when {@code startAt} is true, to empty
     * starting there), restarting the partition's hot-path row and forgetting every follower's progress, so that
     * {@link #isrCaughtUpSinceTruncation()} tells when each ISR member has truncated too.
     *
     * @param fetcher whether the mirror fetcher asks (DivergingEpoch, OffsetOutOfRange): refused once mirror
     *                appends are stopped, so a late fetch response can never truncate a failed-over log; the
     *                coordinator's own alignment (PREPARING) runs while appends are still stopped.
     * @return the new LEO, or -1 when this broker does not lead the partition (or the fetcher may not truncate).
     */
    public long truncateAsMirrorLeader(final long offset, final boolean startAt, final long nowMs,
        final boolean fetcher)
    {
        appendLock.lock();
        try
        {
            final Role current = role;
            if (!current.leader || (fetcher && !mirrorAppends))
            {
                return -1L;
            }
            if (startAt)
            {
                log.truncateFullyAndStartAt(offset);
            }
            else if (offset < log.logEndOffset())
            {
                log.truncateTo(offset);
            }
            // The gate's row only moves forward: a truncated leader starts a fresh one, as a new leadership does.
            final int mask = hotPath.isrMask(current.slot);
            final long leo = log.logEndOffset();
            // What was cut was never committed (it diverged from the source, which acknowledges nothing a
            // destination read from a previous source leader, hazard 1): followers need not hold it.
            leaderEpochStartOffset = Math.min(leaderEpochStartOffset, leo);
            syncIsrJoinFloor = Math.min(syncIsrJoinFloor, leo);
            final int slot;
            beginRowChange();
            try
            {
                hotPath.detach(topicId, topicPartition.partition());
                slot = hotPath.attachLeader(topicId, topicPartition.partition(),
                    Math.min(log.highWatermark(), leo), mask, current.minIsr());
                if (slot == PartitionSlotIndex.NO_SLOT)
                {
                    role = NONE;
                    return -1L;
                }
                highWatermarkCap = Math.min(highWatermarkCap, log.highWatermark());
                resetMirrorReports();
                hotPath.registeredMirrors(slot, syncLinkMask);
                role = new Role(true, localBrokerId, current.leaderEpoch(), current.partitionEpoch(),
                    current.replicas(), current.isr(), slot, current.minIsr(),
                    new FollowerProgress(current.replicas().size(), nowMs));
            }
            finally
            {
                endRowChange();
            }
            maybeAdvanceHighWatermark(slot, hotPath.onLeo(slot, current.replicaIndex(localBrokerId),
                Math.min(leo, highWatermarkCap)));
            needUpkeep();
            return leo;
        }
        finally
        {
            appendLock.unlock();
            notifyWatchers();
        }
    }

    /**
     * Whether the ISR has at least min.insync.replicas members and every follower in it has fetched, with an
     * epoch-validated offset, since this leadership or the last {@link #truncateAsMirrorLeader}: a validated
     * fetch means its log holds no divergent tail (KIP-1279: PREPARING waits for every ISR member's truncation).
     */
    public boolean isrCaughtUpSinceTruncation()
    {
        final Role current = role;
        if (!current.leader || current.isr().size() < current.minIsr())
        {
            return false;
        }
        for (final int id : current.isr())
        {
            if (id != localBrokerId && current.progress.leo(current.replicaIndex(id)) < 0)
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Ends the mirror's hold on the HW: from now on the local ISR alone drives it (the failover's last step
     * before the topic becomes writable).
     */
    public void liftMirrorHighWatermarkCap()
    {
        appendLock.lock();
        try
        {
            highWatermarkCap = Long.MAX_VALUE;
            final Role current = role;
            if (current.leader)
            {
                maybeAdvanceHighWatermark(current.slot, hotPath.onLeo(current.slot,
                    current.replicaIndex(localBrokerId), log.logEndOffset()));
            }
        }
        finally
        {
            appendLock.unlock();
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Sync mirroring, source side: registrations from metadata, reports from each destination.
    // ------------------------------------------------------------------------------------------------------

    /**
     * The mirror links registered for this topic changed (metadata thread). A leader publishes them at once: a
     * joining link gates from its first report on, a leaving one stops gating and the waits it held complete. A
     * link that joins with a new holder (MirrorLinks) forgets the previous holder's destination epoch and replicas.
     */
    void syncLinks(final int linkMask)
    {
        appendLock.lock();
        try
        {
            if (linkMask != 0 && mirrorReports == null)
            {
                mirrorReports = new MirrorReportCells(hotPath.mirrorLinks().links(), hotPath.maxReplicas());
            }
            final MirrorReportCells reports = mirrorReports;
            for (int joining = linkMask & ~syncLinkMask; joining != 0; joining &= joining - 1)
            {
                final int link = Integer.numberOfTrailingZeros(joining);
                if (link == hotPath.mirrorLinks().holdLink())
                {
                    continue; // never held by a mirror, never reported
                }
                reports.linkJoined(link, hotPath.mirrorLinks().generationOf(link));
            }
            syncLinkMask = linkMask;
            final Role current = role;
            if (current.leader)
            {
                hotPath.registeredMirrors(current.slot, linkMask);
                maybeAdvanceHighWatermark(current.slot, hotPath.highWatermark(current.slot));
            }
        }
        finally
        {
            appendLock.unlock();
        }
        notifyWatchers();
    }

    /** Whether any sync mirror gates this partition's HW (its topic has registered mirrors). */
    public boolean isSyncGated()
    {
        return syncLinkMask != 0;
    }

    /**
     * Whether the mirror holding {@code link} at {@code generation} (a MirrorLinks handle) is registered for this
     * topic: its fetches read to the LEO (hazard 4). A fetch of the link's previous holder reads to the HW.
     */
    public boolean syncLinkRegistered(final long linkHandle)
    {
        final int link = MirrorLinks.index(linkHandle);
        return link >= 0 && (syncLinkMask & (1 << link)) != 0 &&
            hotPath.mirrorLinks().isCurrent(link, MirrorLinks.generation(linkHandle));
    }

    /** The outcome of {@link #onMirrorReport}. */
    public enum ReportResult
    {
        /** Applied, or ignored as stale (a deposed destination leader, or a log not yet validated here). */
        APPLIED,
        /** This broker does not lead the partition. */
        NOT_LEADER,
        /** The mirror is not registered for this topic on this broker (or no longer holds the link it named). */
        NOT_REGISTERED
    }

    /**
     * One destination's report for this partition over link {@code link}: its replicas' LEOs, its ISR and MinISR.
     * Credited only when the destination validated its log against this leader's epoch
     * ({@code validatedSourceEpoch}, hazard 1: a tail read from a previous leader counts for nothing here), and
     * only from the newest destination leader ({@code destinationLeaderEpoch}; a new one clears what the previous
     * reported). {@code linkHandle} is the mirror's link and generation (MirrorLinks), resolved once per report:
     * a report of a link's previous holder is not credited to the next.
     */
    public ReportResult onMirrorReport(final long linkHandle, final int destinationLeaderEpoch,
        final int validatedSourceEpoch, final int[] replicaIds, final long[] leos, final int replicaCount,
        final int[] isrIds, final int isrCount, final int minIsr)
    {
        final int link = MirrorLinks.index(linkHandle);
        appendLock.lock();
        try
        {
            final Role current = role;
            if (!current.leader)
            {
                return ReportResult.NOT_LEADER;
            }
            // The mask first, then the generation: a new holder's bit is published after its generation.
            if (link < 0 || (syncLinkMask & (1 << link)) == 0 ||
                !hotPath.mirrorLinks().isCurrent(link, MirrorLinks.generation(linkHandle)))
            {
                return ReportResult.NOT_REGISTERED;
            }
            // A registered link (the check above) means the topic had a mirror: its report cells exist.
            final MirrorReportCells reports = mirrorReports;
            if (validatedSourceEpoch != current.leaderEpoch() ||
                reports.isFromDeposedLeader(link, destinationLeaderEpoch))
            {
                if (LOG.isTraceEnabled())
                {
                    LOG.trace("{}: report over link {} not credited: validated source epoch {} (leader epoch {}), "
                        + "destination leader epoch {} (newest {})", topicPartition, link, validatedSourceEpoch,
                        current.leaderEpoch(), destinationLeaderEpoch, reports.destinationEpoch[link]);
                }
                return ReportResult.APPLIED;
            }
            if (reports.beginReport(link, destinationLeaderEpoch))
            {
                hotPath.clearMirror(current.slot, link);
            }
            final int cells = reports.mapLeos(link, replicaIds, leos, replicaCount);
            final int isrMask = reports.isrMask(link, cells, isrIds, isrCount);
            final long[] reportLeos = reports.reportLeos;
            maybeAdvanceHighWatermark(current.slot,
                hotPath.onMirrorReport(current.slot, link, reportLeos, cells, isrMask, Math.max(1, minIsr)));
            if (LOG.isTraceEnabled())
            {
                LOG.trace("{}: report over link {} credited: replicas {} LEOs {} ISR mask {} min ISR {}; HW {} LEO {} "
                    + "gate ISR mask {}", topicPartition, link, java.util.Arrays.toString(reports.replicaIds[link]),
                    java.util.Arrays.toString(java.util.Arrays.copyOf(reportLeos, cells)), isrMask, minIsr,
                    log.highWatermark(), log.logEndOffset(), hotPath.isrMask(current.slot));
            }
        }
        finally
        {
            appendLock.unlock();
        }
        return ReportResult.APPLIED;
    }

    /**
     * Forgets what the mirror holding {@code linkHandle} reported (its destination reconnected and did not report
     * this partition).
     */
    public void clearMirrorReports(final long linkHandle)
    {
        final int link = MirrorLinks.index(linkHandle);
        appendLock.lock();
        try
        {
            final Role current = role;
            if (current.leader && link >= 0 && (syncLinkMask & (1 << link)) != 0 &&
                hotPath.mirrorLinks().isCurrent(link, MirrorLinks.generation(linkHandle)))
            {
                hotPath.clearMirror(current.slot, link);
                mirrorReports.forget(link);
            }
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /** The lowest LEO over link {@code link}'s reported ISR (0 before any report, -1 when not leading). */
    public long mirrorIsrMinLeo(final int link)
    {
        final Role current = role;
        return current.leader ? hotPath.mirrorIsrMinLeo(current.slot, link) : -1L;
    }

    private void resetMirrorReports()
    {
        if (mirrorReports != null)
        {
            mirrorReports.reset();
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Sync mirroring, destination side: what this leader reports to its source.
    // ------------------------------------------------------------------------------------------------------

    /** Installs what runs when a replica's LEO or the ISR changes; see the reporter. */
    public void syncReportSignal(final Runnable signal)
    {
        this.syncReportSignal = signal;
    }

    /**
     * Removes the report signal if it is still {@code signal}: a reporter the partition moved away from (its source
     * leader changed) must not take away the signal of the reporter it moved to. Returns whether it removed it.
     */
    public boolean clearSyncReportSignal(final Runnable signal)
    {
        return SYNC_REPORT_SIGNAL.compareAndSet(this, signal, null);
    }

    /** Whether a reporter is told of this partition's LEO and ISR changes. */
    public boolean hasSyncReportSignal()
    {
        return syncReportSignal != null;
    }

    /**
     * The lowest LEO over the ISR last reported to the source, or -1 to drop the rule: followers join the ISR
     * only once at or above it (hazard 2).
     */
    public void syncIsrJoinFloor(final long offset)
    {
        this.syncIsrJoinFloor = offset;
    }

    /** The floor followers must reach to join the ISR (hazard 2), -1 without one. */
    public long syncIsrJoinFloor()
    {
        return syncIsrJoinFloor;
    }

    /** The LEO the gate holds for replica position {@code index} (the leader's own included), -1 if not leading. */
    public long replicaLeo(final int index)
    {
        final Role current = role;
        if (!current.leader)
        {
            return -1L;
        }
        return index == current.replicaIndex(localBrokerId) ? log.logEndOffset() : current.progress.leo(index);
    }

    // ------------------------------------------------------------------------------------------------------
    // Follower progress (leader side), from the follower's fetch.
    // ------------------------------------------------------------------------------------------------------

    /**
     * A follower fetched at {@code fetchOffset}, which the caller validated against the leader's epoch history
     * (it never credits a diverging tail): {@link #onFollowerFetch(Role, int, long, long, FollowerCredits)} with a
     * batch of its own, published at once.
     *
     * @return the replica index, or -1 when the broker is not an assigned replica.
     */
    public int onFollowerFetch(final Role current, final int followerId, final long fetchOffset, final long nowMs)
    {
        final FollowerCredits credits = new FollowerCredits(1);
        final int index = onFollowerFetch(current, followerId, fetchOffset, nowMs, credits);
        credits.publish(hotPath);
        return index;
    }

    /**
     * A follower fetched at {@code fetchOffset}, which the caller validated against the leader's epoch history
     * (it never credits a diverging tail). Records the follower's caught-up time, as Kafka's
     * {@code Replica.updateFetchStateOrThrow} does, and adds its LEO to {@code credits}, which the caller publishes
     * with the rest of the fetch's ({@link FollowerCredits#publish}) before it reads any partition, so the response
     * carries the HW they moved.
     *
     * @return the replica index, or -1 when the broker is not an assigned replica.
     */
    public int onFollowerFetch(final Role current, final int followerId, final long fetchOffset, final long nowMs,
        final FollowerCredits credits)
    {
        final int index = current.replicaIndex(followerId);
        if (index < 0 || !current.leader)
        {
            return -1;
        }
        final long leaderLeo = log.logEndOffset();
        final long leo = Math.min(fetchOffset, leaderLeo);
        current.progress.onFetch(index, fetchOffset, leo, leaderLeo, nowMs);
        if (leo != leaderLeo && !upkeepQueued)
        {
            // A follower behind a partition the upkeep left as quiet (one restarted without its log's tail): its
            // lag must be watched again. The volatile store of its LEO above, then this read, pair with the
            // upkeep's clear-then-check in leaveUpkeepIfQuiet: one of the two sees the other.
            queueUpkeep(current);
        }
        if (role != current)
        {
            return index; // the slot may already serve another leadership: report nothing into it
        }
        // A fetch at the offset the row already holds changes nothing the gate or a sync report reads: most of a
        // follower's fetches are of partitions without new records.
        if (hotPath.replicaLeo(current.slot, index) != leo)
        {
            credits.add(this, current, index, followerId, leo);
        }
        else
        {
            maybeRejoinGate(current, index, followerId);
        }
        return index;
    }

    /**
     * Announces a credit of the leadership {@code expected}'s row and checks it: a follower's LEO is the one row
     * write made without the append lock. A credit checked against the role and then delayed (a preempted network
     * thread) must not land in a row that was freed and taken by another partition, or re-initialized for a new
     * leadership: it would count a follower's LEO there and could acknowledge a record that follower lacks. So a
     * credit announces itself before it checks, and a row change (beginRowChange) waits for the credits in flight
     * after it made them fail the check (Dekker's pattern over two volatiles; hazard 10). A credit that passes ends
     * with {@link #endCredit} once its LEO is in the row, and holds no lock meanwhile.
     *
     * @return whether the row may take the credit; when false the credit has already ended.
     */
    boolean beginCredit(final Role expected)
    {
        CREDITS_IN_FLIGHT.getAndIncrement(this);
        if (rowChanging || role != expected)
        {
            CREDITS_IN_FLIGHT.getAndDecrement(this);
            return false;
        }
        final Runnable hook = creditCheckedHook;
        if (hook != null)
        {
            try
            {
                hook.run();
            }
            catch (final RuntimeException | Error ex)
            {
                CREDITS_IN_FLIGHT.getAndDecrement(this);
                throw ex;
            }
        }
        return true;
    }

    /** Ends a credit {@link #beginCredit} let in, after its LEO is in the row. */
    void endCredit()
    {
        CREDITS_IN_FLIGHT.getAndDecrement(this);
    }

    /**
     * After a follower's LEO reached the row (and the credit ended): follows the HW the batch published for this
     * partition, tells the sync reporter, and lets the follower back into the gate's ISR if it belongs there.
     */
    void afterCredit(final Role current, final int index, final int followerId, final long hw)
    {
        maybeAdvanceHighWatermark(current.slot, hw);
        final Runnable reportSignal = syncReportSignal;
        if (reportSignal != null)
        {
            reportSignal.run();
        }
        maybeRejoinGate(current, index, followerId);
    }

    private void maybeRejoinGate(final Role current, final int index, final int followerId)
    {
        final int gateMask = hotPath.isrMask(current.slot);
        if ((gateMask & (1 << index)) == 0 && current.isr.contains(followerId))
        {
            rejoinGate(current, gateMask | (1 << index));
        }
    }

    /**
     * Under the append lock, before this partition's row is freed or re-initialized: from here on a credit fails
     * its check, and one that passed it has finished. A credit's section holds no lock and writes only the row, so
     * the wait is a few instructions unless its thread was preempted.
     */
    private void beginRowChange()
    {
        rowChanging = true;
        while (creditsInFlight != 0)
        {
            Thread.onSpinWait();
        }
    }

    /** Tests: {@code hook} runs inside every later credit, between its check and its row write. */
    void creditCheckedHook(final Runnable hook)
    {
        this.creditCheckedHook = hook;
    }

    /** After the role naming the changed row (or none) is published. */
    private void endRowChange()
    {
        rowChanging = false;
    }

    /** A committed ISR member the gate left out (it was behind the HW) is counted again once it caught up. */
    private void rejoinGate(final Role expected, final int mask)
    {
        appendLock.lock();
        try
        {
            if (role == expected)
            {
                hotPath.changeIsr(expected.slot, mask, expected.minIsr);
            }
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /**
     * Under the append lock, after anything that may let the ISR upkeep change the ISR (the leader's LEO moved
     * ahead of its followers, a new role or ISR): queues the partition for the upkeep unless it holds it already.
     */
    private void needUpkeep()
    {
        if (!upkeepQueued)
        {
            upkeepQueued = true;
            upkeepQueue.offer(this);
        }
    }

    /** {@link #needUpkeep} from outside the append lock, unless the leadership {@code expected} has ended. */
    private void queueUpkeep(final Role expected)
    {
        appendLock.lock();
        try
        {
            if (role == expected)
            {
                needUpkeep();
            }
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /**
     * The ISR upkeep, after its visit: whether the partition may leave its visits until the next change, because
     * nothing the upkeep decides on can change before one: this broker does not lead it, or every replica is in
     * the ISR holding the leader's whole log (Kafka's {@code Replica.isCaughtUp} holds such a follower in sync
     * however long ago it fetched, and there is nobody to add). The flag clears before the check, so a follower's
     * LEO that moves back meanwhile either fails the check or finds the flag clear and queues the partition again.
     */
    boolean leaveUpkeepIfQuiet()
    {
        appendLock.lock();
        try
        {
            upkeepQueued = false;
            final Role current = role;
            if (!current.leader)
            {
                return true;
            }
            boolean quiet = !isrChangeInFlight && current.isr.size() == current.replicas.size();
            final long leaderLeo = log.logEndOffset();
            for (int index = 0; quiet && index < current.replicas.size(); index++)
            {
                quiet = current.replicas.get(index) == localBrokerId || current.progress.leo(index) == leaderLeo;
            }
            upkeepQueued = !quiet;
            return quiet;
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /**
     * The ISR this leader should propose now, or null for no change: followers that lag more than
     * {@code lagTimeMaxMs} leave, followers that reached the HW, this leader's epoch start offset and the sync
     * join floor (hazard 2) join if the controller would accept them
     * ({@code eligible}: registered and not fenced, as Kafka's leader checks before asking).
     */
    List<Integer> proposedIsr(final long nowMs, final long lagTimeMaxMs, final java.util.function.IntPredicate eligible)
    {
        final Role current = role;
        if (!current.leader || isrChangeInFlight)
        {
            return null;
        }
        final long leaderLeo = log.logEndOffset();
        // A floor above this log's end came from a report built before a truncation (the reporter raises it
        // without the append lock): what was cut was never acknowledged (hazard 1), and a follower holding the
        // whole log must be able to join, or an ISR under its minimum would freeze the source's gate for good.
        final long joinFloor = Math.min(syncIsrJoinFloor, leaderLeo);
        return IsrProposal.propose(current, localBrokerId, log.highWatermark(), leaderLeo,
            Math.max(joinFloor, leaderEpochStartOffset), nowMs, lagTimeMaxMs, eligible);
    }

    /**
     * An ISR change is about to be sent: for an expansion the gate counts the joining member at once (Kafka's
     * maximal ISR), so the HW cannot pass a record the member lacks while the controller decides.
     *
     * @return false when the member fell behind the HW meanwhile (try again later).
     */
    boolean beginIsrChange(final Role expected, final List<Integer> proposed)
    {
        appendLock.lock();
        try
        {
            if (role != expected || isrChangeInFlight)
            {
                return false;
            }
            int mask = hotPath.isrMask(expected.slot);
            for (final int id : proposed)
            {
                mask |= 1 << expected.replicas.indexOf(id);
            }
            if (!hotPath.changeIsr(expected.slot, mask, expected.minIsr))
            {
                return false;
            }
            isrChangeInFlight = true;
            return true;
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /** The controller refused the change: the gate goes back to the committed ISR. */
    void abortIsrChange(final Role expected)
    {
        appendLock.lock();
        try
        {
            if (role == expected && expected.leader)
            {
                hotPath.changeIsr(expected.slot, expected.isrMask(), expected.minIsr);
                isrChangeInFlight = false;
                // Dropping a member the gate counted may let the HW move: the log's HW follows it.
                maybeAdvanceHighWatermark(expected.slot, hotPath.highWatermark(expected.slot));
            }
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /** The leader's own LEO as the gate holds it (-1 when not leading; for diagnostics and tests). */
    public long gateLeaderLeo()
    {
        final Role current = role;
        return current.leader ? hotPath.replicaLeo(current.slot, current.replicaIndex(localBrokerId)) : -1L;
    }

    /** The replica indexes the gate counts now (for diagnostics and tests). */
    public int gateIsrMask()
    {
        final Role current = role;
        return current.leader ? hotPath.isrMask(current.slot) : 0;
    }

    // ------------------------------------------------------------------------------------------------------
    // Follower side: appends of what the leader sent.
    // ------------------------------------------------------------------------------------------------------

    /**
     * Appends fetched batches as a follower, follows the leader's HW and its log start offset (DeleteRecords,
     * retention), the latter never above this replica's own HW; returns the new LEO.
     */
    public long appendAsFollower(final MemoryRecords records, final long leaderHighWatermark,
        final long leaderLogStartOffset)
    {
        appendLock.lock();
        try
        {
            if (records.sizeInBytes() > 0)
            {
                int maxEpoch = -1;
                for (final var batch : records.batches())
                {
                    maxEpoch = Math.max(maxEpoch, batch.partitionLeaderEpoch());
                }
                // The log skips batches whose epoch is above the one passed: pass the highest epoch carried.
                log.appendAsFollower(records, Math.max(maxEpoch, role.leaderEpoch));
            }
            final long leo = log.logEndOffset();
            if (leaderHighWatermark >= 0)
            {
                log.updateHighWatermark(Math.min(leaderHighWatermark, leo));
            }
            final long newStart = Math.min(leaderLogStartOffset, log.highWatermark());
            if (newStart > log.logStartOffset())
            {
                log.maybeIncrementLogStartOffset(newStart);
            }
            return leo;
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /** Truncates the follower's log to {@code offset} (DivergingEpoch), returning the new LEO. */
    public long truncateTo(final long offset)
    {
        appendLock.lock();
        try
        {
            if (offset < log.logEndOffset())
            {
                log.truncateTo(offset);
            }
            return log.logEndOffset();
        }
        finally
        {
            appendLock.unlock();
        }
    }

    /** Restarts the follower's log empty at {@code offset} (the leader's log start moved past our LEO). */
    public long truncateFullyAndStartAt(final long offset)
    {
        appendLock.lock();
        try
        {
            log.truncateFullyAndStartAt(offset);
            return log.logEndOffset();
        }
        finally
        {
            appendLock.unlock();
        }
    }

    public Optional<PartitionLog.EpochEndOffset> endOffsetForEpoch(final int epoch)
    {
        return log.endOffsetForEpoch(epoch);
    }

    // ------------------------------------------------------------------------------------------------------
    // Parked fetches.
    // ------------------------------------------------------------------------------------------------------

    /**
     * Tells {@code watcher} of every later change to what a fetch of this partition reads: records appended or
     * truncated, the HW, LSO or log start moved by an append, a role or mirror registration change. It runs on
     * the changing thread, after the change is visible, and must be quick (a fetch session marks the partition
     * changed and wakes its parked fetch). Watching again changes nothing.
     */
    public void watch(final Runnable watcher)
    {
        Runnable[] current;
        do
        {
            current = watchers;
        }
        while (!WATCHERS.compareAndSet(this, current, ChangeWatchers.with(current, watcher)));
        // With the fence in notifyWatchers: a change whose notification missed this watcher is visible to the
        // read that follows this call (the changes are not all volatile writes, so the CAS alone does not order them).
        java.lang.invoke.VarHandle.fullFence();
    }

    /** Stops telling {@code watcher} of changes (its fetch session is gone or no longer holds the partition). */
    public void unwatch(final Runnable watcher)
    {
        Runnable[] current;
        do
        {
            current = watchers;
        }
        while (!WATCHERS.compareAndSet(this, current, ChangeWatchers.without(current, watcher)));
    }

    /** How many fetch sessions watch this partition (for tests). */
    int watcherCount()
    {
        return watchers.length;
    }

    private void notifyWatchers()
    {
        // The change is written; a watcher added from now on reads it (see watch).
        java.lang.invoke.VarHandle.fullFence();
        for (final Runnable watcher : watchers)
        {
            try
            {
                watcher.run();
            }
            catch (final RuntimeException e)
            {
                // The change is made: one failing watcher must neither fail it nor keep the others from hearing.
                LOG.warn("{}: a fetch session's change watcher failed", topicPartition, e);
            }
        }
    }

    @Override
    public String toString()
    {
        return "Partition{" + topicPartition + ", " + role + '}';
    }
}

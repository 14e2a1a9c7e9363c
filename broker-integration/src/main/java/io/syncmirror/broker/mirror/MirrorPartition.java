package io.syncmirror.broker.mirror;

import java.util.concurrent.atomic.LongAdder;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.mirror.sync.SyncPartition;
import io.syncmirror.broker.replica.Partition;

/**
 * One mirror partition this broker coordinates (it leads the destination partition): its persisted state and what
 * the fetcher last learned about the source. The coordinator thread owns the state transitions; the fetcher
 * thread writes the source progress and errors; describe and metrics read everything. Fields are volatile.
 */
final class MirrorPartition implements SyncPartition
{
    final String mirrorName;
    final Partition partition;
    final TopicPartition topicPartition;
    final Uuid topicId;

    /**
     * The state, as persisted or (while {@link #pendingWrite} runs) as being persisted; written by the coordinator
     * thread only.
     */
    volatile MirrorStateRecord record;
    /** The commit of {@link #record} when it was sent without waiting; null once the coordinator saw it done. */
    volatile java.util.concurrent.CompletableFuture<Void> pendingWrite;
    /** Its topic is actively mirrored (false: removed from the mirror, failing over), as of the last walk. */
    boolean mirrored;
    /** The coordinator's tick whose walk last found this partition led here (coordinator thread). */
    long ledInTick;
    /** In the coordinator's list of partitions to step between sweeps (coordinator thread). */
    boolean toStep;
    /** When a FAILED partition may be retried, ms on the coordinator's clock. */
    volatile long retryAtMs;
    /** PREPARING's first phase (alignment with the source's last mirrored offset) is done. */
    volatile boolean aligned;
    /** The fetcher runs it (MIRRORING). */
    volatile boolean fetching;

    // From the fetcher.
    volatile long sourceHighWatermark = -1L;
    volatile int sourceLeaderId = -1;
    volatile int sourceLeaderEpoch;
    volatile boolean leaderLookupNeeded = true;
    /** A lookup of the source leader of this (fetching) partition runs off the coordinator thread. */
    volatile boolean leaderRelookupRunning;
    /** What that lookup found, for the coordinator to move the partition to; null when nothing new. */
    volatile org.apache.kafka.common.Node relookedLeader;
    volatile Errors lastError = Errors.NONE;
    volatile String lastErrorMessage;
    /** A fetch error that stops the partition (tiered storage offsets): the coordinator moves it to FAILED. */
    volatile Errors fatalError;
    /** The source's {earliest, latest} offsets asked for after OffsetOutOfRange, once known. */
    volatile long[] outOfRangeOffsets;
    volatile boolean outOfRangeLookupRunning;

    // Synchronous mirroring. The coordinator sets syncReporting; the fetcher's reporter writes the failure fields.
    /**
     * The fetcher reports this partition's replica state to the source (MirrorReplicaInfo) and keeps reporting
     * until this turns false: set before the SYNC registration is committed, cleared once the source acknowledged
     * the Unregister (or the partition stops), so the source HW never waits for reports that stopped (hazard 6).
     */
    volatile boolean syncReporting;
    /**
     * Since when (ms, fetcher clock) every report of this partition failed with INVALID_SYNC_REGISTRATION or
     * MIRROR_REGISTRATION_PROPAGATING; -1 while its reports succeed.
     */
    volatile long syncFailingSinceMs = -1L;
    /** The wire code of the last registration error a report got, 0 when the last report succeeded. */
    volatile short syncFailureCode;
    /**
     * The source leader epoch of the last fetch answered without DivergingEpoch: the destination log is known to
     * match that leader's, so a report carrying it may be credited there (hazard 1). Written by the fetcher.
     */
    volatile int validatedSourceEpoch = -1;
    /** Reports answered INVALID_SYNC_REGISTRATION (the SyncPartitionFetchFailures{reason=INVALID} counter). */
    final LongAdder syncFailuresInvalid = new LongAdder();
    /** Reports answered MIRROR_REGISTRATION_PROPAGATING (SyncPartitionFetchFailures{reason=PROPAGATING}). */
    final LongAdder syncFailuresPropagating = new LongAdder();

    MirrorPartition(final String mirrorName, final Partition partition, final MirrorStateRecord record)
    {
        this.mirrorName = mirrorName;
        this.partition = partition;
        this.topicPartition = partition.topicPartition();
        this.topicId = partition.topicId();
        this.record = record;
    }

    MirrorPartitionState state()
    {
        return record.state();
    }

    @Override
    public int index()
    {
        return topicPartition.partition();
    }

    @Override
    public boolean mirroring()
    {
        return record.state() == MirrorPartitionState.MIRRORING;
    }

    @Override
    public boolean reportingSync()
    {
        return syncReporting;
    }

    @Override
    public long syncFailingSince()
    {
        return syncFailingSinceMs;
    }

    @Override
    public short lastSyncFailure()
    {
        return syncFailureCode;
    }

    @Override
    public byte desiredMirrorType()
    {
        return record.desiredMirrorType();
    }

    @Override
    public int registerAttempts()
    {
        return record.retryAttempt();
    }

    @Override
    public boolean registrationOwed()
    {
        return record.syncRegistrationOwed();
    }

    @Override
    public int leaderEpoch()
    {
        return partition.role().leaderEpoch();
    }

    /** Source HW minus the destination LEO, 0 when ahead, -1 before the source HW is known. */
    @Override
    public long lag()
    {
        final long sourceHw = sourceHighWatermark;
        return sourceHw < 0 ? -1L : Math.max(0L, sourceHw - partition.log().logEndOffset());
    }

    void error(final Errors error, final String message)
    {
        lastErrorMessage = message;
        lastError = error;
    }

    void clearError()
    {
        if (lastError != Errors.NONE)
        {
            lastError = Errors.NONE;
            lastErrorMessage = null;
        }
    }
}

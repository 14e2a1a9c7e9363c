package io.syncmirror.broker.mirror;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.SyncCommitFence;
import io.syncmirror.broker.mirror.sync.SyncControl;
import io.syncmirror.broker.mirror.sync.SyncLinks;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.protocol.MirrorType;

/**
 * A mirror partition's failover (STOPPING to STOPPED) on the coordinator's thread. First the topic's sync
 * registration is undone at the source (the source's producers unblock first; the failover goes on when the source
 * cannot be reached). Then, in the sync text's order (no truncation): the fetcher is removed and the mirror's
 * appends stopped; LastMirroredOffset (the LEO) and LastMirrorEpoch (the latest source epoch in the log) are
 * persisted; the controller bumps the leader epoch above every source epoch in the log (hazard 3) and raises the
 * cluster's producer id floor above every producer id in the log (hazard 8); an ABORT marker is appended for each
 * open mirrored transaction; the MIRROR_PID_RESET point (the offset after those markers) is persisted, as state in
 * {@code __mirror_state}, not as a control record, since Kafka's log engine cannot load a control record type it
 * does not know (hazard 8); the partition starts fencing producer ids of the mirrored era; the HW is handed to the
 * local ISR; the topic becomes writable. Each step is idempotent, so a crash in the middle resumes the failover from
 * {@code __mirror_state}. Its calls block for at most the mirror request timeout each.
 */
final class MirrorFailover
{
    private static final Logger LOG = LoggerFactory.getLogger(MirrorCoordinator.class);

    private final MirrorFetchers fetchers;
    private final MirrorCoordinator.ControllerChannel controller;
    private final MirrorStateWrites stateWrites;
    private final SyncControl syncControl;
    private final SyncLinks syncLinks;
    private final Supplier<MetadataImage> image;
    private final MirrorCoordinator.MetadataWaiter metadataWaiter;
    private final long requestTimeoutMs;
    private final LongSupplier clockMs;
    private final int brokerId;

    MirrorFailover(final int brokerId, final MirrorFetchers fetchers,
        final MirrorCoordinator.ControllerChannel controller, final MirrorStateWrites stateWrites,
        final SyncControl syncControl, final SyncLinks syncLinks, final Supplier<MetadataImage> image,
        final MirrorCoordinator.MetadataWaiter metadataWaiter, final long requestTimeoutMs,
        final LongSupplier clockMs)
    {
        this.brokerId = brokerId;
        this.fetchers = fetchers;
        this.controller = controller;
        this.stateWrites = stateWrites;
        this.syncControl = syncControl;
        this.syncLinks = syncLinks;
        this.image = image;
        this.metadataWaiter = metadataWaiter;
        this.requestTimeoutMs = requestTimeoutMs;
        this.clockMs = clockMs;
    }


    /**
     * STOPPING to STOPPED, each step idempotent (a crash in the middle resumes from {@code __mirror_state}); see
     * {@link MirrorCoordinator} for the order. Throws when a step cannot be done now (the partition goes FAILED
     * and retries).
     */
    void stop(final MirrorPartition mirror)
    {
        final Partition partition = mirror.partition;
        stopSync(mirror);
        fetchers.remove(mirror.topicPartition);
        partition.mirrorAppends(false);
        final PartitionLog log = partition.log();
        if (mirror.record.lastMirroredOffset() < 0)
        {
            stateWrites.persist(mirror, mirror.record.withStop(log.logEndOffset(), log.latestEpoch().orElse(-1)));
        }
        final int lastMirrorEpoch = mirror.record.lastMirrorEpoch();
        if (log.latestEpoch().orElse(-1) <= lastMirrorEpoch || partition.role().leaderEpoch() <= lastMirrorEpoch)
        {
            final int minEpoch = Math.max(partition.role().leaderEpoch(), lastMirrorEpoch) + 1;
            final long maxProducerId = log.maxProducerId();
            try
            {
                controller.bumpLeaderEpochs(mirror.topicId, Map.of(mirror.topicPartition.partition(), minEpoch),
                    maxProducerId < 0 ? -1L : maxProducerId + 1);
            }
            catch (final RuntimeException e)
            {
                throw e;
            }
            catch (final Exception e)
            {
                throw new KafkaException("bumping the leader epoch of " + mirror.topicPartition + " failed: " +
                    e.getMessage(), e);
            }
            awaitEpoch(partition, minEpoch);
        }
        for (final PartitionLog.OpenTransaction txn : log.openTransactions())
        {
            // Its coordinator is on the source cluster, which may never send the marker: abort it here, under the
            // coordinator epoch the log last saw for the producer (a lower one is fenced by Kafka's log engine).
            final MemoryRecords marker = MemoryRecords.withEndTransactionMarker(clockMs.getAsLong(),
                txn.producerId(), txn.producerEpoch(),
                new EndTransactionMarker(ControlRecordType.ABORT, Math.max(0, txn.coordinatorEpoch())));
            partition.appendAsLeader(marker, false, null, 0, true);
            LOG.info("Mirror '{}' {}: aborted the open mirrored transaction of producer {} (first offset {})",
                mirror.mirrorName, mirror.topicPartition, txn.producerId(), txn.firstOffset());
        }
        if (mirror.record.pidResetOffset() < 0)
        {
            stateWrites.persist(mirror, mirror.record.withPidResetOffset(log.logEndOffset()));
        }
        partition.mirrorPidResetOffset(mirror.record.pidResetOffset());
        partition.liftMirrorHighWatermarkCap();
        partition.mirrorStopped(true);
        stateWrites.transition(mirror, MirrorPartitionState.STOPPED);
        LOG.info("Mirror '{}' {}: failed over at offset {} (last mirror epoch {}, leader epoch {}); writable",
            mirror.mirrorName, mirror.topicPartition, mirror.record.lastMirroredOffset(), lastMirrorEpoch,
            partition.role().leaderEpoch());
    }

    /**
     * Waits until this broker applied the bumped epoch: its partition then leads in it, and its log's epoch cache
     * starts it (the broker applies an image to its partitions before it completes the image's waiters).
     */
    private void awaitEpoch(final Partition partition, final int minEpoch)
    {
        final Uuid topicId = partition.topicId();
        final int index = partition.topicPartition().partition();
        try
        {
            metadataWaiter.await(image -> image.topic(topicId).map(topic ->
            {
                final PartitionState state = topic.partitions().get(index);
                return state == null || state.leader() != brokerId || state.leaderEpoch() >= minEpoch;
            }).orElse(true)).get(requestTimeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException e)
        {
            throw new KafkaException("the bumped leader epoch " + minEpoch + " of " + partition.topicPartition() +
                " did not reach this broker within " + requestTimeoutMs + " ms", e);
        }
        catch (final ExecutionException e)
        {
            throw new KafkaException("waiting for the bumped leader epoch of " + partition.topicPartition() +
                " failed: " + e.getCause(), e.getCause());
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted", e);
        }
        if (!partition.isLeader() || partition.role().leaderEpoch() < minEpoch ||
            partition.log().latestEpoch().orElse(-1) < minEpoch)
        {
            throw new KafkaException("lost leadership of " + partition.topicPartition() + " during failover");
        }
    }

    /**
     * A failover's first step for a partition of a topic that is (or may be) SYNC: Unregister at the source before
     * the fetcher is removed, so the source's producers unblock first; failover goes on when the source cannot be
     * reached (an operator may release it there later). Then the topic's effective and desired types are cleared
     * and the partition stops reporting.
     */
    private void stopSync(final MirrorPartition mirror)
    {
        final boolean effectiveSync = image.get().syncState(mirror.topicId).mirrorType() == MirrorType.SYNC.id();
        final boolean involved = effectiveSync || mirror.syncReporting ||
            mirror.record.desiredMirrorType() == MirrorType.SYNC.id() || syncControl.unregisterOwed(mirror.topicId);
        if (!involved)
        {
            return;
        }
        // Numbered to close partition 0's leader epoch: a Register or SYNC commit a driver sent before, landing
        // after these, is fenced (the source would gate on a failed-over topic, or its type would read SYNC).
        final long closing = SyncCommitFence.closing(partitionZeroLeaderEpoch(mirror));
        final boolean acknowledged = awaitSyncRequest(syncControl.unregisterOnStop(mirror.mirrorName,
            mirror.topicId, mirror.topicPartition.topic(), closing), "the Unregister at the source");
        if (!acknowledged)
        {
            LOG.warn("Mirror '{}' topic {}: failing over without the source's acknowledgement of the " +
                "Unregister; run --release-sync on the source if its producers stay blocked", mirror.mirrorName,
                mirror.topicPartition.topic());
        }
        fetchers.syncReporting(mirror, false);
        if (effectiveSync)
        {
            try
            {
                awaitSyncRequest(syncLinks.commitMirrorType(mirror.topicId, MirrorType.ASYNC.id(), closing),
                    "clearing the effective SYNC type");
            }
            catch (final RuntimeException e)
            {
                throw new KafkaException("clearing the effective SYNC type of " + mirror.topicPartition.topic() +
                    " at the controller failed: " + e.getMessage(), e);
            }
        }
        if (mirror.record.desiredMirrorType() != MirrorType.ASYNC.id())
        {
            stateWrites.persist(mirror, mirror.record.withDesiredMirrorType(MirrorType.ASYNC.id()));
        }
    }

    /**
     * Waits for a sync request of the failover, which runs in order on the sync requests' thread: bounded by the
     * requests queued before it, each bounded by the mirror request timeout.
     */
    /** Partition 0's leader epoch in this broker's image (the topic's drivers number their requests by it). */
    private int partitionZeroLeaderEpoch(final MirrorPartition mirror)
    {
        return image.get().topic(mirror.topicPartition.topic()).filter(t -> t.id().equals(mirror.topicId))
            .flatMap(t -> t.partitions().stream().filter(p -> p.partition() == 0).findFirst())
            .map(PartitionState::leaderEpoch).orElse(0);
    }

    private <T> T awaitSyncRequest(final CompletableFuture<T> request, final String what)
    {
        try
        {
            return request.get(4 * requestTimeoutMs, java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        catch (final java.util.concurrent.ExecutionException e)
        {
            throw e.getCause() instanceof RuntimeException r ? r : new KafkaException(e.getCause());
        }
        catch (final java.util.concurrent.TimeoutException e)
        {
            throw new KafkaException(what + " timed out after " + 4 * requestTimeoutMs + " ms", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted waiting for " + what, e);
        }
    }
}

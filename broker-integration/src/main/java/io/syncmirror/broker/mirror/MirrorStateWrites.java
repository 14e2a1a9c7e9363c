package io.syncmirror.broker.mirror;

import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.protocol.MirrorPartitionState;

/**
 * The coordinator's writes of its partitions' states to {@code __mirror_state}: each partition's record in memory
 * is the one last written (or being written), and a write sent without waiting holds the partition's next step
 * until it is committed. Coordinator thread; the writes of one key commit in the order they were sent.
 */
final class MirrorStateWrites
{
    private static final Logger LOG = LoggerFactory.getLogger(MirrorCoordinator.class);

    private final MirrorStateStore store;
    private final long retryBackoffMs;
    private final long retryBackoffMaxMs;
    private final LongSupplier clockMs;
    /** Asks the coordinator for a step (a write sent without waiting was committed). */
    private final Runnable wakeup;

    /** Records set on partitions so far (any thread): a sync tick redoes its per-partition work only after one. */
    private final java.util.concurrent.atomic.AtomicLong recordChanges = new java.util.concurrent.atomic.AtomicLong();

    MirrorStateWrites(final MirrorStateStore store, final long retryBackoffMs, final long retryBackoffMaxMs,
        final LongSupplier clockMs, final Runnable wakeup)
    {
        this.store = store;
        this.retryBackoffMs = retryBackoffMs;
        this.retryBackoffMaxMs = retryBackoffMaxMs;
        this.clockMs = clockMs;
        this.wakeup = wakeup;
    }

    void transition(final MirrorPartition mirror, final MirrorPartitionState next)
    {
        final MirrorPartitionState previous = mirror.record.state();
        persist(mirror, mirror.record.moveTo(next));
        LOG.info("Mirror '{}' {}: {} -> {}", mirror.mirrorName, mirror.topicPartition, previous, next);
    }

    /**
     * Moves to {@code next} and sends its write without waiting for the commit: the coordinator's step does nothing
     * more for the partition until {@link #writePending} sees it committed. The record in memory is the new one at
     * once, so that any write after it (a command's, a synchronous one) starts from it; writes of one key commit in
     * order.
     */
    void transitionAsync(final MirrorPartition mirror, final MirrorPartitionState next)
    {
        final MirrorPartitionState previous = mirror.record.state();
        final MirrorStateRecord record = mirror.record.moveTo(next);
        final CompletableFuture<Void> committed = store.writeAsync(record);
        set(mirror, record);
        mirror.pendingWrite = committed;
        if (!committed.isDone())
        {
            committed.whenComplete((ignored, e) -> wakeup.run());
        }
        LOG.info("Mirror '{}' {}: {} -> {}", mirror.mirrorName, mirror.topicPartition, previous, next);
    }

    /**
     * Whether the partition's last write sent without waiting is still on its way; a failed one throws (the step
     * fails, and the partition moves to FAILED and retries).
     */
    static boolean writePending(final MirrorPartition mirror)
    {
        final CompletableFuture<Void> pending = mirror.pendingWrite;
        if (pending == null)
        {
            return false;
        }
        if (!pending.isDone())
        {
            return true;
        }
        mirror.pendingWrite = null;
        try
        {
            pending.join();
        }
        catch (final java.util.concurrent.CompletionException e)
        {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        return false;
    }

    /**
     * Sends {@code next} without waiting, as {@link #transitionAsync} does: the record in memory is the new one at
     * once, and the coordinator's step does nothing more for the partition until it is committed.
     */
    CompletableFuture<Void> persistAsync(final MirrorPartition mirror, final MirrorStateRecord next)
    {
        final CompletableFuture<Void> committed = store.writeAsync(next);
        set(mirror, next);
        mirror.pendingWrite = committed;
        if (!committed.isDone())
        {
            committed.whenComplete((ignored, e) -> wakeup.run());
        }
        return committed;
    }

    void persist(final MirrorPartition mirror, final MirrorStateRecord next)
    {
        store.write(next);
        set(mirror, next);
        // Committed after any write sent before it without waiting: those no longer decide the durable state.
        mirror.pendingWrite = null;
    }

    void fail(final MirrorPartition mirror, final RuntimeException e)
    {
        final Errors error = Errors.forException(e);
        final int attempt = mirror.record.retryAttempt() + 1;
        final long backoffMs = Math.min(retryBackoffMaxMs,
            retryBackoffMs << Math.min(20, attempt - 1));
        mirror.retryAtMs = clockMs.getAsLong() + backoffMs;
        final String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        mirror.error(error == Errors.UNKNOWN_SERVER_ERROR ? Errors.UNKNOWN_SERVER_ERROR : error, message);
        final MirrorStateRecord failed = mirror.record.failed(error.code(), message, attempt);
        try
        {
            persist(mirror, failed);
        }
        catch (final RuntimeException writeError)
        {
            set(mirror, failed); // surfaced in describe and metrics even when __mirror_state is unavailable
        }
        LOG.warn("Mirror '{}' {}: FAILED (attempt {}, retry in {} ms): {}", mirror.mirrorName, mirror.topicPartition,
            attempt, backoffMs, message);
    }

    void persistQuietly(final MirrorPartition mirror, final MirrorStateRecord next)
    {
        try
        {
            persist(mirror, next);
        }
        catch (final RuntimeException e)
        {
            set(mirror, next); // in force here; written with the partition's next transition
            LOG.warn("Mirror '{}' {}: cannot persist its state now: {}", mirror.mirrorName, mirror.topicPartition,
                e.getMessage());
        }
    }

    /** Sets {@code mirror}'s record and counts the change. */
    private void set(final MirrorPartition mirror, final MirrorStateRecord record)
    {
        mirror.record = record;
        recordChanges.incrementAndGet();
    }

    /** How many records were set on partitions so far (see {@link #recordChanges}). */
    long recordChanges()
    {
        return recordChanges.get();
    }
}

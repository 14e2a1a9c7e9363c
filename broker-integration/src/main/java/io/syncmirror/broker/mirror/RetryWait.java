package io.syncmirror.broker.mirror;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import io.syncmirror.broker.metadata.MetadataImage;

/**
 * The wait before a request handler retries what this broker's metadata decides (a topic in the image, a leader
 * for a partition, the owner of a ledger): until the image moves past the one the retry was decided on, or a
 * backoff passes, whichever comes first. The backoff bounds what metadata does not announce: a peer still loading
 * its partitions answers a retriable error, and only asking again tells when it is done.
 */
final class RetryWait
{
    private final Supplier<MetadataImage> image;
    private final MirrorCoordinator.MetadataWaiter waiter;
    private final long backoffMs;
    private final LongSupplier clockMs;

    /** @param clockMs the clock of the deadlines passed to {@link #awaitChange} */
    RetryWait(final Supplier<MetadataImage> image, final MirrorCoordinator.MetadataWaiter waiter,
        final long backoffMs, final LongSupplier clockMs)
    {
        this.image = image;
        this.waiter = waiter;
        this.backoffMs = backoffMs;
        this.clockMs = clockMs;
    }

    /** The image a retry is decided on; pass it to {@link #awaitChange}. */
    MetadataImage current()
    {
        return image.get();
    }

    /**
     * Returns once the image moved past {@code seen}, the backoff passed, or {@code deadlineMs} came, whichever is
     * first. False when interrupted (the interrupt is kept).
     */
    boolean awaitChange(final MetadataImage seen, final long deadlineMs)
    {
        final long waitMs = Math.min(backoffMs, deadlineMs - clockMs.getAsLong());
        if (waitMs <= 0)
        {
            return true;
        }
        final long seenOffset = seen.appliedOffset();
        final CompletableFuture<MetadataImage> moved = waiter.await(next -> next.appliedOffset() > seenOffset);
        try
        {
            moved.get(waitMs, TimeUnit.MILLISECONDS);
        }
        catch (final TimeoutException | ExecutionException e)
        {
            moved.cancel(false); // the metadata thread drops a cancelled waiter
        }
        catch (final InterruptedException e)
        {
            moved.cancel(false);
            Thread.currentThread().interrupt();
            return false;
        }
        return true;
    }
}

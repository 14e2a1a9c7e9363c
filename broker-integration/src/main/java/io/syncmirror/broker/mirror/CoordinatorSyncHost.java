package io.syncmirror.broker.mirror;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.mirror.sync.SyncHost;
import io.syncmirror.broker.mirror.sync.SyncPartition;

/** The sync control's side effects on the partitions the coordinator owns (its {@link MirrorPartition}s). */
final class CoordinatorSyncHost implements SyncHost
{
    private final MirrorStateWrites stateWrites;
    private final MirrorFetchers fetchers;
    private final Runnable wakeup;

    CoordinatorSyncHost(final MirrorStateWrites stateWrites, final MirrorFetchers fetchers, final Runnable wakeup)
    {
        this.stateWrites = stateWrites;
        this.fetchers = fetchers;
        this.wakeup = wakeup;
    }

    @Override
    public void reporting(final SyncPartition partition, final boolean reporting)
    {
        fetchers.syncReporting((MirrorPartition)partition, reporting);
    }

    @Override
    public void registerAttempts(final SyncPartition driver, final int attempts)
    {
        final MirrorPartition mirror = (MirrorPartition)driver;
        stateWrites.persistQuietly(mirror, mirror.record.withRetryAttempt(attempts));
    }

    @Override
    public CompletableFuture<Void> registrationOwed(final SyncPartition driver, final boolean owed)
    {
        final MirrorPartition mirror = (MirrorPartition)driver;
        return stateWrites.persistAsync(mirror, mirror.record.withSyncRegistrationOwed(owed));
    }

    @Override
    public void promotionError(final SyncPartition driver, final String message)
    {
        final MirrorPartition mirror = (MirrorPartition)driver;
        if (message == null)
        {
            mirror.clearError();
        }
        else
        {
            mirror.error(Errors.NONE, message);
        }
    }

    @Override
    public void wakeup()
    {
        wakeup.run();
    }
}

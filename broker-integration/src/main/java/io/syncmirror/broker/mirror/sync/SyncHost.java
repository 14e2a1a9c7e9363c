package io.syncmirror.broker.mirror.sync;

/** What the sync control asks of the coordinator that owns the partitions. Coordinator thread. */
public interface SyncHost
{
    /** Starts or stops the partition's reports to the source. */
    void reporting(SyncPartition partition, boolean reporting);

    /** Persists the driver's Register attempts (best effort: in force at once, written with its next state). */
    void registerAttempts(SyncPartition driver, int attempts);

    /**
     * Persists the driver's {@link SyncPartition#registrationOwed}; completes once committed (a new driver reads it
     * from the partition's state when it takes over), or fails.
     */
    java.util.concurrent.CompletableFuture<Void> registrationOwed(SyncPartition driver, boolean owed);

    /** Shows why the last promotion failed on the driver (describe, metrics); null clears it. */
    void promotionError(SyncPartition driver, String message);

    /** Asks for a step soon: a request completed. Any thread. */
    void wakeup();
}

package io.syncmirror.broker.metadata;

/**
 * The order of a mirror topic's effective-type commits at the destination controller. The topic's sync driver
 * numbers its commits (DriverEpoch: its partition 0 leader epoch in the high 32 bits, a counter in the low), and
 * the controller keeps the highest number it applied per topic: a numbered commit below it is refused. So a SYNC
 * commit that arrives late (its sender gave up on it, or another broker took the driving over since) cannot make
 * the topic SYNC after the driver committed ASYNC and then unregistered at the source. Commits without a number
 * (an operator's) are applied as they come and leave the number where it is. A failover numbers its ASYNC commit
 * and its Unregister {@link #closing} partition 0's leader epoch: above every number of the drivers so far.
 */
public final class SyncCommitFence
{
    /** No number: the commit is not ordered against the driver's. */
    public static final long NONE = -1L;

    private SyncCommitFence()
    {
    }

    /** Whether a commit numbered {@code driverEpoch} is refused, {@code fence} being the highest one applied. */
    public static boolean refuses(final long driverEpoch, final long fence)
    {
        return driverEpoch >= 0 && driverEpoch < fence;
    }

    /** The highest number applied once a commit numbered {@code driverEpoch} was applied. */
    public static long raised(final long fence, final long driverEpoch)
    {
        return Math.max(fence, driverEpoch);
    }

    /**
     * The number that closes partition 0's leader epoch {@code leaderEpoch}: above every number a driver of that
     * epoch or an earlier one uses (their counters stay far below), below every number of a later epoch.
     */
    public static long closing(final int leaderEpoch)
    {
        return ((long)leaderEpoch << 32) | 0xffffffffL;
    }

    /** The number as the logs print it: leader epoch, then counter. */
    public static String describe(final long driverEpoch)
    {
        return driverEpoch < 0 ? "none" : (driverEpoch >>> 32) + "." + (driverEpoch & 0xffffffffL);
    }
}

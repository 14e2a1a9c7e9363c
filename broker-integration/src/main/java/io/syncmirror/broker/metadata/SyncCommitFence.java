package io.syncmirror.broker.metadata;

/**
 * The order of a mirror topic's effective-type commits at the destination controller. The topic's sync driver
 * numbers its commits (DriverEpoch: its partition 0 leader epoch in the high 32 bits, a counter in the low), and
 * the controller keeps the highest number it applied per topic: a numbered commit below it is refused. So a SYNC
 * commit that arrives late (its sender gave up on it, or another broker took the driving over since) cannot make
 * the topic SYNC after the driver committed ASYNC and then unregistered at the source. Commits without a number
 * (an operator's, a failover's) are applied as they come and leave the number where it is.
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

    /** The number as the logs print it: leader epoch, then counter. */
    public static String describe(final long driverEpoch)
    {
        return driverEpoch < 0 ? "none" : (driverEpoch >>> 32) + "." + (driverEpoch & 0xffffffffL);
    }
}

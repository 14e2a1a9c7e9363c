package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;
import java.util.function.Predicate;

import io.syncmirror.protocol.MirrorPartitionState;

/**
 * The coordinated partitions whose step may do something, so that a coordinator tick between sweeps steps those
 * and not every partition it leads: at 100k partitions, stepping each one every tick (each step doing nothing once
 * the partition is MIRRORING) was the largest idle cost of the brokers. A partition leaves the list once a step
 * leaves it {@link #settled}; it comes back when its fetcher turns it over ({@link #turnedOver}, from fetcher
 * threads), and at a sweep, which the coordinator runs when the image changed, after a command, and every
 * {@link #SWEEP_EVERY_TICKS} ticks as a safety net. Coordinator thread, except {@link #turnedOver}.
 */
final class UnsettledPartitions
{
    /** Every this many ticks a tick steps every coordinated partition, settled or not (30 s at the 500 ms tick). */
    static final int SWEEP_EVERY_TICKS = 60;

    private final List<MirrorPartition> toStep = new ArrayList<>();
    private final ConcurrentLinkedQueue<MirrorPartition> turnedOver = new ConcurrentLinkedQueue<>();

    /**
     * Whether a step of {@code mirror} would do nothing: a mirrored MIRRORING partition that its fetcher runs, with
     * no write, error, leader lookup or new leader pending. It stays so until its fetcher turns it over or a command
     * or the image changes it (both make the coordinator sweep).
     */
    static boolean settled(final MirrorPartition mirror)
    {
        return mirror.mirrored && mirror.record.state() == MirrorPartitionState.MIRRORING && mirror.fetching &&
            mirror.fatalError == null && !mirror.leaderLookupNeeded && !mirror.leaderRelookupRunning &&
            mirror.relookedLeader == null && !MirrorStateWrites.writePending(mirror);
    }

    /** Its fetcher turned {@code mirror} over to the coordinator (leader gone, fatal error, stopped). Any thread. */
    void turnedOver(final MirrorPartition mirror)
    {
        turnedOver.add(mirror);
    }

    /** Adds the partitions turned over since the last call to those to step. */
    void takeTurnedOver()
    {
        for (MirrorPartition mirror = turnedOver.poll(); mirror != null; mirror = turnedOver.poll())
        {
            add(mirror);
        }
    }

    /** The partitions to step, for a look at which need a fresh source leader. */
    Collection<MirrorPartition> toStep()
    {
        return toStep;
    }

    int size()
    {
        return toStep.size();
    }

    /** After a sweep over {@code coordinated}: the partitions to step next are those it left unsettled. */
    void collect(final Collection<MirrorPartition> coordinated)
    {
        for (final MirrorPartition mirror : toStep)
        {
            mirror.toStep = false;
        }
        toStep.clear();
        for (final MirrorPartition mirror : coordinated)
        {
            if (!settled(mirror))
            {
                add(mirror);
            }
        }
    }

    /**
     * Steps each partition to step that is still {@code coordinated}; those left settled drop out of the list.
     */
    void step(final Predicate<MirrorPartition> coordinated, final Consumer<MirrorPartition> step)
    {
        int kept = 0;
        for (int i = 0; i < toStep.size(); i++)
        {
            final MirrorPartition mirror = toStep.get(i);
            if (!coordinated.test(mirror))
            {
                mirror.toStep = false; // let go of since (the walk that did so also swept)
                continue;
            }
            step.accept(mirror);
            if (settled(mirror))
            {
                mirror.toStep = false;
            }
            else
            {
                toStep.set(kept++, mirror);
            }
        }
        toStep.subList(kept, toStep.size()).clear();
    }

    private void add(final MirrorPartition mirror)
    {
        if (!mirror.toStep)
        {
            mirror.toStep = true;
            toStep.add(mirror);
        }
    }
}

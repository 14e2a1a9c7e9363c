package io.syncmirror.broker.replica;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * The ISR a leader should propose, from its role and its followers' progress: Kafka's rules (a follower that has
 * not caught up within the lag window leaves, one that reached the HW joins) with the joins of sync mirroring's
 * floors. Stateless; the partition reads its state under its append lock and passes it in.
 */
final class IsrProposal
{
    private IsrProposal()
    {
    }

    /**
     * The ISR to propose, or null for no change. The leader {@code localBrokerId} always stays. A follower in the
     * ISR leaves when it does not hold the whole log ({@code leaderLeo}) and has not caught up for more than
     * {@code lagTimeMaxMs} (Kafka's {@code Replica.isCaughtUp}: one holding the whole log is in sync however long
     * ago it last fetched). A follower outside joins once its LEO reached the HW and {@code joinFloor} (the leader
     * epoch's start offset and the sync join floor, hazard 2), it caught up within the lag window, and the
     * controller would accept it ({@code eligible}).
     */
    static List<Integer> propose(final Partition.Role current, final int localBrokerId, final long hw,
        final long leaderLeo, final long joinFloor, final long nowMs, final long lagTimeMaxMs,
        final IntPredicate eligible)
    {
        final List<Integer> replicas = current.replicas();
        final FollowerProgress progress = current.progress();
        // Which replicas (by index) the proposal holds; the list is built only for a change, since the upkeep asks
        // every partition led here every half lag window and nearly all answer "no change".
        int nextMask = 0;
        boolean changed = false;
        for (int index = 0; index < replicas.size(); index++)
        {
            final int id = replicas.get(index);
            final boolean inIsr = current.isr().contains(id);
            if (id == localBrokerId)
            {
                nextMask |= 1 << index;
                changed |= !inIsr;
                continue;
            }
            final long followerLeo = progress.leo(index);
            final boolean laggingOut = followerLeo != leaderLeo && nowMs - progress.caughtUpMs(index) > lagTimeMaxMs;
            if (inIsr && !laggingOut)
            {
                nextMask |= 1 << index;
            }
            else if (inIsr)
            {
                changed = true;
            }
            else if (followerLeo >= Math.max(hw, joinFloor) && followerLeo >= 0 &&
                nowMs - progress.caughtUpMs(index) <= lagTimeMaxMs && eligible.test(id))
            {
                nextMask |= 1 << index;
                changed = true;
            }
        }
        if (!changed)
        {
            return null;
        }
        final List<Integer> next = new ArrayList<>(Integer.bitCount(nextMask));
        for (int index = 0; index < replicas.size(); index++)
        {
            if ((nextMask & (1 << index)) != 0)
            {
                next.add(replicas.get(index));
            }
        }
        return next;
    }
}

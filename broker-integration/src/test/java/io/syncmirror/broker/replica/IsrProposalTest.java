package io.syncmirror.broker.replica;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class IsrProposalTest
{
    private static final int LEADER = 1;
    private static final long LAG_MS = 10_000L;
    private static final long START_MS = 1_000L;

    private final FollowerProgress progress = new FollowerProgress(3, START_MS);

    private Partition.Role role(final List<Integer> isr)
    {
        return new Partition.Role(true, LEADER, 5, 7, List.of(1, 2, 3), isr, 0, 2, progress);
    }

    @Test
    void shouldProposeNothingWhileEveryMemberKeepsUp()
    {
        progress.onFetch(1, 100, 100, 100, START_MS);
        progress.onFetch(2, 90, 90, 100, START_MS);

        assertNull(IsrProposal.propose(role(List.of(1, 2, 3)), LEADER, 90, 100, 0, START_MS + LAG_MS, LAG_MS,
            id -> true), "replica 3 lags but caught up within the window");
    }

    @Test
    void shouldDropAMemberThatHasNotCaughtUpWithinTheLagWindow()
    {
        progress.onFetch(1, 100, 100, 100, START_MS);
        progress.onFetch(2, 90, 90, 100, START_MS);

        assertEquals(List.of(1, 2), IsrProposal.propose(role(List.of(1, 2, 3)), LEADER, 90, 100, 0,
            START_MS + LAG_MS + 1, LAG_MS, id -> true));
    }

    @Test
    void shouldKeepAMemberHoldingTheWholeLogHoweverLongAgoItFetched()
    {
        progress.onFetch(1, 100, 100, 100, START_MS);
        progress.onFetch(2, 100, 100, 100, START_MS);

        assertNull(IsrProposal.propose(role(List.of(1, 2, 3)), LEADER, 100, 100, 0, START_MS + 10 * LAG_MS, LAG_MS,
            id -> true));
    }

    @Test
    void shouldAddAFollowerOnlyOnceItReachedTheHighWatermarkAndTheJoinFloor()
    {
        progress.onFetch(1, 100, 100, 100, START_MS);
        progress.onFetch(2, 95, 95, 100, START_MS);
        final Partition.Role role = role(List.of(1, 2));

        assertNull(IsrProposal.propose(role, LEADER, 96, 100, 0, START_MS, LAG_MS, id -> true), "below the HW");
        assertNull(IsrProposal.propose(role, LEADER, 90, 100, 97, START_MS, LAG_MS, id -> true),
            "below the join floor (hazard 2)");
        assertEquals(List.of(1, 2, 3), IsrProposal.propose(role, LEADER, 90, 100, 95, START_MS, LAG_MS, id -> true));
        assertNull(IsrProposal.propose(role, LEADER, 90, 100, 95, START_MS, LAG_MS, id -> id != 3),
            "the controller would refuse it (fenced or unregistered)");
    }

    @Test
    void shouldNeverAddAFollowerThatHasNotFetched()
    {
        assertNull(IsrProposal.propose(role(List.of(1)), LEADER, 0, 0, 0, START_MS, LAG_MS, id -> true),
            "LEO -1 before a follower's first fetch, even at an empty log");
    }

    @Test
    void shouldPutTheLeaderBackWhenTheIsrLeftItOut()
    {
        progress.onFetch(1, 100, 100, 100, START_MS);

        assertEquals(List.of(1, 2), IsrProposal.propose(role(List.of(2)), LEADER, 100, 100, 0, START_MS, LAG_MS,
            id -> true));
    }
}

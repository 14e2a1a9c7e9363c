package io.syncmirror.broker.replica;

import java.util.List;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** A leadership's follower progress and the partition's copy-on-write watcher arrays. */
class FollowerProgressTest
{
    @Test
    void shouldStartEveryFollowerUnfetchedWithAFullLagWindow()
    {
        final FollowerProgress progress = new FollowerProgress(3, 1_000L);
        for (int i = 0; i < 3; i++)
        {
            assertEquals(-1L, progress.leo(i));
            assertEquals(1_000L, progress.caughtUpMs(i));
        }
    }

    @Test
    void shouldCatchUpAsKafkasReplicaDoes()
    {
        final FollowerProgress progress = new FollowerProgress(3, 0L);
        // At the leader's end: caught up now.
        progress.onFetch(1, 100L, 100L, 100L, 10L);
        assertEquals(100L, progress.leo(1));
        assertEquals(10L, progress.caughtUpMs(1));
        // Behind the leader's end, short of the leader's LEO at its previous fetch (100): not caught up since.
        progress.onFetch(1, 90L, 90L, 150L, 20L);
        assertEquals(10L, progress.caughtUpMs(1));
        // Reaching the leader's LEO of the previous fetch (150): caught up as of that fetch (20).
        progress.onFetch(1, 150L, 150L, 200L, 30L);
        assertEquals(20L, progress.caughtUpMs(1));
        assertEquals(150L, progress.leo(1));
        assertEquals(-1L, progress.leo(2), "another follower's cells are its own");
    }

    @Test
    void shouldIgnoreAnIndexOutsideItsReplicaList()
    {
        final FollowerProgress progress = new FollowerProgress(2, 5L);
        progress.onFetch(2, 100L, 100L, 100L, 10L);
        progress.onFetch(-1, 100L, 100L, 100L, 10L);
        assertEquals(-1L, progress.leo(2));
        assertEquals(0L, progress.caughtUpMs(2), "never caught up: lagging by any bound");
        assertEquals(-1L, progress.leo(1));
    }

    @Test
    void shouldKeepAFollowersCellsAcrossAReassignmentByReplicaId()
    {
        final FollowerProgress progress = new FollowerProgress(3, 0L);
        progress.onFetch(1, 100L, 100L, 100L, 10L); // broker 2
        progress.onFetch(2, 70L, 70L, 100L, 11L); // broker 3
        final FollowerProgress next = progress.reindexed(List.of(1, 2, 3), List.of(4, 3, 2, 1), 50L);
        assertEquals(4, next.replicas());
        assertEquals(-1L, next.leo(0), "broker 4 is new");
        assertEquals(50L, next.caughtUpMs(0));
        assertEquals(70L, next.leo(1));
        assertEquals(100L, next.leo(2));
        assertEquals(10L, next.caughtUpMs(2));
    }

    @Test
    void shouldAddAWatcherOnceAndShareTheEmptyArray()
    {
        final Runnable a = () -> { };
        final Runnable b = () -> { };
        final Runnable[] one = ChangeWatchers.with(ChangeWatchers.NONE, a);
        assertSame(one, ChangeWatchers.with(one, a), "watching again changes nothing");
        final Runnable[] two = ChangeWatchers.with(one, b);
        assertEquals(2, two.length);
        assertEquals(List.of(b), List.of(ChangeWatchers.without(two, a)));
        assertSame(two, ChangeWatchers.without(two, () -> { }), "removing a stranger changes nothing");
        assertSame(ChangeWatchers.NONE, ChangeWatchers.without(one, a));
    }
}

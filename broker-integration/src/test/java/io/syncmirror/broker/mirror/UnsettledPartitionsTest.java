package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import io.syncmirror.protocol.MirrorPartitionState;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class UnsettledPartitionsTest
{
    private final AtomicLong clockMs = new AtomicLong(1_000L);
    private final LeaderMirrorFixture fixture = new LeaderMirrorFixture(clockMs::get);
    private final MirrorPartition mirror = fixture.mirror;
    private final UnsettledPartitions unsettled = new UnsettledPartitions();
    private final List<MirrorPartition> stepped = new ArrayList<>();

    @AfterEach
    void tearDown()
    {
        fixture.close();
    }

    private void settle()
    {
        mirror.mirrored = true;
        mirror.fetching = true;
        mirror.leaderLookupNeeded = false;
    }

    private void step()
    {
        stepped.clear();
        unsettled.step(m -> true, stepped::add);
    }

    @Test
    @DisplayName("a MIRRORING partition its fetcher runs is settled; any pending thing unsettles it")
    void shouldCallOnlyANoOpStepSettled()
    {
        settle();
        assertTrue(UnsettledPartitions.settled(mirror));
        mirror.leaderLookupNeeded = true;
        assertFalse(UnsettledPartitions.settled(mirror), "a leader to look up");
        settle();
        mirror.fatalError = org.apache.kafka.common.protocol.Errors.OFFSET_MOVED_TO_TIERED_STORAGE;
        assertFalse(UnsettledPartitions.settled(mirror), "a fatal error");
        mirror.fatalError = null;
        mirror.leaderRelookupRunning = true;
        assertFalse(UnsettledPartitions.settled(mirror), "a lookup running");
        mirror.leaderRelookupRunning = false;
        mirror.fetching = false;
        assertFalse(UnsettledPartitions.settled(mirror), "not fetching");
        settle();
        mirror.record = mirror.record.moveTo(MirrorPartitionState.FAILED);
        assertFalse(UnsettledPartitions.settled(mirror), "FAILED retries on a timer");
    }

    @Test
    @DisplayName("a settled partition is not stepped between sweeps until its fetcher turns it over, then until it "
        + "settles again")
    void shouldStepOnlyWhatIsUnsettledOrTurnedOver()
    {
        settle();
        mirror.mirrored = false; // a failing-over topic: unsettled
        unsettled.collect(List.of(mirror));
        assertEquals(1, unsettled.size());
        step();
        assertEquals(List.of(mirror), stepped);
        assertEquals(1, unsettled.size(), "still unsettled after its step");

        settle();
        step();
        assertEquals(List.of(mirror), stepped, "stepped once more, and found settled");
        assertEquals(0, unsettled.size());
        step();
        assertEquals(List.of(), stepped, "a settled partition costs a tick nothing");

        // The fetcher thread: the source leader moved.
        mirror.fetching = false;
        mirror.leaderLookupNeeded = true;
        unsettled.turnedOver(mirror);
        unsettled.turnedOver(mirror);
        unsettled.takeTurnedOver();
        assertEquals(1, unsettled.size(), "listed once however often turned over");
        assertTrue(unsettled.toStep().contains(mirror), "and looked at for a fresh leader");
        step();
        assertEquals(List.of(mirror), stepped);
        settle();
        step();
        assertEquals(0, unsettled.size());

        settle();
        unsettled.turnedOver(mirror);
        unsettled.takeTurnedOver();
        stepped.clear();
        unsettled.step(m -> false, stepped::add);
        assertEquals(List.of(), stepped, "a partition let go of is dropped, not stepped");
        assertEquals(0, unsettled.size());
    }
}

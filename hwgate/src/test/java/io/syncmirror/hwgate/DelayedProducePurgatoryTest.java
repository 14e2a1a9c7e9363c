package io.syncmirror.hwgate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.offheap.PartitionTable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.syncmirror.protocol.MirrorError.MIRROR_SYNC_REPLICATION_TIMEOUT;
import static io.syncmirror.protocol.MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND;
import static io.syncmirror.protocol.MirrorError.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
import static io.syncmirror.protocol.MirrorError.REQUEST_TIMED_OUT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DelayedProducePurgatoryTest
{
    private static final int MIRROR = 0;
    private static final long T0 = 1_000;

    private final PartitionTable table = new PartitionTable(16, 3, 2, 3);
    private final HighWatermarkGate gate = new HighWatermarkGate(table);
    private final DelayedProducePurgatory purgatory = new DelayedProducePurgatory(gate, 4, 4);
    private final Map<Long, List<Integer>> completed = new HashMap<>();
    private final RequestShard shard = purgatory.newShard(8, 16, this::onComplete, OwnerWakeup.NONE, T0);
    private final long[] leaderLeo = new long[16];

    DelayedProducePurgatoryTest()
    {
        for (int slot = 0; slot < 16; slot++)
        {
            table.initSlot(slot, 0, 0b111, 2);
        }
    }

    private void onComplete(final RequestShard shard, final int request, final long cookie)
    {
        final List<Integer> outcomes = new ArrayList<>();
        for (int cell = shard.firstCell(request); cell != RequestShard.NO_CELL; cell = shard.nextCell(cell))
        {
            outcomes.add(shard.cellOutcome(cell));
        }
        assertEquals(shard.waitCount(request), outcomes.size());
        assertTrue(completed.put(cookie, outcomes) == null, "request " + cookie + " delivered twice");
    }

    /** Appends {@code records} to {@code slot} as its leader and returns the required offset. */
    private long append(final int slot, final int records)
    {
        leaderLeo[slot] += records;
        purgatory.onLocalLeo(slot, 0, leaderLeo[slot]);
        return leaderLeo[slot];
    }

    private int produce(final long cookie, final long deadlineMs, final int... slots)
    {
        final int request = shard.begin(cookie, slots.length, deadlineMs);
        for (final int slot : slots)
        {
            shard.watch(request, slot, append(slot, 1));
        }
        return request;
    }

    private void followers(final int slot, final long leo)
    {
        purgatory.onLocalLeo(slot, 1, leo);
        purgatory.onLocalLeo(slot, 2, leo);
    }

    private void registerMirror(final int slot, final long leo)
    {
        for (int r = 0; r < 3; r++)
        {
            table.mirrorLeo(slot, MIRROR, r, leo);
        }
        table.mirrorIsr(slot, MIRROR, 0b111, 2);
        table.registeredMirrors(slot, 1 << MIRROR);
        purgatory.onMembershipChanged(slot);
    }

    @Test
    void shouldCompleteWhenTheLocalIsrReachesTheOffset()
    {
        produce(1, T0 + 30_000, 3);
        purgatory.onLocalLeo(3, 1, 1);
        shard.poll(T0);
        assertTrue(completed.isEmpty(), "one follower of two is not enough");
        purgatory.onLocalLeo(3, 2, 1);
        assertEquals(0, completed.size(), "delivered by the owner's poll, not by the completing thread");
        assertEquals(1, shard.poll(T0));
        assertEquals(List.of(AckOutcome.SUCCESS), completed.get(1L));
        assertEquals(0, shard.inFlight());
        assertEquals(0, shard.scheduledDeadlines(), "delivery cancels the deadline");
    }

    @Test
    @DisplayName("SU-04 the source acks only when every registered mirror's ISR holds the record too")
    void shouldWaitForRemoteReplicas()
    {
        registerMirror(5, 0);
        produce(1, T0 + 30_000, 5);
        followers(5, 1);
        shard.poll(T0);
        assertTrue(completed.isEmpty(), "the local ISR has it but the mirror does not");
        purgatory.onMirrorLeo(5, MIRROR, 0, 1);
        purgatory.onMirrorLeo(5, MIRROR, 1, 1);
        shard.poll(T0);
        assertTrue(completed.isEmpty(), "one mirror ISR replica still lags");
        purgatory.onMirrorLeo(5, MIRROR, 2, 1);
        shard.poll(T0);
        assertEquals(List.of(AckOutcome.SUCCESS), completed.get(1L));
        assertEquals(1, table.highWatermark(5));
    }

    @Test
    void shouldCountDownMultiPartitionRequestsAndKeepWatchOrder()
    {
        produce(7, T0 + 30_000, 1, 2, 3);
        followers(1, 1);
        followers(3, 1);
        shard.poll(T0);
        assertTrue(completed.isEmpty());
        followers(2, 1);
        shard.poll(T0);
        assertEquals(List.of(0, 0, 0), completed.get(7L));
    }

    @Test
    void shouldCompleteAPrefixOfTheFifoOnAHwAdvance()
    {
        produce(1, T0 + 30_000, 4);
        produce(2, T0 + 30_000, 4);
        produce(3, T0 + 30_000, 4);
        followers(4, 2);
        shard.poll(T0);
        assertEquals(2, completed.size());
        assertTrue(completed.containsKey(1L) && completed.containsKey(2L));
        assertEquals(1, purgatory.rings().size(4));
        followers(4, 3);
        shard.poll(T0);
        assertEquals(3, completed.size());
    }

    @Test
    void shouldCompleteAtOnceWhenTheHwIsAlreadyThere()
    {
        table.initSlot(6, 0, 0b001, 1); // RF=1: the leader's append alone advances the HW
        produce(1, T0 + 30_000, 6);
        shard.poll(T0);
        assertEquals(List.of(AckOutcome.SUCCESS), completed.get(1L));
    }

    @Test
    void shouldAnswerRequestTimedOutWhenOnlyTheLocalIsrLagsAtTheDeadline()
    {
        registerMirror(2, 100);
        produce(1, T0 + 500, 2);
        purgatory.onLocalLeo(2, 1, 1);
        shard.poll(T0 + 499);
        assertTrue(completed.isEmpty());
        shard.poll(T0 + 500);
        assertEquals(List.of(AckOutcome.of(REQUEST_TIMED_OUT)), completed.get(1L));
    }

    @Test
    @DisplayName("SI-06 a sync replication timeout names the slowest mirror (hot-path part)")
    void shouldNameTheSlowestMirrorWhenAMirrorIsTheBottleneckAtTheDeadline()
    {
        registerMirror(2, 0);
        for (int r = 0; r < 3; r++)
        {
            table.mirrorLeo(2, 1, r, 0);
        }
        table.mirrorIsr(2, 1, 0b111, 2);
        table.registeredMirrors(2, 0b11);
        purgatory.onMembershipChanged(2);
        produce(1, T0 + 500, 2);
        followers(2, 1);
        for (int r = 0; r < 3; r++)
        {
            purgatory.onMirrorLeo(2, MIRROR, r, 1);
        }
        shard.poll(T0 + 500);
        assertEquals(List.of(AckOutcome.of(MIRROR_SYNC_REPLICATION_TIMEOUT, 1)), completed.get(1L));
    }

    @Test
    @DisplayName("SI-07 a mirror under its MinISR fails waiting produces at once, naming it (hot-path part)")
    void shouldFailWaitersAtOnceWhenAMirrorFallsUnderItsMinIsr()
    {
        registerMirror(9, 0);
        produce(1, T0 + 30_000, 9);
        produce(2, T0 + 30_000, 9);
        table.mirrorIsr(9, MIRROR, 0b001, 2);
        purgatory.onMembershipChanged(9);
        shard.poll(T0);
        assertEquals(List.of(AckOutcome.of(NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, MIRROR)), completed.get(1L));
        assertEquals(List.of(AckOutcome.of(NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, MIRROR)), completed.get(2L));

        produce(3, T0 + 30_000, 9);
        shard.poll(T0);
        assertEquals(List.of(AckOutcome.of(NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, MIRROR)), completed.get(3L),
            "a produce while the mirror is under its MinISR is answered at once");
        final long frozen = table.highWatermark(9);
        followers(9, 10);
        assertEquals(frozen, table.highWatermark(9), "and the HW stays frozen");

        table.mirrorIsr(9, MIRROR, 0b111, 2);
        for (int r = 0; r < 3; r++)
        {
            purgatory.onMirrorLeo(9, MIRROR, r, leaderLeo[9]);
        }
        purgatory.onMembershipChanged(9);
        assertEquals(leaderLeo[9], table.highWatermark(9), "and resumes when the ISR recovers");
    }

    @Test
    void shouldAnswerNotEnoughReplicasAfterAppendWhenTheLocalIsrIsUnderMinAtAckTime()
    {
        produce(1, T0 + 30_000, 8);
        // The thread that advances the HW is preempted between its CAS and its drain...
        table.localLeo(8, 1, 1);
        table.localLeo(8, 2, 1);
        assertEquals(1, gate.maybeAdvance(8));
        // ...and the ISR shrinks below min.insync.replicas before the wait is acknowledged.
        table.localIsr(8, 0b001, 2);
        purgatory.onMembershipChanged(8);
        shard.poll(T0);
        assertEquals(List.of(AckOutcome.of(NOT_ENOUGH_REPLICAS_AFTER_APPEND)), completed.get(1L));
    }

    @Test
    void shouldWaitForTheDeadlineWhileTheLocalIsrIsFrozenUnderMin()
    {
        table.localIsr(8, 0b001, 2);
        purgatory.onMembershipChanged(8);
        produce(1, T0 + 30_000, 8);
        followers(8, 1);
        shard.poll(T0 + 29_999);
        assertFalse(completed.containsKey(1L), "HW frozen under min: the wait stays, as in Kafka");
        shard.poll(T0 + 30_000);
        assertEquals(List.of(AckOutcome.of(REQUEST_TIMED_OUT)), completed.get(1L));
    }

    @Test
    void shouldAnswerAFullFifoAtOnceAsIfItsDeadlineFired()
    {
        for (int i = 0; i < 4; i++)
        {
            produce(i, T0 + 30_000, 11);
        }
        assertEquals(4, purgatory.rings().size(11));
        produce(99, T0 + 30_000, 11);
        shard.poll(T0);
        assertEquals(List.of(AckOutcome.of(REQUEST_TIMED_OUT)), completed.get(99L));
        assertEquals(1, completed.size());
    }

    @Test
    void shouldReclaimFifoEntriesOfExpiredRequestsWhenFull()
    {
        for (int i = 0; i < 4; i++)
        {
            produce(i, T0 + 10, 12);
        }
        shard.poll(T0 + 10);
        assertEquals(4, completed.size());
        assertEquals(4, purgatory.rings().size(12), "expired waits stay in the FIFO until reclaimed");
        produce(50, T0 + 30_000, 12);
        assertEquals(1, purgatory.rings().size(12), "the decided heads made room");
        followers(12, leaderLeo[12]);
        shard.poll(T0 + 11);
        assertEquals(List.of(AckOutcome.SUCCESS), completed.get(50L));
    }

    @Test
    void shouldRefuseARequestItCannotTrackBeforeAnythingIsAppended()
    {
        for (int i = 0; i < 8; i++)
        {
            assertTrue(shard.begin(i, 2, T0 + 1000) >= 0);
        }
        assertEquals(RequestShard.NO_REQUEST, shard.begin(9, 1, T0 + 1000), "no request rows left");
        final RequestShard small = purgatory.newShard(4, 2, this::onComplete, OwnerWakeup.NONE, T0);
        assertEquals(RequestShard.NO_REQUEST, small.begin(1, 3, T0 + 1000), "no wait cells left");
        assertEquals(RequestShard.NO_REQUEST, small.begin(1, 0, T0 + 1000));
    }

    @Test
    void shouldNotFinishBeforeEveryWaitIsRegisteredAndRejectWatchingTooMany()
    {
        final int request = shard.begin(1, 2, T0 + 1000);
        shard.watch(request, 0, append(0, 1));
        followers(0, 1);
        shard.poll(T0);
        assertFalse(completed.containsKey(1L), "the second wait is not registered yet");
        shard.skip(request, AckOutcome.of(NOT_ENOUGH_REPLICAS_AFTER_APPEND));
        assertThrows(IllegalStateException.class, () -> shard.watch(request, 0, 5));
        shard.poll(T0);
        assertEquals(List.of(AckOutcome.SUCCESS, AckOutcome.of(NOT_ENOUGH_REPLICAS_AFTER_APPEND)), completed.get(1L));
    }

    @Test
    void shouldTimeOutAWaitTheCallerNeverRegistered()
    {
        final int request = shard.begin(2, 2, T0 + 1000);
        shard.watch(request, 1, append(1, 1));
        followers(1, 1);
        shard.poll(T0 + 1000);
        assertEquals(List.of(AckOutcome.SUCCESS, AckOutcome.of(REQUEST_TIMED_OUT)), completed.get(2L));
    }

    @Test
    void shouldDeliverEachRequestOnceWhenCompletionAndExpiryMeet()
    {
        produce(1, T0 + 100, 13, 14);
        followers(13, 1);
        shard.poll(T0 + 100); // 14 expires, 13 had completed
        assertEquals(List.of(AckOutcome.SUCCESS, AckOutcome.of(REQUEST_TIMED_OUT)), completed.get(1L));
        followers(14, 1); // a late completion finds the cell decided
        shard.poll(T0 + 200);
        assertEquals(1, completed.size());
    }

    @Test
    void shouldRecycleRequestsAndCellsWithoutConfusingOldWaits()
    {
        for (int round = 0; round < 100; round++)
        {
            produce(round, T0 + 5, 15);
            shard.poll(T0 + 5 + round); // expires; the FIFO keeps the decided wait
        }
        assertEquals(100, completed.size());
        followers(15, leaderLeo[15]); // drains 4 stale waits that refer to recycled cells: nothing happens
        shard.poll(T0 + 1000);
        assertEquals(100, completed.size());
        assertEquals(0, shard.inFlight());
    }

    @Test
    void shouldWakeAParkedOwnerOnceWhenAnotherThreadFinishesItsRequest() throws InterruptedException
    {
        final int[] wakes = new int[1];
        final RequestShard owner = purgatory.newShard(4, 4, this::onComplete, () -> wakes[0]++, T0);
        final int request = owner.begin(42, 1, T0 + 1000);
        owner.watch(request, 10, append(10, 1));
        assertTrue(owner.prepareToIdle());
        final Thread follower = new Thread(() -> followers(10, 1)); // another thread finishes the request
        follower.start();
        follower.join();
        assertEquals(1, wakes[0]);
        owner.onWake();
        assertFalse(owner.prepareToIdle(), "a finished request is waiting: poll instead of parking");
        assertEquals(1, owner.poll(T0));
        assertEquals(1, wakes[0]);
    }

    @Test
    void shouldKeepTheFifosInTheRowExtensionWithoutTouchingThePredicateCells()
    {
        final PartitionTable rows = new PartitionTable(2, 3, 1, 3, WaiterRings.bytesFor(4));
        final DelayedProducePurgatory inRow = new DelayedProducePurgatory(new HighWatermarkGate(rows), 4, 1);
        final RequestShard owner = inRow.newShard(4, 4, this::onComplete, OwnerWakeup.NONE, T0);
        rows.initSlot(1, 0, 0b111, 2);
        final int request = owner.begin(5, 1, T0 + 1000);
        inRow.onLocalLeo(1, 0, 7);
        owner.watch(request, 1, 7);
        assertEquals(1, inRow.rings().size(1));
        assertEquals(0, rows.highWatermark(1), "the ring did not overwrite the row's cells");
        assertEquals(7, rows.localLeo(1, 0));
        assertEquals(0, rows.highWatermark(0), "nor the next row's");
        inRow.onLocalLeo(1, 1, 7);
        inRow.onLocalLeo(1, 2, 7);
        owner.poll(T0);
        assertEquals(List.of(AckOutcome.SUCCESS), completed.get(5L));
        assertEquals(0, inRow.rings().size(1));
    }

    @Test
    void shouldDeliverARequestTheOwnerFinishedItselfWithoutAWakeUp()
    {
        final int[] wakes = new int[1];
        final RequestShard owner = purgatory.newShard(4, 4, this::onComplete, () -> wakes[0]++, T0);
        final int request = owner.begin(43, 1, T0 + 1000);
        owner.skip(request, AckOutcome.SUCCESS);
        assertFalse(owner.prepareToIdle(), "its own finished request is waiting");
        assertEquals(1, owner.poll(T0));
        assertEquals(List.of(AckOutcome.SUCCESS), completed.get(43L));
        assertEquals(0, wakes[0]);
        assertTrue(owner.prepareToIdle());
    }

    @Test
    void shouldFailEveryWaitOfASlotWhoseLeadershipIsLost()
    {
        produce(1, T0 + 30_000, 7);
        produce(2, T0 + 30_000, 7, 8);
        purgatory.failWaits(7, AckOutcome.of(MirrorError.NOT_LEADER_OR_FOLLOWER));
        table.initSlot(7, 0, 0b111, 2); // a new leadership of another partition in this slot
        followers(8, leaderLeo[8]);
        purgatory.onLocalLeo(7, 0, 5);
        followers(7, 5);
        shard.poll(T0);
        final int notLeader = AckOutcome.of(MirrorError.NOT_LEADER_OR_FOLLOWER);
        assertEquals(List.of(notLeader), completed.get(1L));
        assertEquals(List.of(notLeader, AckOutcome.SUCCESS), completed.get(2L));
        assertEquals(0, purgatory.rings().size(7));
    }
}

package io.syncmirror.hwgate;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.offheap.PartitionTable;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

import static io.syncmirror.hwgate.HighWatermarkGate.NO_ADVANCE;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HighWatermarkGateTest
{
    private static final int SLOT = 1;
    private static final int A = 0;
    private static final int B = 1;

    private final PartitionTable table = new PartitionTable(4, 3, 2, 3);
    private final HighWatermarkGate gate = new HighWatermarkGate(table);

    private void localLeos(final long... leos)
    {
        for (int i = 0; i < leos.length; i++)
        {
            table.localLeo(SLOT, i, leos[i]);
        }
    }

    private void mirror(final int mirror, final int minIsr, final long... leos)
    {
        for (int i = 0; i < leos.length; i++)
        {
            table.mirrorLeo(SLOT, mirror, i, leos[i]);
        }
        table.mirrorIsr(SLOT, mirror, (1 << leos.length) - 1, minIsr);
    }

    @Test
    @DisplayName("SU-13 the sync text's worked example: (100,100,99) / A (95,97,96) / B (90,88) gives HW 88")
    void shouldComputeTheSpecExample()
    {
        table.initSlot(SLOT, 0, 0b111, 2);
        localLeos(100, 100, 99);
        mirror(A, 2, 95, 97, 96);
        mirror(B, 1, 90, 88);
        table.registeredMirrors(SLOT, 0b11);
        assertEquals(88, gate.maybeAdvance(SLOT));
        assertEquals(88, table.highWatermark(SLOT));
    }

    @Test
    @DisplayName("SU-13 an empty registered-mirror set is single-cluster Kafka: HW = min LEO of the local ISR")
    void shouldBehaveAsKafkaWithoutRegisteredMirrors()
    {
        table.initSlot(SLOT, 0, 0b111, 2);
        localLeos(100, 100, 99);
        mirror(A, 2, 5, 5, 5); // reported but not registered: ignored
        assertEquals(99, gate.maybeAdvance(SLOT));
    }

    @Test
    @DisplayName("SU-13 a released (unregistered) mirror no longer holds the HW back, and removing it recomputes")
    void shouldExcludeReleasedMirrors()
    {
        table.initSlot(SLOT, 0, 0b111, 2);
        localLeos(100, 100, 99);
        mirror(A, 2, 95, 97, 96);
        mirror(B, 1, 90, 88);
        table.registeredMirrors(SLOT, 0b11);
        assertEquals(88, gate.maybeAdvance(SLOT));
        table.registeredMirrors(SLOT, 1 << A);
        assertEquals(95, gate.maybeAdvance(SLOT));
        table.registeredMirrors(SLOT, 0);
        assertEquals(99, gate.maybeAdvance(SLOT));
    }

    @Test
    @DisplayName("SU-13 under-min-ISR freeze on the source side: |local ISR| < min.insync.replicas freezes the HW")
    void shouldFreezeWhenLocalIsrIsUnderMin()
    {
        table.initSlot(SLOT, 10, 0b111, 2);
        localLeos(50, 50, 50);
        table.localIsr(SLOT, 0b001, 2);
        assertEquals(NO_ADVANCE, gate.maybeAdvance(SLOT));
        assertEquals(10, table.highWatermark(SLOT));
        assertTrue(gate.localIsrBelowMin(SLOT));
        table.localIsr(SLOT, 0b011, 2);
        assertEquals(50, gate.maybeAdvance(SLOT));
    }

    @Test
    @DisplayName("SU-13 under-min-ISR freeze on a destination: a registered mirror reporting |ISR| < MinISR freezes the HW")
    void shouldFreezeWhenARegisteredMirrorIsUnderItsMinIsr()
    {
        table.initSlot(SLOT, 10, 0b111, 2);
        localLeos(50, 50, 50);
        table.registeredMirrors(SLOT, 1 << A);
        table.mirrorLeo(SLOT, A, 0, 40);
        table.mirrorIsr(SLOT, A, 0b001, 2);
        assertEquals(NO_ADVANCE, gate.maybeAdvance(SLOT));
        assertEquals(A, gate.remoteBelowMinIsr(SLOT));
        table.mirrorLeo(SLOT, A, 1, 45);
        table.mirrorIsr(SLOT, A, 0b011, 2);
        assertEquals(40, gate.maybeAdvance(SLOT));
        assertEquals(-1, gate.remoteBelowMinIsr(SLOT));
    }

    @Test
    void shouldFreezeWhileARegisteredMirrorHasNotReported()
    {
        table.initSlot(SLOT, 10, 0b111, 2);
        localLeos(50, 50, 50);
        table.registeredMirrors(SLOT, 1 << A);
        assertEquals(NO_ADVANCE, gate.maybeAdvance(SLOT));
        assertEquals(-1, gate.remoteBelowMinIsr(SLOT), "no report yet is not an under-MinISR report");
        mirror(A, 1, 30, 30, 30);
        assertEquals(30, gate.maybeAdvance(SLOT));
        table.clearMirror(SLOT, A);
        table.localLeo(SLOT, 0, 60);
        assertEquals(NO_ADVANCE, gate.maybeAdvance(SLOT), "a cleared mirror freezes until its next full report");
    }

    @Test
    void shouldCountOnlyIsrMembers()
    {
        table.initSlot(SLOT, 0, 0b101, 2);
        localLeos(100, 3, 90);
        assertEquals(90, gate.maybeAdvance(SLOT), "replica 1 is out of the ISR");
        table.registeredMirrors(SLOT, 1 << B);
        table.mirrorLeo(SLOT, B, 0, 95);
        table.mirrorLeo(SLOT, B, 1, 1);
        table.mirrorLeo(SLOT, B, 2, 92);
        table.mirrorLeo(SLOT, B, 0, 95);
        table.mirrorIsr(SLOT, B, 0b101, 2);
        table.localLeo(SLOT, 2, 100);
        assertEquals(92, gate.maybeAdvance(SLOT));
    }

    @Test
    void shouldNeverMoveBackwards()
    {
        table.initSlot(SLOT, 0, 0b111, 1);
        localLeos(100, 100, 100);
        assertEquals(100, gate.maybeAdvance(SLOT));
        table.registeredMirrors(SLOT, 1 << A);
        mirror(A, 1, 60, 60, 60);
        assertEquals(NO_ADVANCE, gate.maybeAdvance(SLOT));
        assertEquals(100, table.highWatermark(SLOT));
        assertEquals(60, gate.candidate(SLOT));
    }

    @Test
    void shouldFailAStaleCasAfterAMembershipChange()
    {
        table.initSlot(SLOT, 0, 0b111, 2);
        localLeos(100, 100, 100);
        final long staleWord = table.hwWord(SLOT);
        table.localIsr(SLOT, 0b011, 2); // a membership change between a recompute's read and its CAS
        assertFalse(table.buffer().compareAndSetLong(table.rowOffset(SLOT),
            staleWord, io.syncmirror.offheap.PartitionRowDescriptor.hwWord(100, staleWord)));
        assertEquals(100, gate.maybeAdvance(SLOT), "the recompute re-reads and succeeds");
    }

    @Test
    void shouldClassifyAtAckTime()
    {
        table.initSlot(SLOT, 0, 0b111, 2);
        assertEquals(AckOutcome.SUCCESS, gate.ackTimeOutcome(SLOT));
        table.registeredMirrors(SLOT, 0b11);
        mirror(A, 2, 10, 10, 10);
        table.mirrorIsr(SLOT, B, 0b1, 2);
        assertEquals(AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, B), gate.ackTimeOutcome(SLOT));
        table.localIsr(SLOT, 0b1, 2);
        assertEquals(AckOutcome.of(MirrorError.NOT_ENOUGH_REPLICAS_AFTER_APPEND), gate.ackTimeOutcome(SLOT),
            "the local check comes first, as in Kafka");
    }

    @Test
    void shouldNameTheSlowestMirrorWhenAMirrorIsTheBottleneckAtTheDeadline()
    {
        table.initSlot(SLOT, 0, 0b111, 2);
        localLeos(100, 100, 100);
        table.registeredMirrors(SLOT, 0b11);
        mirror(A, 2, 80, 90, 90);
        mirror(B, 2, 70, 95, 95);
        gate.maybeAdvance(SLOT);
        assertEquals(AckOutcome.of(MirrorError.MIRROR_SYNC_REPLICATION_TIMEOUT, B), gate.expiryOutcome(SLOT, 100));
        assertEquals(AckOutcome.SUCCESS, gate.expiryOutcome(SLOT, 70), "reached: ack-time rules");
    }

    @Test
    void shouldAnswerRequestTimedOutWhenOnlyTheLocalIsrLagsAtTheDeadline()
    {
        table.initSlot(SLOT, 0, 0b111, 2);
        localLeos(100, 100, 60);
        table.registeredMirrors(SLOT, 1 << A);
        mirror(A, 2, 100, 100, 100);
        gate.maybeAdvance(SLOT);
        assertEquals(AckOutcome.of(MirrorError.REQUEST_TIMED_OUT), gate.expiryOutcome(SLOT, 100));
        table.registeredMirrors(SLOT, 0);
        assertEquals(AckOutcome.of(MirrorError.REQUEST_TIMED_OUT), gate.expiryOutcome(SLOT, 100));
    }

    @Test
    void shouldAnswerRemoteUnderMinAtTheDeadlineWhenAMirrorIsUnderItsMinIsr()
    {
        table.initSlot(SLOT, 0, 0b111, 2);
        localLeos(100, 100, 100);
        table.registeredMirrors(SLOT, 1 << A);
        table.mirrorIsr(SLOT, A, 0b1, 3);
        assertEquals(AckOutcome.of(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND, A),
            gate.expiryOutcome(SLOT, 100));
    }

    @Test
    @DisplayName("SU-13 a batch of LEO reports (local and mirror cells, one slot twice) gives each slot the HW its "
        + "last report allows, at the slot's first recompute, and a frozen slot none")
    void shouldAdvanceABatchAsOneReportAtATime()
    {
        for (int slot = 0; slot < 4; slot++)
        {
            table.initSlot(slot, 0, 0b111, 2);
            table.mirrorIsr(slot, A, 0b111, 2);
            table.registeredMirrors(slot, 1 << A);
        }
        table.mirrorIsr(3, A, 0b001, 2); // under its MinISR: frozen
        for (int slot = 0; slot < 4; slot++)
        {
            for (int r = 0; r < 3; r++)
            {
                table.localLeo(slot, r, 10);
                table.mirrorLeo(slot, A, r, 10);
            }
        }
        final int[] slots = {0, 1, 0, 2, 3};
        final int[] cells = {table.localLeoCell(2), table.mirrorLeoCell(A, 1), table.localLeoCell(2),
            table.localLeoCell(0), table.localLeoCell(1)};
        final long[] leos = {12, 11, 13, 14, 15};
        final long[] advanced = new long[slots.length];
        // Every other cell of slots 0..3 at 20 first, so that each slot's minimum is the cell the batch moves.
        for (int slot = 0; slot < 4; slot++)
        {
            for (int r = 0; r < 3; r++)
            {
                table.localLeo(slot, r, 20);
                table.mirrorLeo(slot, A, r, 20);
            }
        }
        table.localLeo(0, 2, 10);
        table.mirrorLeo(1, A, 1, 10);
        table.localLeo(2, 0, 10);
        table.localLeo(3, 1, 10);
        gate.onLeos(slots, cells, leos, slots.length, advanced);
        // Every store comes before every recompute: slot 0's first recompute already counts its second report.
        assertEquals(13, advanced[0], "slot 0, both of its reports");
        assertEquals(11, advanced[1], "slot 1 by its mirror cell");
        assertEquals(NO_ADVANCE, advanced[2], "slot 0 again: nothing new");
        assertEquals(14, advanced[3]);
        assertEquals(NO_ADVANCE, advanced[4], "slot 3 is frozen under its mirror's MinISR");
        assertEquals(13, table.localLeo(0, 2));
        assertEquals(11, table.mirrorLeo(1, A, 1));
        assertEquals(13, table.highWatermark(0));
        assertEquals(0, table.highWatermark(3));
    }
}

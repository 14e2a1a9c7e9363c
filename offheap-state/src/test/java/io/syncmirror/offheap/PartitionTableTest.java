package io.syncmirror.offheap;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PartitionTableTest
{
    @Test
    void shouldHoldOneHundredThousandPartitionsInUnderTenMegabytes()
    {
        final PartitionTable table = new PartitionTable(100_000, 3, 1, 3);
        assertEquals(88, table.layout().rowBytes());
        assertTrue(table.allocatedBytes() >= 8_000_000L);
        assertTrue(table.allocatedBytes() < 10_000_000L, "allocated " + table.allocatedBytes());
    }

    @Test
    void shouldStoreEachCellIndependently()
    {
        final PartitionTable table = new PartitionTable(4, 3, 2, 3);
        table.initSlot(2, 10, 0b111, 2);
        table.localLeo(2, 1, 42);
        table.mirrorLeo(2, 1, 2, 17);
        table.mirrorIsr(2, 1, 0b101, 2);
        table.registeredMirrors(2, 0b10);

        assertEquals(10, table.highWatermark(2));
        assertEquals(42, table.localLeo(2, 1));
        assertEquals(0, table.localLeo(2, 0));
        assertEquals(17, table.mirrorLeo(2, 1, 2));
        assertEquals(0, table.mirrorLeo(2, 0, 2));
        assertEquals(0b101, PartitionRowDescriptor.isrMask(table.mirrorIsrWord(2, 1)));
        assertEquals(2, PartitionRowDescriptor.minIsr(table.mirrorIsrWord(2, 1)));
        assertEquals(0b10, table.registeredMirrors(2));
        assertEquals(0b111, PartitionRowDescriptor.isrMask(table.localIsrWord(2)));
        // neighbouring rows untouched
        assertEquals(0, table.localLeo(1, 1));
        assertEquals(0, table.localLeo(3, 1));
        assertEquals(0, table.highWatermark(3));
    }

    @Test
    void shouldBumpMembershipVersionOnEveryMembershipChangeButNotOnLeoWrites()
    {
        final PartitionTable table = new PartitionTable(1, 3, 1, 3);
        table.initSlot(0, 5, 0b111, 2);
        int version = table.membershipVersion(0);

        table.localLeo(0, 0, 9);
        table.mirrorLeo(0, 0, 0, 9);
        assertEquals(version, table.membershipVersion(0));

        table.localIsr(0, 0b011, 2);
        assertNotEquals(version, version = table.membershipVersion(0));
        table.registeredMirrors(0, 1);
        assertNotEquals(version, version = table.membershipVersion(0));
        table.mirrorIsr(0, 0, 0b111, 2);
        assertNotEquals(version, version = table.membershipVersion(0));
        table.clearMirror(0, 0);
        assertNotEquals(version, table.membershipVersion(0));
        assertEquals(5, table.highWatermark(0), "membership changes never move the HW");
    }

    @Test
    void shouldForgetMirrorReportOnClear()
    {
        final PartitionTable table = new PartitionTable(1, 3, 1, 3);
        table.initSlot(0, 0, 0b111, 2);
        table.mirrorIsr(0, 0, 0b111, 2);
        table.mirrorLeo(0, 0, 1, 50);
        table.clearMirror(0, 0);
        assertEquals(0, table.mirrorIsrWord(0, 0));
        assertEquals(0, table.mirrorLeo(0, 0, 1));
    }

    @Test
    void shouldResetRowAndAllowLowerHighWatermarkOnInit()
    {
        final PartitionTable table = new PartitionTable(1, 3, 1, 3);
        table.initSlot(0, 100, 0b111, 2);
        table.localLeo(0, 2, 120);
        table.registeredMirrors(0, 1);
        table.initSlot(0, 90, 0b001, 1);
        assertEquals(90, table.highWatermark(0));
        assertEquals(0, table.localLeo(0, 2));
        assertEquals(0, table.registeredMirrors(0));
    }

    @Test
    void shouldRejectOffsetsOutsideTheHwWord()
    {
        final PartitionTable table = new PartitionTable(1, 3, 1, 3);
        assertThrows(IllegalArgumentException.class, () -> table.localLeo(0, 0, -1));
        assertThrows(IllegalArgumentException.class,
            () -> table.mirrorLeo(0, 0, 0, PartitionRowDescriptor.MAX_OFFSET + 1));
        assertThrows(IllegalArgumentException.class, () -> table.initSlot(0, -5, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new PartitionTable(0, 3, 1, 3));
        assertThrows(IllegalArgumentException.class, () -> new PartitionTable(30_000_000, 32, 32, 32));
    }

    @Test
    void shouldAdmitJoiningIsrMembersOnlyAtOrAboveTheHighWatermark()
    {
        final PartitionTable table = new PartitionTable(1, 3, 1, 3);
        table.initSlot(0, 50, 0b011, 2);
        table.localLeo(0, 2, 49);
        assertFalse(table.localIsrIfCaughtUp(0, 0b111, 2));
        assertEquals(0b011, PartitionRowDescriptor.isrMask(table.localIsrWord(0)));
        table.localLeo(0, 2, 50);
        assertTrue(table.localIsrIfCaughtUp(0, 0b111, 2));
        assertEquals(0b111, PartitionRowDescriptor.isrMask(table.localIsrWord(0)));
        assertTrue(table.localIsrIfCaughtUp(0, 0b001, 1), "a shrink always succeeds");
    }

    @Test
    void shouldRegisterAMirrorOnlyWhenItsReportedIsrCaughtUp()
    {
        final PartitionTable table = new PartitionTable(1, 3, 1, 3);
        table.initSlot(0, 50, 0b111, 2);
        assertFalse(table.registeredMirrorsIfCaughtUp(0, 1), "no report yet");
        table.mirrorIsr(0, 0, 0b011, 2);
        table.mirrorLeo(0, 0, 0, 60);
        table.mirrorLeo(0, 0, 1, 40);
        assertFalse(table.registeredMirrorsIfCaughtUp(0, 1));
        table.mirrorLeo(0, 0, 1, 50);
        assertTrue(table.registeredMirrorsIfCaughtUp(0, 1));
        assertEquals(1, table.registeredMirrors(0));

        table.mirrorLeo(0, 0, 2, 10);
        assertFalse(table.mirrorIsrIfCaughtUp(0, 0, 0b111, 2), "a lagging destination replica cannot join");
        table.mirrorLeo(0, 0, 2, 55);
        assertTrue(table.mirrorIsrIfCaughtUp(0, 0, 0b111, 2));
        assertTrue(table.registeredMirrorsIfCaughtUp(0, 0), "unregistering always succeeds");
    }

    @Test
    void shouldKeepEachMirrorsMinLeoOverItsReportedIsr()
    {
        final PartitionTable table = new PartitionTable(4, 3, 2, 3);
        table.initSlot(1, 0, 0b111, 2);
        assertEquals(0, table.mirrorMinLeo(1, 0), "no report yet");
        table.mirrorLeos(1, 0, new long[] {30, 20, 10}, 3);
        assertEquals(0, table.mirrorMinLeo(1, 0), "no reported ISR: nothing to take the minimum of");
        table.mirrorIsr(1, 0, 0b011, 2);
        assertEquals(20, table.mirrorMinLeo(1, 0), "the ISR leaves out replica 2");
        table.mirrorLeo(1, 0, 1, 40);
        assertEquals(30, table.mirrorMinLeo(1, 0));
        assertTrue(table.mirrorIsrIfCaughtUp(1, 0, 0b111, 2), "the mirror gates nothing: any ISR is taken");
        assertEquals(10, table.mirrorMinLeo(1, 0), "replica 2 joined");
        table.publishLeos(new int[] {1, 1}, new int[] {table.mirrorLeoCell(0, 2), table.localLeoCell(1)},
            new long[] {35, 5}, 2);
        assertEquals(30, table.mirrorMinLeo(1, 0), "a batch's mirror cell moves its block's minimum");
        assertEquals(0, table.mirrorMinLeo(1, 1), "another link's block is left alone");
        table.clearMirror(1, 0);
        assertEquals(0, table.mirrorMinLeo(1, 0));
        table.mirrorIsr(1, 1, 0b001, 1);
        table.mirrorLeo(1, 1, 0, 7);
        table.initSlot(1, 0, 0b111, 2);
        assertEquals(0, table.mirrorMinLeo(1, 1), "a new leadership starts without reports");
    }
}

package io.syncmirror.offheap;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class PartitionRowDescriptorTest
{
    @Test
    void shouldFitThreeLocalReplicasAndOneMirrorOfThreeIn88Bytes()
    {
        final PartitionRowDescriptor layout = new PartitionRowDescriptor(3, 1, 3);
        assertEquals(88, layout.rowBytes());
        assertTrue(layout.rowBytes() <= 128);
        assertEquals(128, new PartitionRowDescriptor(3, 2, 3).rowBytes());
        assertEquals(48, new PartitionRowDescriptor(3, 0, 0).rowBytes());
    }

    @Test
    void shouldLayCellsOutWithoutOverlap()
    {
        final PartitionRowDescriptor layout = new PartitionRowDescriptor(3, 2, 3);
        assertEquals(24, layout.localLeoOffset(0));
        assertEquals(40, layout.localLeoOffset(2));
        assertEquals(48, layout.mirrorBlockOffset(0));
        assertEquals(64, layout.mirrorLeoOffset(0, 0));
        assertEquals(80, layout.mirrorLeoOffset(0, 2));
        assertEquals(88, layout.mirrorBlockOffset(1));
        assertEquals(120, layout.mirrorLeoOffset(1, 2));
        assertEquals(layout.rowBytes(), layout.mirrorLeoOffset(1, 2) + Long.BYTES);
    }

    @Test
    void shouldNameTheMirrorBlockOfACell()
    {
        final PartitionRowDescriptor layout = new PartitionRowDescriptor(3, 2, 3);
        assertEquals(-1, layout.mirrorOfCell(layout.localLeoOffset(0)));
        assertEquals(-1, layout.mirrorOfCell(layout.localLeoOffset(2)));
        assertEquals(0, layout.mirrorOfCell(layout.mirrorLeoOffset(0, 0)));
        assertEquals(0, layout.mirrorOfCell(layout.mirrorLeoOffset(0, 2)));
        assertEquals(1, layout.mirrorOfCell(layout.mirrorLeoOffset(1, 0)));
        assertEquals(1, layout.mirrorOfCell(layout.mirrorLeoOffset(1, 2)));
        assertEquals(-1, new PartitionRowDescriptor(3, 0, 0).mirrorOfCell(40));
    }

    @Test
    void shouldPackHighWatermarkWithMembershipVersion()
    {
        final long word = PartitionRowDescriptor.hwWord(123_456_789L, 4095);
        assertEquals(123_456_789L, PartitionRowDescriptor.highWatermark(word));
        assertEquals(4095, PartitionRowDescriptor.membershipVersion(word));
        assertEquals(0, PartitionRowDescriptor.membershipVersion(PartitionRowDescriptor.hwWord(7, 4096)));
        final long max = PartitionRowDescriptor.hwWord(PartitionRowDescriptor.MAX_OFFSET, 1);
        assertEquals(PartitionRowDescriptor.MAX_OFFSET, PartitionRowDescriptor.highWatermark(max));
    }

    @Test
    void shouldPackIsrMaskWithMinimum()
    {
        final long word = PartitionRowDescriptor.isrWord(0x8000_0005, 2);
        assertEquals(0x8000_0005, PartitionRowDescriptor.isrMask(word));
        assertEquals(2, PartitionRowDescriptor.minIsr(word));
    }

    @Test
    void shouldRejectCapacitiesItCannotDescribe()
    {
        assertThrows(IllegalArgumentException.class, () -> new PartitionRowDescriptor(0, 1, 3));
        assertThrows(IllegalArgumentException.class, () -> new PartitionRowDescriptor(33, 1, 3));
        assertThrows(IllegalArgumentException.class, () -> new PartitionRowDescriptor(3, 1, 0));
        assertThrows(IllegalArgumentException.class, () -> new PartitionRowDescriptor(3, 33, 3));
    }

    @Test
    void shouldPlaceAnAlignedExtensionAfterThePredicateCells()
    {
        final PartitionRowDescriptor layout = new PartitionRowDescriptor(3, 1, 3, 141);
        assertEquals(88, layout.predicateBytes());
        assertEquals(88, layout.extensionOffset());
        assertEquals(144, layout.extensionBytes());
        assertEquals(232, layout.rowBytes());
        assertEquals(0, new PartitionRowDescriptor(3, 1, 3).extensionBytes());
    }
}

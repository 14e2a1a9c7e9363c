package io.syncmirror.broker.replica;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MirrorReportCellsTest
{
    private final MirrorReportCells cells = new MirrorReportCells(2, 4);

    @Test
    void shouldKeepEachReplicasCellAcrossReportsOfOneDestinationLeader()
    {
        assertTrue(cells.beginReport(0, 3), "the link's first report starts its cells");
        assertEquals(2, cells.mapLeos(0, new int[] {7, 8}, new long[] {10, 12}, 2));
        assertArrayEquals(new long[] {10, 12}, java.util.Arrays.copyOf(cells.reportLeos, 2));

        assertFalse(cells.beginReport(0, 3));
        assertEquals(3, cells.mapLeos(0, new int[] {9, 7}, new long[] {5, 11}, 2));
        assertArrayEquals(new long[] {11, 0, 5}, java.util.Arrays.copyOf(cells.reportLeos, 3),
            "replica 8 keeps its cell at LEO 0 when a report leaves it out; replica 9 takes the next cell");
        assertEquals(0b101, cells.isrMask(0, 3, new int[] {7, 9, 42}, 3), "an ISR member without a cell counts not");
    }

    @Test
    void shouldStartAfreshForANewerDestinationLeaderAndIgnoreADeposedOne()
    {
        cells.beginReport(0, 3);
        cells.mapLeos(0, new int[] {7, 8}, new long[] {10, 12}, 2);

        assertTrue(cells.isFromDeposedLeader(0, 2));
        assertFalse(cells.isFromDeposedLeader(0, 3));
        assertTrue(cells.beginReport(0, 4));
        assertEquals(1, cells.mapLeos(0, new int[] {8}, new long[] {-1}, 1), "a negative LEO counts as 0");
        assertEquals(0, cells.reportLeos[0]);
        assertTrue(cells.isFromDeposedLeader(0, 3));
    }

    @Test
    void shouldForgetALinksPreviousHolderOnlyForANewGeneration()
    {
        cells.linkJoined(1, 1);
        cells.beginReport(1, 5);
        cells.mapLeos(1, new int[] {7}, new long[] {10}, 1);

        cells.linkJoined(1, 1);
        assertFalse(cells.beginReport(1, 5), "the same holder joining again keeps its cells");
        cells.linkJoined(1, 2);
        assertFalse(cells.isFromDeposedLeader(1, 0), "a new holder's destination epochs start over");
        assertTrue(cells.beginReport(1, 0));
    }

    @Test
    void shouldStartAfreshAfterTheLinkWasForgottenOrReset()
    {
        cells.beginReport(0, 3);
        cells.forget(0);
        assertTrue(cells.beginReport(0, 3));
        cells.reset();
        assertFalse(cells.isFromDeposedLeader(0, 0));
        assertTrue(cells.beginReport(0, 0));
    }
}

package io.syncmirror.broker.replica;

import java.util.Arrays;

/**
 * What the sync mirrors reported for one source partition, by mirror link: which destination replica each
 * reported LEO cell belongs to and the newest destination leader epoch that reported, and the mapping of one
 * report onto those cells. A partition allocates one when its topic first gets a registered mirror, so partitions
 * no sync mirror gates (every destination replica among them) carry none. Guarded by the partition's append lock.
 */
final class MirrorReportCells
{
    /** Per link, the destination replica id of each reported LEO cell, in order of first report (null: none). */
    final int[][] replicaIds;
    /** Per link, the highest destination leader epoch that reported: reports from a deposed leader are ignored. */
    final int[] destinationEpoch;
    /** Per link, the generation of its holder when the state above was kept (MirrorLinks). */
    private final int[] linkGeneration;
    /** Scratch LEOs of one report, by cell. */
    final long[] reportLeos;

    MirrorReportCells(final int links, final int maxReplicas)
    {
        this.replicaIds = new int[links][];
        this.destinationEpoch = new int[links];
        this.linkGeneration = new int[links];
        this.reportLeos = new long[maxReplicas];
        Arrays.fill(destinationEpoch, -1);
    }

    /** Forgets every link's reports (a new leadership, or a truncation that starts a fresh row). */
    void reset()
    {
        Arrays.fill(replicaIds, null);
        Arrays.fill(destinationEpoch, -1);
    }

    /**
     * Link {@code link} joined the topic's registrations, held at {@code generation}: a new holder of the link
     * forgets the previous holder's destination epoch and replicas.
     */
    void linkJoined(final int link, final int generation)
    {
        if (generation != linkGeneration[link])
        {
            linkGeneration[link] = generation;
            replicaIds[link] = null;
            destinationEpoch[link] = -1;
        }
    }

    /** Forgets what link {@code link} reported (its destination reconnected and left this partition out). */
    void forget(final int link)
    {
        replicaIds[link] = null;
    }

    /** Whether a report from destination leader epoch {@code destinationLeaderEpoch} comes from a deposed leader. */
    boolean isFromDeposedLeader(final int link, final int destinationLeaderEpoch)
    {
        return destinationLeaderEpoch < destinationEpoch[link];
    }

    /**
     * Starts a report of link {@code link} from destination leader epoch {@code destinationLeaderEpoch}: a newer
     * destination leader (or the link's first report) starts its cells afresh.
     *
     * @return whether the cells started afresh (the caller then forgets what the row holds for the link)
     */
    boolean beginReport(final int link, final int destinationLeaderEpoch)
    {
        if (destinationLeaderEpoch > destinationEpoch[link] || replicaIds[link] == null)
        {
            destinationEpoch[link] = destinationLeaderEpoch;
            final int[] ids = new int[reportLeos.length];
            Arrays.fill(ids, -1);
            replicaIds[link] = ids;
            return true;
        }
        return false;
    }

    /**
     * Maps the report {@link #beginReport} started onto the link's cells: each replica keeps the cell of its first
     * report, and {@link #reportLeos} takes each cell's LEO (0 for a replica this report left out).
     *
     * @return the number of cells in use
     */
    int mapLeos(final int link, final int[] replicaIdsReported, final long[] leos, final int replicaCount)
    {
        final int[] ids = replicaIds[link];
        int cells = 0;
        while (cells < ids.length && ids[cells] >= 0)
        {
            reportLeos[cells] = 0L;
            cells++;
        }
        for (int r = 0; r < replicaCount; r++)
        {
            int cell = indexOf(ids, cells, replicaIdsReported[r]);
            if (cell < 0 && cells < ids.length)
            {
                cell = cells++;
                ids[cell] = replicaIdsReported[r];
            }
            if (cell >= 0)
            {
                reportLeos[cell] = Math.max(0L, leos[r]);
            }
        }
        return cells;
    }

    /** The cells of link {@code link} (of the first {@code cells}) that the reported ISR {@code isrIds} holds. */
    int isrMask(final int link, final int cells, final int[] isrIds, final int isrCount)
    {
        final int[] ids = replicaIds[link];
        int mask = 0;
        for (int i = 0; i < isrCount; i++)
        {
            final int cell = indexOf(ids, cells, isrIds[i]);
            if (cell >= 0)
            {
                mask |= 1 << cell;
            }
        }
        return mask;
    }

    private static int indexOf(final int[] ids, final int count, final int id)
    {
        for (int i = 0; i < count; i++)
        {
            if (ids[i] == id)
            {
                return i;
            }
        }
        return -1;
    }
}

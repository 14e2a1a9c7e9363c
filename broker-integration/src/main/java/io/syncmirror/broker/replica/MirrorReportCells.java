package io.syncmirror.broker.replica;

import java.util.Arrays;

/**
 * What the sync mirrors reported for one source partition, by mirror link: which destination replica each
 * reported LEO cell belongs to and the newest destination leader epoch that reported. A partition allocates one
 * when its topic first gets a registered mirror, so partitions no sync mirror gates (every destination replica
 * among them) carry none. Guarded by the partition's append lock.
 */
final class MirrorReportCells
{
    /** Per link, the destination replica id of each reported LEO cell, in order of first report (null: none). */
    final int[][] replicaIds;
    /** Per link, the highest destination leader epoch that reported: reports from a deposed leader are ignored. */
    final int[] destinationEpoch;
    /** Per link, the generation of its holder when the state above was kept (MirrorLinks). */
    final int[] linkGeneration;
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
}

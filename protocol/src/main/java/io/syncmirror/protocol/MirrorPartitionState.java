package io.syncmirror.protocol;

/**
 * The lifecycle of one mirror partition on the destination (KIP-1279, Figure 3), with the byte each state has in
 * {@code __mirror_state} and in DescribeClusterMirrors. Immutable.
 *
 * <ul>
 *   <li>UNKNOWN: no state recorded yet (a partition just added to a mirror).</li>
 *   <li>PREPARING: aligning the log with the source (truncation) and waiting until every ISR member has too.</li>
 *   <li>MIRRORING: the mirror fetcher appends what the source has committed; the topic is read-only.</li>
 *   <li>STOPPING: failing over: fetcher removed, epoch bumped, open transactions aborted.</li>
 *   <li>STOPPED: failed over; the topic is writable.</li>
 *   <li>FAILED: an error stopped the partition (surfaced in describe and metrics); retried with backoff.</li>
 * </ul>
 */
public enum MirrorPartitionState
{
    UNKNOWN(0),
    PREPARING(1),
    MIRRORING(2),
    STOPPING(3),
    STOPPED(4),
    FAILED(5);

    private static final MirrorPartitionState[] BY_ID = values();

    private final byte id;

    MirrorPartitionState(final int id)
    {
        this.id = (byte)id;
    }

    public byte id()
    {
        return id;
    }

    /** The name of the state with this id, or {@code STATE_<id>} for one this version does not know. */
    public static String nameOf(final int id)
    {
        return id >= 0 && id < BY_ID.length ? BY_ID[id].name() : "STATE_" + id;
    }

    /** The state with this id; throws IllegalArgumentException for an unknown one (a corrupt record). */
    public static MirrorPartitionState forId(final int id)
    {
        if (id < 0 || id >= BY_ID.length)
        {
            throw new IllegalArgumentException("unknown mirror partition state " + id);
        }
        return BY_ID[id];
    }
}

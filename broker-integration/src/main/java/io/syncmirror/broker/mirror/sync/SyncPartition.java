package io.syncmirror.broker.mirror.sync;

/**
 * A mirror partition led here, as the sync control sees it: whether it mirrors, its lag, its reports to the source
 * and, on the topic's driver (partition 0), the desired type and Register attempts its record persists.
 */
public interface SyncPartition
{
    /** The partition's index in its topic. */
    int index();

    /** MIRRORING: it fetches from the source. */
    boolean mirroring();

    /** Source HW minus the destination LEO, 0 when ahead, -1 before the source HW is known. */
    long lag();

    /** It reports its replica state to the source. */
    boolean reportingSync();

    /** Since when every report failed on a registration error (ms), -1 while its reports succeed. */
    long syncFailingSince();

    /** The registration error the last report got, 0 when it succeeded. */
    short lastSyncFailure();

    /** The desired mirror type its record persists. */
    byte desiredMirrorType();

    /** Register attempts since the last admitted one, as its record persists. */
    int registerAttempts();

    /**
     * On the driver: its record says the source may hold a registration of the topic that no acknowledged
     * Unregister has undone (a Register went out since the last one).
     */
    boolean registrationOwed();

    /** The leader epoch under which this broker leads the partition (partition 0's numbers the driver's requests). */
    int leaderEpoch();
}

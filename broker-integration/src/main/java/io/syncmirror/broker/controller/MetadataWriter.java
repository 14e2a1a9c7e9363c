package io.syncmirror.broker.controller;

import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * How a control manager changes the metadata: {@link #emit} applies a record to the controller's state at once
 * and queues it, {@link #commit} appends what is queued to the metadata log as one batch. The {@link Controller}
 * is the only implementation; it refuses an emit with NOT_CONTROLLER, before anything changes, where its log is
 * not writable (a standby of the metadata quorum). Thread-safety: the controller's event thread.
 */
interface MetadataWriter
{
    /** Applies {@code record} to the controller's state and queues it for the next {@link #commit}. */
    void emit(MetadataRecord record);

    /** Appends the records emitted since the last commit as one batch; nothing when none were. */
    void commit();

    /** The metadata offset the next record emitted will have (a broker's epoch is its registration's offset). */
    long nextOffset();
}

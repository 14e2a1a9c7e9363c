package io.syncmirror.broker.controller;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.snapshot.RawSnapshotReader;

import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * The controller's ordered, durable metadata log ({@code __cluster_metadata-0}). A local log commits an append
 * once it is durable (the HW is the log end after each append); a replicated one (the metadata quorum) commits
 * later, once a majority holds it, and only its leader may append.
 *
 * <p>Thread-safety: {@link #append} and {@link #writable} are called by the controller's single event thread
 * only; {@link #read} and the offset getters may be called from any thread.
 */
public interface MetadataLog extends AutoCloseable
{
    /**
     * Appends {@code records} at the log end, in order, stamped {@code timeMs}. A local log makes them durable
     * before returning. Returns the offset of the last record. Throws
     * {@link org.apache.kafka.common.errors.NotControllerException} where this node may not append.
     */
    long append(List<MetadataRecord> records, long timeMs);

    /**
     * Whether this node may append now: always for a local log; for a replicated one, while it is the leader
     * the controller has claimed. The controller refuses every change, before touching its state, when not.
     */
    default boolean writable()
    {
        return true;
    }

    /**
     * The leader epoch this node appends in while {@link #writable}: 0 for a local log (it never changes hands);
     * the claimed Raft epoch for a replicated one; -1 when not writable.
     */
    default int writableEpoch()
    {
        return writable() ? 0 : -1;
    }

    /** Batches from the one holding {@code offset}, up to about {@code maxBytes} (at least one batch). */
    Records read(long offset, int maxBytes);

    /**
     * Replays the snapshot the committed log continues from (the latest one at or below the high watermark)
     * into {@code replay} and returns its end offset, where reading the log resumes; 0, replaying nothing, when
     * there is none (a local log keeps every record from offset 0).
     */
    default long replaySnapshot(final Consumer<MetadataRecord> replay)
    {
        return 0;
    }

    /** The first offset {@link #read} can serve; below it only a snapshot holds the state. */
    default long startOffset()
    {
        return 0;
    }

    /** The latest snapshot a reader behind {@link #startOffset} should load, if any. Any thread. */
    default Optional<OffsetAndEpoch> latestSnapshotId()
    {
        return Optional.empty();
    }

    /** The bytes of snapshot {@code id}, for a broker loading it in chunks; empty when it is gone. Any thread. */
    default Optional<RawSnapshotReader> readSnapshot(final OffsetAndEpoch id)
    {
        return Optional.empty();
    }

    /** The offset the next append gets. */
    long endOffset();

    /** The committed end: every offset below it is durable and readable by brokers. */
    long highWatermark();

    @Override
    void close();
}

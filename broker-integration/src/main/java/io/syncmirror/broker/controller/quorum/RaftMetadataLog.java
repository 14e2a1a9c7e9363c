package io.syncmirror.broker.controller.quorum;

import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.raft.Isolation;
import org.apache.kafka.raft.KafkaRaftClient;
import org.apache.kafka.raft.RaftClient;
import org.apache.kafka.raft.RaftLog;
import org.apache.kafka.raft.errors.NotLeaderException;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.snapshot.RawSnapshotReader;
import org.apache.kafka.snapshot.SnapshotWriter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.controller.MetadataLog;
import io.syncmirror.broker.metadata.MetadataRecord;

/**
 * The controller's {@link MetadataLog} on the metadata quorum: appends go to Kafka's Raft client
 * ({@code prepareAppend}, then {@code schedulePreparedAppend} so the driver writes them at once rather than after
 * its linger), reads come from the local Raft log below the commit, and the high watermark is how far the
 * controller has been told of commits ({@link #committed}), not the Raft client's own, so that it always matches
 * the controller's state.
 *
 * <p>Only a claimed leader may append ({@link #claim}); a failed append marks the log unwritable and resigns
 * the epoch, so the controller's state, which already holds the failed records, is rebuilt from the committed
 * log when the leader change arrives. Thread-safety: {@link #claim}, {@link #renounce}, {@link #committed},
 * {@link #append} and {@link #writable} on the controller's event thread; {@link #read} and the offset getters
 * from any thread.
 */
public final class RaftMetadataLog implements MetadataLog
{
    private static final Logger LOG = LoggerFactory.getLogger(RaftMetadataLog.class);

    /**
     * Records per Raft append are cut to this many bytes, well under Kafka's batch limit
     * ({@link KafkaRaftClient#MAX_BATCH_SIZE_BYTES}); an operation bigger than a chunk is appended as several
     * consecutive chunks of one epoch.
     */
    static final int MAX_CHUNK_BYTES = 1 << 20;

    private static final int NOT_CLAIMED = -1;

    private final RaftClient<MetadataRecord> client;
    private final RaftLog raftLog;
    private volatile long committedEnd;
    private volatile long nextWriteOffset;
    private volatile int claimedEpoch = NOT_CLAIMED;
    /**
     * The snapshot the controller's state was last built from or written at (null: none, the state starts at
     * offset 0). Written on the event thread.
     */
    private volatile OffsetAndEpoch base;

    public RaftMetadataLog(final RaftClient<MetadataRecord> client, final RaftLog raftLog)
    {
        this.client = client;
        this.raftLog = raftLog;
    }

    /** This node leads {@code epoch}; appends start at {@code nextOffset} (the Raft log's end). */
    public void claim(final int epoch, final long nextOffset)
    {
        claimedEpoch = epoch;
        nextWriteOffset = nextOffset;
    }

    /** This node no longer leads: no more appends. */
    public void renounce()
    {
        claimedEpoch = NOT_CLAIMED;
    }

    /** The epoch this node leads, or -1. */
    public int claimedEpoch()
    {
        return claimedEpoch;
    }

    /**
     * The controller is about to be rebuilt from snapshot {@code id}, which Kafka's Raft loaded (at start, or
     * fetched from the leader when this node was behind its log start): the committed end is the snapshot's end.
     */
    public void loaded(final OffsetAndEpoch id)
    {
        base = id;
        committedEnd = id.offset();
    }

    /** The controller has applied every committed record below {@code nextOffset}. */
    public void committed(final long nextOffset)
    {
        committedEnd = Math.max(committedEnd, nextOffset);
    }

    @Override
    public boolean writable()
    {
        return claimedEpoch != NOT_CLAIMED;
    }

    @Override
    public int writableEpoch()
    {
        return claimedEpoch;
    }

    @Override
    public long append(final List<MetadataRecord> records, final long timeMs)
    {
        final int epoch = claimedEpoch;
        if (epoch == NOT_CLAIMED)
        {
            throw new NotControllerException("this node is not the active controller");
        }
        try
        {
            long last = nextWriteOffset - 1;
            int from = 0;
            while (from < records.size())
            {
                final int to = chunkEnd(records, from);
                last = client.prepareAppend(epoch, records.subList(from, to));
                from = to;
            }
            client.schedulePreparedAppend();
            if (last != nextWriteOffset + records.size() - 1)
            {
                // Only a control record of our own epoch could come between; offsets stay right from here on.
                LOG.warn("metadata append at epoch {} ended at offset {}, expected {}", epoch, last,
                    nextWriteOffset + records.size() - 1);
            }
            nextWriteOffset = last + 1;
            return last;
        }
        catch (final NotLeaderException e)
        {
            claimedEpoch = NOT_CLAIMED;
            throw new NotControllerException("the controller lost leadership of epoch " + epoch + ": "
                + e.getMessage());
        }
        catch (final RuntimeException e)
        {
            // The controller applied these records and cannot take them back: give up the epoch, and rebuild
            // from the committed log when the leader change comes (as Kafka's controller renounces).
            claimedEpoch = NOT_CLAIMED;
            LOG.error("metadata append at epoch {} failed; resigning", epoch, e);
            try
            {
                client.resign(epoch);
            }
            catch (final RuntimeException resignFailed)
            {
                // Already past this epoch: its leader change is on the way and rebuilds the state.
                LOG.warn("resigning epoch {} failed", epoch, resignFailed);
            }
            throw new NotControllerException("the controller resigned after a failed append: " + e);
        }
    }

    private static int chunkEnd(final List<MetadataRecord> records, final int from)
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        long bytes = 0;
        int to = from;
        while (to < records.size())
        {
            bytes += MetadataRecordSerde.INSTANCE.recordSize(records.get(to), cache);
            if (to > from && bytes > MAX_CHUNK_BYTES)
            {
                break;
            }
            to++;
        }
        return to;
    }

    /**
     * Committed batches from the one holding {@code offset}, up to about {@code maxBytes} (at least one batch),
     * and none at or above {@link #highWatermark}.
     */
    @Override
    public Records read(final long offset, final int maxBytes)
    {
        final long end = committedEnd;
        if (offset >= end)
        {
            return MemoryRecords.EMPTY;
        }
        final Records records = raftLog.read(offset, Isolation.COMMITTED, maxBytes).records;
        int bytes = 0;
        for (final RecordBatch batch : records.batches())
        {
            if (batch.lastOffset() >= end)
            {
                return records.slice(0, bytes);
            }
            bytes += batch.sizeInBytes();
        }
        return records;
    }

    /** The next offset this node appends at while it leads; otherwise the committed end. */
    @Override
    public long endOffset()
    {
        return claimedEpoch == NOT_CLAIMED ? committedEnd : Math.max(committedEnd, nextWriteOffset);
    }

    @Override
    public long highWatermark()
    {
        return committedEnd;
    }

    /**
     * The snapshot the committed state continues from: the one Kafka's Raft loaded last or this node wrote last.
     * Its records are read with Kafka's snapshot reader, which checks every batch's CRC.
     */
    @Override
    public long replaySnapshot(final Consumer<MetadataRecord> replay)
    {
        final OffsetAndEpoch id = base;
        if (id == null || id.offset() == 0)
        {
            return 0;
        }
        final RawSnapshotReader raw = raftLog.readSnapshot(id).orElseThrow(() ->
            new IllegalStateException("metadata snapshot " + id + " is gone; the controller cannot be rebuilt"));
        MetadataSnapshots.replay(raw, replay);
        return id.offset();
    }

    @Override
    public long startOffset()
    {
        return raftLog.startOffset();
    }

    @Override
    public Optional<OffsetAndEpoch> latestSnapshotId()
    {
        return raftLog.latestSnapshotId();
    }

    @Override
    public Optional<RawSnapshotReader> readSnapshot(final OffsetAndEpoch id)
    {
        return raftLog.readSnapshot(id);
    }

    /**
     * Writes {@code records}, the controller's state at the committed end, as snapshot {@code committedEnd}
     * of {@code lastEpoch} (the epoch of the batch holding the last committed offset) through Kafka's
     * {@code createSnapshot}; the Raft log then deletes what lies below it once its retention is exceeded.
     * False when that snapshot already exists. Event thread only.
     */
    public boolean writeSnapshot(final List<MetadataRecord> records, final int lastEpoch, final long lastTimestamp)
    {
        final OffsetAndEpoch id = new OffsetAndEpoch(committedEnd, lastEpoch);
        final Optional<SnapshotWriter<MetadataRecord>> created = client.createSnapshot(id, lastTimestamp);
        if (created.isEmpty())
        {
            return false;
        }
        try (SnapshotWriter<MetadataRecord> writer = created.get())
        {
            int from = 0;
            while (from < records.size())
            {
                final int to = chunkEnd(records, from);
                writer.append(records.subList(from, to));
                from = to;
            }
            writer.freeze();
        }
        base = id;
        return true;
    }

    /** The Raft log belongs to the quorum, which closes it. */
    @Override
    public void close()
    {
    }
}

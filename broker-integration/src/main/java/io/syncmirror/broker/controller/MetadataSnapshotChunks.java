package io.syncmirror.broker.controller;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.FetchSnapshotRequestData;
import org.apache.kafka.common.message.FetchSnapshotResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.record.internal.UnalignedMemoryRecords;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.apache.kafka.snapshot.RawSnapshotReader;

/**
 * Serves a broker's FetchSnapshot of {@code __cluster_metadata-0} from this voter's own snapshots, in chunks, as
 * Kafka's Raft leader serves a follower's (same request, same errors: SNAPSHOT_NOT_FOUND for an id this voter
 * does not hold, POSITION_OUT_OF_RANGE for a position outside it). A broker is told to load a snapshot by a
 * metadata fetch below the log start, whose answer names the snapshot (its {@code SnapshotId}); any voter serves,
 * as any voter serves metadata fetches. Chunks are copied into memory, so a response owns its bytes also
 * in-process. Stateless, so thread-safe: snapshots are read on the caller's thread.
 */
final class MetadataSnapshotChunks
{
    /** The most a chunk carries (a request may ask for less). */
    static final int MAX_CHUNK_BYTES = 1 << 20;

    private MetadataSnapshotChunks()
    {
    }

    static FetchSnapshotResponseData answer(final MetadataLog log, final FetchSnapshotRequestData request)
    {
        if (request.topics().size() != 1 || request.topics().get(0).partitions().size() != 1)
        {
            return new FetchSnapshotResponseData().setErrorCode(Errors.INVALID_REQUEST.code());
        }
        final FetchSnapshotRequestData.TopicSnapshot topic = request.topics().get(0);
        final FetchSnapshotRequestData.PartitionSnapshot wanted = topic.partitions().get(0);
        final FetchSnapshotResponseData.PartitionSnapshot out = new FetchSnapshotResponseData.PartitionSnapshot()
            .setIndex(wanted.partition())
            .setSnapshotId(new FetchSnapshotResponseData.SnapshotId()
                .setEndOffset(wanted.snapshotId().endOffset()).setEpoch(wanted.snapshotId().epoch()))
            .setPosition(wanted.position())
            .setUnalignedRecords(MemoryRecords.EMPTY);
        if (!Topic.CLUSTER_METADATA_TOPIC_NAME.equals(topic.name()) || wanted.partition() != 0)
        {
            return respond(topic.name(), out.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
        }
        final OffsetAndEpoch id = new OffsetAndEpoch(wanted.snapshotId().endOffset(), wanted.snapshotId().epoch());
        final Optional<RawSnapshotReader> snapshot = id.offset() <= 0 ? Optional.empty() : log.readSnapshot(id);
        if (snapshot.isEmpty())
        {
            return respond(topic.name(), out.setErrorCode(Errors.SNAPSHOT_NOT_FOUND.code()));
        }
        final long size = snapshot.get().sizeInBytes();
        out.setSize(size);
        if (wanted.position() < 0 || wanted.position() >= size)
        {
            return respond(topic.name(), out.setErrorCode(Errors.POSITION_OUT_OF_RANGE.code()));
        }
        final int limit = request.maxBytes() <= 0 ? MAX_CHUNK_BYTES : Math.min(MAX_CHUNK_BYTES, request.maxBytes());
        final int length = (int) Math.min(limit, size - wanted.position());
        try
        {
            out.setUnalignedRecords(new UnalignedMemoryRecords(copy(snapshot.get().records(),
                (int) wanted.position(), length)));
        }
        catch (final IOException e)
        {
            return respond(topic.name(), out.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code()));
        }
        return respond(topic.name(), out);
    }

    private static ByteBuffer copy(final Records records, final int position, final int length) throws IOException
    {
        final ByteBuffer buffer = ByteBuffer.allocate(length);
        if (records instanceof FileRecords file)
        {
            file.readInto(buffer, position);
        }
        else if (records instanceof MemoryRecords memory)
        {
            final ByteBuffer source = memory.buffer().duplicate();
            source.position(source.position() + position).limit(source.position() + length);
            buffer.put(source);
            buffer.flip();
        }
        else
        {
            throw new IOException("snapshot records of type " + records.getClass().getName());
        }
        return buffer;
    }

    private static FetchSnapshotResponseData respond(final String topic,
        final FetchSnapshotResponseData.PartitionSnapshot partition)
    {
        final List<FetchSnapshotResponseData.PartitionSnapshot> partitions = new ArrayList<>(List.of(partition));
        return new FetchSnapshotResponseData().setErrorCode(Errors.NONE.code()).setTopics(new ArrayList<>(List.of(
            new FetchSnapshotResponseData.TopicSnapshot().setName(topic).setPartitions(partitions))));
    }
}

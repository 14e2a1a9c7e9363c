package io.syncmirror.broker.metadata;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.FetchSnapshotRequestData;
import org.apache.kafka.common.message.FetchSnapshotResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.BaseRecords;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.UnalignedMemoryRecords;
import org.apache.kafka.common.requests.FetchSnapshotRequest;
import org.apache.kafka.common.requests.FetchSnapshotResponse;

import io.syncmirror.broker.network.NodeClient;

/**
 * Downloads one metadata snapshot for a broker, chunk after chunk (Kafka's FetchSnapshot, the position moving by
 * what each answer carried), into one buffer. The request carries no cluster id, which is how a voter tells a
 * broker's FetchSnapshot from a Raft follower's. Each instance downloads once; its futures complete on the
 * client's threads.
 */
final class MetadataSnapshotDownload
{
    /** A snapshot larger than this is refused rather than allocated. */
    static final long MAX_SNAPSHOT_BYTES = 1L << 30;
    private static final int CHUNK_BYTES = 1 << 20;

    private final NodeClient controller;
    private final int brokerId;
    private final long endOffset;
    private final int epoch;
    private ByteBuffer buffer;

    MetadataSnapshotDownload(final NodeClient controller, final int brokerId, final long endOffset, final int epoch)
    {
        this.controller = controller;
        this.brokerId = brokerId;
        this.endOffset = endOffset;
        this.epoch = epoch;
    }

    /** The whole snapshot's records, or an error (the caller fetches again and is told the current snapshot). */
    CompletableFuture<MemoryRecords> start()
    {
        return chunk(0);
    }

    private CompletableFuture<MemoryRecords> chunk(final long position)
    {
        final FetchSnapshotRequestData data = new FetchSnapshotRequestData()
            .setReplicaId(brokerId)
            .setMaxBytes(CHUNK_BYTES)
            .setTopics(new ArrayList<>(List.of(new FetchSnapshotRequestData.TopicSnapshot()
                .setName(Topic.CLUSTER_METADATA_TOPIC_NAME)
                .setPartitions(new ArrayList<>(List.of(new FetchSnapshotRequestData.PartitionSnapshot()
                    .setPartition(0)
                    .setCurrentLeaderEpoch(-1)
                    .setSnapshotId(new FetchSnapshotRequestData.SnapshotId().setEndOffset(endOffset).setEpoch(epoch))
                    .setPosition(position)))))));
        return controller.<FetchSnapshotResponse>send(new FetchSnapshotRequest.Builder(data))
            .thenCompose(response -> onChunk(position, response.data()));
    }

    private CompletableFuture<MemoryRecords> onChunk(final long position, final FetchSnapshotResponseData data)
    {
        if (data.errorCode() != Errors.NONE.code())
        {
            throw Errors.forCode(data.errorCode()).exception("FetchSnapshot of " + endOffset + "-" + epoch);
        }
        if (data.topics().size() != 1 || data.topics().get(0).partitions().size() != 1)
        {
            throw new ApiException("FetchSnapshot answered " + data.topics().size() + " topics");
        }
        final FetchSnapshotResponseData.PartitionSnapshot partition = data.topics().get(0).partitions().get(0);
        if (partition.errorCode() != Errors.NONE.code())
        {
            throw Errors.forCode(partition.errorCode()).exception("FetchSnapshot of " + endOffset + "-" + epoch
                + " at position " + position);
        }
        if (buffer == null)
        {
            if (partition.size() <= 0 || partition.size() > MAX_SNAPSHOT_BYTES)
            {
                throw new ApiException("metadata snapshot " + endOffset + "-" + epoch + " has " + partition.size()
                    + " bytes; at most " + MAX_SNAPSHOT_BYTES + " are loaded");
            }
            buffer = ByteBuffer.allocate((int) partition.size());
        }
        final ByteBuffer bytes = bytes(partition.unalignedRecords());
        if (partition.size() != buffer.capacity() || partition.position() != position
            || bytes.remaining() == 0 || bytes.remaining() > buffer.remaining())
        {
            throw new ApiException("FetchSnapshot of " + endOffset + "-" + epoch + " answered " + bytes.remaining()
                + " bytes at position " + partition.position() + " of " + partition.size() + ", expected position "
                + position + " of " + buffer.capacity());
        }
        buffer.put(bytes);
        if (buffer.hasRemaining())
        {
            return chunk(buffer.position());
        }
        buffer.flip();
        return CompletableFuture.completedFuture(MemoryRecords.readableRecords(buffer));
    }

    private static ByteBuffer bytes(final BaseRecords records)
    {
        // Off the wire the chunk is MemoryRecords; in-process it is the voter's own UnalignedMemoryRecords.
        if (records instanceof MemoryRecords memory)
        {
            return memory.buffer().duplicate();
        }
        if (records instanceof UnalignedMemoryRecords unaligned)
        {
            return unaligned.buffer().duplicate();
        }
        throw new ApiException("FetchSnapshot chunk of type " + (records == null ? "null" : records.getClass()));
    }
}

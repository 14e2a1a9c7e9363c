package io.syncmirror.broker.coordinator;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.utils.Time;

/**
 * The receiving side of WriteTxnMarkers (API 27): appends a COMMIT or ABORT control batch, carrying the
 * coordinator epoch, to each named partition this broker leads, acks=all, and answers per partition.
 * Thread-safe (stateless apart from its collaborators).
 *
 * <p>A marker for a {@code __consumer_offsets} partition is not appended here: the group coordinator that owns
 * the partition writes it ({@link GroupOffsetsPort#completeTransaction}), as Kafka's broker hands such markers to its
 * group coordinator, so that the producer's pending transactional offset commits there are settled with it.
 */
public final class TxnMarkerWriter
{
    private final ReplicaAccess replicas;
    private final Time time;
    private final long appendTimeoutMs;
    private volatile GroupOffsetsPort groups;

    public TxnMarkerWriter(final ReplicaAccess replicas, final Time time, final long appendTimeoutMs)
    {
        this.replicas = replicas;
        this.time = time;
        this.appendTimeoutMs = appendTimeoutMs;
    }

    /** The group coordinator that writes markers to {@code __consumer_offsets}; set once before serving. */
    public void groups(final GroupOffsetsPort groups)
    {
        this.groups = groups;
    }

    /** Writes every marker of the request; the future never completes exceptionally. */
    public CompletableFuture<WriteTxnMarkersResponseData> write(final WriteTxnMarkersRequestData request)
    {
        final WriteTxnMarkersResponseData response = new WriteTxnMarkersResponseData();
        final List<CompletableFuture<Void>> appends = new ArrayList<>();
        for (final WriteTxnMarkersRequestData.WritableTxnMarker marker : request.markers())
        {
            final WriteTxnMarkersResponseData.WritableTxnMarkerResult markerResult =
                new WriteTxnMarkersResponseData.WritableTxnMarkerResult().setProducerId(marker.producerId());
            response.markers().add(markerResult);
            final ControlRecordType type = marker.transactionResult() ? ControlRecordType.COMMIT : ControlRecordType.ABORT;
            for (final WriteTxnMarkersRequestData.WritableTxnMarkerTopic topic : marker.topics())
            {
                final WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult topicResult =
                    new WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult().setName(topic.name());
                markerResult.topics().add(topicResult);
                for (final int index : topic.partitionIndexes())
                {
                    final WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult partitionResult =
                        new WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult().setPartitionIndex(index);
                    topicResult.partitions().add(partitionResult);
                    final TopicPartition partition = new TopicPartition(topic.name(), index);
                    appends.add(appendOne(partition, marker, type, partitionResult));
                }
            }
        }
        return CompletableFuture.allOf(appends.toArray(new CompletableFuture<?>[0])).thenApply(ignored -> response);
    }

    private CompletableFuture<Void> appendOne(final TopicPartition partition,
        final WriteTxnMarkersRequestData.WritableTxnMarker marker, final ControlRecordType type,
        final WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult result)
    {
        final CompletableFuture<Void> done = new CompletableFuture<>();
        try
        {
            final CompletableFuture<?> written;
            final GroupOffsetsPort offsets = groups;
            if (offsets != null && CoordinatorConfig.CONSUMER_OFFSETS_TOPIC.equals(partition.topic()))
            {
                written = offsets.completeTransaction(partition, marker.producerId(), marker.producerEpoch(),
                    marker.coordinatorEpoch(), type == ControlRecordType.COMMIT);
            }
            else
            {
                written = replicas.appendMarkersAndWait(partition, MemoryRecords.withEndTransactionMarker(
                    time.milliseconds(), marker.producerId(), marker.producerEpoch(),
                    new EndTransactionMarker(type, marker.coordinatorEpoch())), appendTimeoutMs);
            }
            written.whenComplete((appended, error) ->
            {
                if (error != null)
                {
                    result.setErrorCode(Errors.forException(CoordinatorLogs.unwrap(error)).code());
                }
                done.complete(null);
            });
        }
        catch (final RuntimeException e)
        {
            result.setErrorCode(Errors.forException(e).code());
            done.complete(null);
        }
        return done;
    }
}

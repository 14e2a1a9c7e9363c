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
 * <p>A marker written to a {@code __consumer_offsets} partition also settles the transactional offset commits of
 * that producer there ({@link MarkerListener}), before the answer goes out, as Kafka's group coordinator does.
 */
public final class TxnMarkerWriter
{
    /** Told about every marker appended, after the append is replicated. */
    public interface MarkerListener
    {
        /** {@code markerOffset} is the offset the marker got in the partition's log. */
        void onMarkerWritten(TopicPartition partition, long producerId, short producerEpoch, boolean committed,
            long markerOffset);
    }

    private final ReplicaAccess replicas;
    private final Time time;
    private final long appendTimeoutMs;
    private volatile MarkerListener listener;

    public TxnMarkerWriter(final ReplicaAccess replicas, final Time time, final long appendTimeoutMs)
    {
        this.replicas = replicas;
        this.time = time;
        this.appendTimeoutMs = appendTimeoutMs;
    }

    public void setListener(final MarkerListener listener)
    {
        this.listener = listener;
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
        final MemoryRecords records = MemoryRecords.withEndTransactionMarker(time.milliseconds(), marker.producerId(),
            marker.producerEpoch(), new EndTransactionMarker(type, marker.coordinatorEpoch()));
        final CompletableFuture<Void> done = new CompletableFuture<>();
        try
        {
            replicas.appendMarkersAndWait(partition, records, appendTimeoutMs).whenComplete((appended, error) ->
            {
                if (error == null)
                {
                    final MarkerListener current = listener;
                    if (current != null)
                    {
                        try
                        {
                            current.onMarkerWritten(partition, marker.producerId(), marker.producerEpoch(),
                                type == ControlRecordType.COMMIT, appended.firstOffset());
                        }
                        catch (final RuntimeException e)
                        {
                            result.setErrorCode(Errors.forException(e).code());
                        }
                    }
                }
                else
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

package io.syncmirror.broker.replica;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.ListOffsetsRequestData;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;

import io.syncmirror.broker.network.RequestContext;
import io.syncmirror.broker.storage.PartitionLog;

/**
 * The offset-lookup APIs of the data path: ListOffsets (by timestamp, earliest, latest, max timestamp) and
 * OffsetsForLeaderEpoch. Thread-safety: stateless apart from the (thread-safe) replica manager; handlers run on the
 * connection's event loop and answer at once.
 *
 * <p>Each version is answered as Kafka 4.4 answers it: ListOffsets below v4 carries no leader epoch, so none is
 * set (kafka-clients refuses to write a non-default field a version lacks, which is what broke librdkafka's
 * logical-offset lookups at v2); below v2 there is no isolation level, so a consumer reads up to the high
 * watermark; a partition named twice in one request is answered INVALID_REQUEST for each of its entries.
 */
public final class OffsetApis
{
    /** The first ListOffsets version with a leader epoch in its partition responses. */
    static final short LIST_OFFSETS_MIN_LEADER_EPOCH_VERSION = 4;

    private final ReplicaManager replicas;

    public OffsetApis(final ReplicaManager replicas)
    {
        this.replicas = replicas;
    }

    public CompletableFuture<AbstractResponse> handleListOffsets(final RequestContext context,
        final ListOffsetsRequest request)
    {
        final short version = context.header().apiVersion();
        final boolean withEpoch = version >= LIST_OFFSETS_MIN_LEADER_EPOCH_VERSION;
        final ListOffsetsResponseData data = new ListOffsetsResponseData();
        final boolean consumer = request.replicaId() < 0;
        final boolean readCommitted = request.isolationLevel() == IsolationLevel.READ_COMMITTED;
        final Set<TopicPartition> duplicates = request.duplicatePartitions();
        for (final ListOffsetsRequestData.ListOffsetsTopic topic : request.data().topics())
        {
            final ListOffsetsResponseData.ListOffsetsTopicResponse topicResponse =
                new ListOffsetsResponseData.ListOffsetsTopicResponse().setName(topic.name());
            data.topics().add(topicResponse);
            for (final ListOffsetsRequestData.ListOffsetsPartition asked : topic.partitions())
            {
                final ListOffsetsResponseData.ListOffsetsPartitionResponse response =
                    new ListOffsetsResponseData.ListOffsetsPartitionResponse().setPartitionIndex(asked.partitionIndex())
                        .setTimestamp(ListOffsetsResponse.UNKNOWN_TIMESTAMP)
                        .setOffset(ListOffsetsResponse.UNKNOWN_OFFSET)
                        .setLeaderEpoch(ListOffsetsResponse.UNKNOWN_EPOCH);
                topicResponse.partitions().add(response);
                final TopicPartition topicPartition = new TopicPartition(topic.name(), asked.partitionIndex());
                if (duplicates.contains(topicPartition))
                {
                    response.setErrorCode(Errors.INVALID_REQUEST.code());
                    continue;
                }
                final Partition partition = replicas.partitionOrNull(topicPartition);
                final Errors error = leaderError(partition, asked.currentLeaderEpoch());
                if (error != Errors.NONE)
                {
                    response.setErrorCode(error.code());
                    continue;
                }
                final Partition.Role role = partition.role();
                final PartitionLog log = partition.log();
                final long timestamp = asked.timestamp();
                if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP)
                {
                    final long offset = !consumer ? log.logEndOffset() :
                        readCommitted ? log.lastStableOffset() : log.highWatermark();
                    response.setOffset(offset).setLeaderEpoch(withEpoch ? role.leaderEpoch() :
                        ListOffsetsResponse.UNKNOWN_EPOCH);
                    continue;
                }
                if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP ||
                    timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP)
                {
                    final long offset = log.logStartOffset();
                    response.setOffset(offset).setLeaderEpoch(withEpoch ?
                        log.epochForOffset(offset).orElse(ListOffsetsResponse.UNKNOWN_EPOCH) :
                        ListOffsetsResponse.UNKNOWN_EPOCH);
                    continue;
                }
                try
                {
                    final Optional<PartitionLog.TimestampOffset> found = log.offsetForTimestamp(timestamp);
                    final long bound = !consumer ? log.logEndOffset() :
                        readCommitted ? log.lastStableOffset() : log.highWatermark();
                    if (found.isPresent() && found.get().offset() < bound)
                    {
                        response.setTimestamp(found.get().timestamp()).setOffset(found.get().offset())
                            .setLeaderEpoch(withEpoch ? found.get().leaderEpoch() : ListOffsetsResponse.UNKNOWN_EPOCH);
                    }
                }
                catch (final ApiException ex)
                {
                    response.setErrorCode(Errors.forException(ex).code());
                }
            }
        }
        return CompletableFuture.completedFuture(new ListOffsetsResponse(data));
    }

    public CompletableFuture<AbstractResponse> handleOffsetsForLeaderEpoch(final RequestContext context,
        final OffsetsForLeaderEpochRequest request)
    {
        final OffsetForLeaderEpochResponseData data = new OffsetForLeaderEpochResponseData();
        for (final OffsetForLeaderEpochRequestData.OffsetForLeaderTopic topic : request.data().topics())
        {
            final OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult result =
                new OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult().setTopic(topic.topic());
            data.topics().add(result);
            for (final OffsetForLeaderEpochRequestData.OffsetForLeaderPartition asked : topic.partitions())
            {
                final OffsetForLeaderEpochResponseData.EpochEndOffset response =
                    new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(asked.partition())
                        .setLeaderEpoch(OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH)
                        .setEndOffset(OffsetsForLeaderEpochResponse.UNDEFINED_EPOCH_OFFSET);
                result.partitions().add(response);
                final Partition partition = replicas.partitionOrNull(new TopicPartition(topic.topic(),
                    asked.partition()));
                final Errors error = leaderError(partition, asked.currentLeaderEpoch());
                if (error != Errors.NONE)
                {
                    response.setErrorCode(error.code());
                    continue;
                }
                partition.endOffsetForEpoch(asked.leaderEpoch()).ifPresent(end ->
                    response.setLeaderEpoch(end.epoch()).setEndOffset(end.endOffset()));
            }
        }
        return CompletableFuture.completedFuture(new OffsetsForLeaderEpochResponse(data));
    }

    /**
     * Whether this broker may answer for {@code partition} as its leader in the epoch the client names:
     * UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER, FENCED_LEADER_EPOCH (the client's epoch is older) or
     * UNKNOWN_LEADER_EPOCH (newer, not applied here yet); NONE when it may. {@code currentLeaderEpoch} -1 skips
     * the epoch check, as Kafka does.
     */
    private static Errors leaderError(final Partition partition, final int currentLeaderEpoch)
    {
        if (partition == null)
        {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        final Partition.Role role = partition.role();
        if (!role.leader())
        {
            return Errors.NOT_LEADER_OR_FOLLOWER;
        }
        if (currentLeaderEpoch >= 0 && currentLeaderEpoch != role.leaderEpoch())
        {
            return currentLeaderEpoch < role.leaderEpoch() ? Errors.FENCED_LEADER_EPOCH : Errors.UNKNOWN_LEADER_EPOCH;
        }
        return Errors.NONE;
    }
}

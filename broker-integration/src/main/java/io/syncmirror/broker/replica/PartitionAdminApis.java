package io.syncmirror.broker.replica;

import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.message.DeleteRecordsRequestData;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeProducersResponse;

/**
 * The admin APIs a partition's leader answers from its own log: DeleteRecords (Streams purges its repartition
 * topics with it; {@code kafka-delete-records.sh}) and DescribeProducers ({@code kafka-transactions.sh
 * describe-producers} and {@code find-hanging}). Thread-safety: stateless apart from the thread-safe replica
 * manager; each partition's change is made under its append lock ({@link Partition#deleteRecordsAsLeader}).
 *
 * <p>DeleteRecords answers once the leader's log start has moved, with the leader's new start as the low
 * watermark; Kafka's broker waits (up to the request's timeout) until every replica's start has moved too. Here a
 * follower moves its start when its next fetch response carries the leader's, within
 * {@code replica.fetch.wait.max.ms}.
 */
public final class PartitionAdminApis
{
    private final ReplicaManager replicas;

    public PartitionAdminApis(final ReplicaManager replicas)
    {
        this.replicas = replicas;
    }

    public CompletableFuture<AbstractResponse> handleDeleteRecords(final DeleteRecordsRequest request)
    {
        final DeleteRecordsResponseData data = new DeleteRecordsResponseData();
        for (final DeleteRecordsRequestData.DeleteRecordsTopic topic : request.data().topics())
        {
            final DeleteRecordsResponseData.DeleteRecordsTopicResult topicResult =
                new DeleteRecordsResponseData.DeleteRecordsTopicResult().setName(topic.name());
            data.topics().add(topicResult);
            for (final DeleteRecordsRequestData.DeleteRecordsPartition asked : topic.partitions())
            {
                final DeleteRecordsResponseData.DeleteRecordsPartitionResult result =
                    new DeleteRecordsResponseData.DeleteRecordsPartitionResult()
                        .setPartitionIndex(asked.partitionIndex())
                        .setLowWatermark(DeleteRecordsResponse.INVALID_LOW_WATERMARK);
                if (topicResult.partitions().find(asked.partitionIndex()) != null)
                {
                    continue; // a partition named twice is answered once, by its first entry
                }
                topicResult.partitions().add(result);
                final Partition partition = replicas.partitionOrNull(new TopicPartition(topic.name(),
                    asked.partitionIndex()));
                if (partition == null)
                {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                    continue;
                }
                try
                {
                    result.setLowWatermark(partition.deleteRecordsAsLeader(asked.offset()));
                }
                catch (final ApiException e)
                {
                    result.setErrorCode(Errors.forException(e).code());
                }
            }
        }
        return CompletableFuture.completedFuture(new DeleteRecordsResponse(data));
    }

    public CompletableFuture<AbstractResponse> handleDescribeProducers(final DescribeProducersRequest request)
    {
        final DescribeProducersResponseData data = new DescribeProducersResponseData();
        for (final DescribeProducersRequestData.TopicRequest topic : request.data().topics())
        {
            final DescribeProducersResponseData.TopicResponse topicResponse =
                new DescribeProducersResponseData.TopicResponse().setName(topic.name());
            data.topics().add(topicResponse);
            final Set<Integer> answered = new HashSet<>();
            for (final int index : topic.partitionIndexes())
            {
                if (!answered.add(index))
                {
                    continue;
                }
                final DescribeProducersResponseData.PartitionResponse response =
                    new DescribeProducersResponseData.PartitionResponse().setPartitionIndex(index);
                topicResponse.partitions().add(response);
                final Partition partition = replicas.partitionOrNull(new TopicPartition(topic.name(), index));
                if (partition == null)
                {
                    response.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                }
                else if (!partition.role().leader())
                {
                    response.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
                }
                else
                {
                    response.setActiveProducers(partition.log().activeProducers());
                }
            }
        }
        return CompletableFuture.completedFuture(new DescribeProducersResponse(data));
    }
}

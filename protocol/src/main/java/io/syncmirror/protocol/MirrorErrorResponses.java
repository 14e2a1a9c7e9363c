package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * Builds the response that answers a whole mirror request with one error, as Kafka's
 * {@code AbstractRequest.getErrorResponse} does for the RPCs it knows: per-topic results get the error on every
 * topic the request named, top-level errors get it once. Stateless and thread-safe.
 *
 * <p>AddTopicsToMirror has per-topic results only, so each of its TopicPatterns gets a result too, named by
 * the pattern: a request that selects topics by regex alone must still see its error.
 *
 * <p>Error codes stay shorts: the mirror codes are defined with the hot path, and this module depends on
 * kafka-clients only.
 */
public final class MirrorErrorResponses
{
    private MirrorErrorResponses()
    {
    }

    /**
     * The response to {@code request} in which every topic (or the request as a whole, where the response has
     * no per-topic results) failed with {@code errorCode}.
     *
     * @param errorMessage the message to carry, or null
     * @throws IllegalArgumentException if {@code request} is not a mirror request data class
     */
    public static ApiMessage errorResponse(final ApiMessage request, final int throttleTimeMs,
        final short errorCode, final String errorMessage)
    {
        if (request instanceof AddTopicsToMirrorRequestData)
        {
            final List<AddTopicsToMirrorResponseData.TopicResult> results = new ArrayList<>();
            for (final AddTopicsToMirrorRequestData.TopicState topic : ((AddTopicsToMirrorRequestData)request).topics())
            {
                results.add(new AddTopicsToMirrorResponseData.TopicResult().setTopicName(topic.topicName())
                    .setErrorCode(errorCode).setErrorMessage(errorMessage));
            }
            for (final AddTopicsToMirrorRequestData.TopicPattern pattern :
                ((AddTopicsToMirrorRequestData)request).topicPatterns())
            {
                results.add(new AddTopicsToMirrorResponseData.TopicResult().setTopicName(pattern.pattern())
                    .setErrorCode(errorCode).setErrorMessage(errorMessage));
            }
            return new AddTopicsToMirrorResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(results);
        }
        if (request instanceof RemoveTopicsFromMirrorRequestData)
        {
            final List<RemoveTopicsFromMirrorResponseData.TopicResult> results = new ArrayList<>();
            for (final RemoveTopicsFromMirrorRequestData.TopicState topic :
                ((RemoveTopicsFromMirrorRequestData)request).topics())
            {
                results.add(new RemoveTopicsFromMirrorResponseData.TopicResult().setTopicName(topic.topicName())
                    .setErrorCode(errorCode).setErrorMessage(errorMessage));
            }
            return new RemoveTopicsFromMirrorResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(results);
        }
        if (request instanceof DescribeClusterMirrorsRequestData)
        {
            return new DescribeClusterMirrorsResponseData().setThrottleTimeMs(throttleTimeMs)
                .setErrorCode(errorCode).setErrorMessage(errorMessage);
        }
        if (request instanceof LastMirroredOffsetsRequestData)
        {
            final List<LastMirroredOffsetsResponseData.TopicResult> results = new ArrayList<>();
            for (final LastMirroredOffsetsRequestData.TopicRequest topic :
                ((LastMirroredOffsetsRequestData)request).topics())
            {
                final List<LastMirroredOffsetsResponseData.PartitionResult> partitions = new ArrayList<>();
                for (final Integer partition : topic.partitions())
                {
                    partitions.add(new LastMirroredOffsetsResponseData.PartitionResult().setPartitionIndex(partition)
                        .setErrorCode(errorCode));
                }
                results.add(new LastMirroredOffsetsResponseData.TopicResult().setTopicId(topic.topicId())
                    .setTopicName(topic.topicName()).setPartitions(partitions));
            }
            return new LastMirroredOffsetsResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(results);
        }
        if (request instanceof RegisterMirrorSyncTopicRequestData)
        {
            final List<RegisterMirrorSyncTopicResponseData.TopicResult> results = new ArrayList<>();
            for (final RegisterMirrorSyncTopicRequestData.TopicState topic :
                ((RegisterMirrorSyncTopicRequestData)request).topics())
            {
                results.add(new RegisterMirrorSyncTopicResponseData.TopicResult().setTopicName(topic.topicName())
                    .setErrorCode(errorCode).setErrorMessage(errorMessage));
            }
            return new RegisterMirrorSyncTopicResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(results);
        }
        if (request instanceof UnregisterMirrorSyncTopicRequestData)
        {
            return new UnregisterMirrorSyncTopicResponseData().setThrottleTimeMs(throttleTimeMs)
                .setErrorCode(errorCode).setErrorMessage(errorMessage);
        }
        if (request instanceof AlterMirrorTopicTypeRequestData)
        {
            final List<AlterMirrorTopicTypeResponseData.TopicResult> results = new ArrayList<>();
            for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic :
                ((AlterMirrorTopicTypeRequestData)request).topics())
            {
                results.add(new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName(topic.topicName())
                    .setErrorCode(errorCode).setErrorMessage(errorMessage));
            }
            return new AlterMirrorTopicTypeResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(results);
        }
        if (request instanceof CreateClusterMirrorRequestData)
        {
            return new CreateClusterMirrorResponseData().setThrottleTimeMs(throttleTimeMs).setErrorCode(errorCode)
                .setErrorMessage(errorMessage);
        }
        if (request instanceof DeleteClusterMirrorRequestData)
        {
            return new DeleteClusterMirrorResponseData().setThrottleTimeMs(throttleTimeMs).setErrorCode(errorCode)
                .setErrorMessage(errorMessage);
        }
        if (request instanceof BumpLeaderEpochsRequestData)
        {
            final List<BumpLeaderEpochsResponseData.TopicResult> results = new ArrayList<>();
            for (final BumpLeaderEpochsRequestData.TopicRequest topic : ((BumpLeaderEpochsRequestData)request).topics())
            {
                final List<BumpLeaderEpochsResponseData.PartitionResult> partitions = new ArrayList<>();
                for (final BumpLeaderEpochsRequestData.PartitionRequest partition : topic.partitions())
                {
                    partitions.add(new BumpLeaderEpochsResponseData.PartitionResult()
                        .setPartitionIndex(partition.partitionIndex()).setErrorCode(errorCode));
                }
                results.add(new BumpLeaderEpochsResponseData.TopicResult().setTopicId(topic.topicId())
                    .setPartitions(partitions));
            }
            return new BumpLeaderEpochsResponseData().setThrottleTimeMs(throttleTimeMs).setErrorCode(errorCode)
                .setErrorMessage(errorMessage).setTopics(results);
        }
        throw new IllegalArgumentException("Not a mirror request: " + request.getClass().getName());
    }

    /**
     * Every error code a mirror response carries, top-level and per topic or partition, in response order: how a
     * forwarder sees that any part of an answer says NOT_CONTROLLER. Empty for a message that is not a mirror
     * response.
     */
    public static List<Short> errorCodes(final ApiMessage response)
    {
        final List<Short> codes = new ArrayList<>();
        if (response instanceof AddTopicsToMirrorResponseData)
        {
            ((AddTopicsToMirrorResponseData)response).topics().forEach(t -> codes.add(t.errorCode()));
        }
        else if (response instanceof RemoveTopicsFromMirrorResponseData)
        {
            ((RemoveTopicsFromMirrorResponseData)response).topics().forEach(t -> codes.add(t.errorCode()));
        }
        else if (response instanceof DescribeClusterMirrorsResponseData)
        {
            codes.add(((DescribeClusterMirrorsResponseData)response).errorCode());
        }
        else if (response instanceof LastMirroredOffsetsResponseData)
        {
            ((LastMirroredOffsetsResponseData)response).topics()
                .forEach(t -> t.partitions().forEach(p -> codes.add(p.errorCode())));
        }
        else if (response instanceof RegisterMirrorSyncTopicResponseData)
        {
            ((RegisterMirrorSyncTopicResponseData)response).topics().forEach(t -> codes.add(t.errorCode()));
        }
        else if (response instanceof UnregisterMirrorSyncTopicResponseData)
        {
            codes.add(((UnregisterMirrorSyncTopicResponseData)response).errorCode());
        }
        else if (response instanceof AlterMirrorTopicTypeResponseData)
        {
            ((AlterMirrorTopicTypeResponseData)response).topics().forEach(t -> codes.add(t.errorCode()));
        }
        else if (response instanceof ErrorOnlyResponseData)
        {
            codes.add(((ErrorOnlyResponseData<?>)response).errorCode());
        }
        else if (response instanceof BumpLeaderEpochsResponseData)
        {
            final BumpLeaderEpochsResponseData bump = (BumpLeaderEpochsResponseData)response;
            codes.add(bump.errorCode());
            bump.topics().forEach(t -> t.partitions().forEach(p -> codes.add(p.errorCode())));
        }
        return codes;
    }
}

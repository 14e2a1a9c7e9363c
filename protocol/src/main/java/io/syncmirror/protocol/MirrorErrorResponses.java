package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

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
        if (request instanceof AddTopicsToMirrorRequestData add)
        {
            final List<String> names = new ArrayList<>();
            add.topics().forEach(t -> names.add(t.topicName()));
            add.topicPatterns().forEach(p -> names.add(p.pattern()));
            return new AddTopicsToMirrorResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(each(names,
                name -> new AddTopicsToMirrorResponseData.TopicResult().setTopicName(name).setErrorCode(errorCode)
                    .setErrorMessage(errorMessage)));
        }
        if (request instanceof RemoveTopicsFromMirrorRequestData remove)
        {
            return new RemoveTopicsFromMirrorResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(each(
                remove.topics(), t -> new RemoveTopicsFromMirrorResponseData.TopicResult().setTopicName(t.topicName())
                    .setErrorCode(errorCode).setErrorMessage(errorMessage)));
        }
        if (request instanceof DescribeClusterMirrorsRequestData)
        {
            return new DescribeClusterMirrorsResponseData().setThrottleTimeMs(throttleTimeMs)
                .setErrorCode(errorCode).setErrorMessage(errorMessage);
        }
        if (request instanceof LastMirroredOffsetsRequestData offsets)
        {
            return new LastMirroredOffsetsResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(each(
                offsets.topics(), t -> new LastMirroredOffsetsResponseData.TopicResult().setTopicId(t.topicId())
                    .setTopicName(t.topicName()).setPartitions(each(t.partitions(),
                        p -> new LastMirroredOffsetsResponseData.PartitionResult().setPartitionIndex(p)
                            .setErrorCode(errorCode)))));
        }
        if (request instanceof RegisterMirrorSyncTopicRequestData register)
        {
            return new RegisterMirrorSyncTopicResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(each(
                register.topics(), t -> new RegisterMirrorSyncTopicResponseData.TopicResult()
                    .setTopicName(t.topicName()).setErrorCode(errorCode).setErrorMessage(errorMessage)));
        }
        if (request instanceof UnregisterMirrorSyncTopicRequestData)
        {
            return new UnregisterMirrorSyncTopicResponseData().setThrottleTimeMs(throttleTimeMs)
                .setErrorCode(errorCode).setErrorMessage(errorMessage);
        }
        if (request instanceof AlterMirrorTopicTypeRequestData alter)
        {
            return new AlterMirrorTopicTypeResponseData().setThrottleTimeMs(throttleTimeMs).setTopics(each(
                alter.topics(), t -> new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName(t.topicName())
                    .setErrorCode(errorCode).setErrorMessage(errorMessage)));
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
        if (request instanceof BumpLeaderEpochsRequestData bump)
        {
            return new BumpLeaderEpochsResponseData().setThrottleTimeMs(throttleTimeMs).setErrorCode(errorCode)
                .setErrorMessage(errorMessage).setTopics(each(bump.topics(),
                    t -> new BumpLeaderEpochsResponseData.TopicResult().setTopicId(t.topicId()).setPartitions(each(
                        t.partitions(), p -> new BumpLeaderEpochsResponseData.PartitionResult()
                            .setPartitionIndex(p.partitionIndex()).setErrorCode(errorCode)))));
        }
        throw new IllegalArgumentException("Not a mirror request: " + request.getClass().getName());
    }

    /** One result per element of {@code from}, in order, in a list the caller may change. */
    private static <F, T> List<T> each(final List<F> from, final Function<F, T> result)
    {
        final List<T> results = new ArrayList<>(from.size());
        from.forEach(f -> results.add(result.apply(f)));
        return results;
    }

    /**
     * Every error code a mirror response carries, top-level and per topic or partition, in response order: how a
     * forwarder sees that any part of an answer says NOT_CONTROLLER. Empty for a message that is not a mirror
     * response.
     */
    public static List<Short> errorCodes(final ApiMessage response)
    {
        final List<Short> codes = new ArrayList<>();
        if (response instanceof AddTopicsToMirrorResponseData || response instanceof RemoveTopicsFromMirrorResponseData
            || response instanceof RegisterMirrorSyncTopicResponseData
            || response instanceof AlterMirrorTopicTypeResponseData)
        {
            MirrorTopicResult.of(response).forEach(t -> codes.add(t.errorCode()));
        }
        else if (response instanceof DescribeClusterMirrorsResponseData describe)
        {
            codes.add(describe.errorCode());
        }
        else if (response instanceof LastMirroredOffsetsResponseData offsets)
        {
            offsets.topics().forEach(t -> t.partitions().forEach(p -> codes.add(p.errorCode())));
        }
        else if (response instanceof UnregisterMirrorSyncTopicResponseData unregister)
        {
            codes.add(unregister.errorCode());
        }
        else if (response instanceof CreateClusterMirrorResponseData create)
        {
            codes.add(create.errorCode());
        }
        else if (response instanceof DeleteClusterMirrorResponseData delete)
        {
            codes.add(delete.errorCode());
        }
        else if (response instanceof BumpLeaderEpochsResponseData bump)
        {
            codes.add(bump.errorCode());
            bump.topics().forEach(t -> t.partitions().forEach(p -> codes.add(p.errorCode())));
        }
        return codes;
    }
}

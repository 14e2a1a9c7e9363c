package io.syncmirror.broker.mirror;

import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.TopicResultsResponseData;

/** One topic's answer in the mirror RPCs' per-topic results. Stateless. */
final class TopicResults
{
    private TopicResults()
    {
    }

    static TopicResultsResponseData.TopicResult of(final String topic, final Errors error, final String message)
    {
        return new TopicResultsResponseData.TopicResult().setTopicName(topic).setErrorCode(error.code())
            .setErrorMessage(message);
    }
}

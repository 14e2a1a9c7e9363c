package io.syncmirror.broker.mirror;

import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorResponseData;

/**
 * One topic's answer in the mirror RPCs' per-topic results. Stateless.
 *
 * <p>One factory per RPC: the four responses share the schema of their TopicResult, but Kafka's generator makes
 * each a class of its own.
 */
final class TopicResults
{
    private TopicResults()
    {
    }

    static AddTopicsToMirrorResponseData.TopicResult added(final String topic, final Errors error,
        final String message)
    {
        return new AddTopicsToMirrorResponseData.TopicResult().setTopicName(topic).setErrorCode(error.code())
            .setErrorMessage(message);
    }

    static RemoveTopicsFromMirrorResponseData.TopicResult removed(final String topic, final Errors error,
        final String message)
    {
        return new RemoveTopicsFromMirrorResponseData.TopicResult().setTopicName(topic).setErrorCode(error.code())
            .setErrorMessage(message);
    }

    static RegisterMirrorSyncTopicResponseData.TopicResult registered(final String topic, final Errors error,
        final String message)
    {
        return new RegisterMirrorSyncTopicResponseData.TopicResult().setTopicName(topic).setErrorCode(error.code())
            .setErrorMessage(message);
    }

    static AlterMirrorTopicTypeResponseData.TopicResult altered(final String topic, final Errors error,
        final String message)
    {
        return new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName(topic).setErrorCode(error.code())
            .setErrorMessage(message);
    }
}

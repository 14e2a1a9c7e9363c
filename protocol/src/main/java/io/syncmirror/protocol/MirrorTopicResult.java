package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;

/**
 * One topic's result in a mirror response that answers per topic (AddTopicsToMirror, RemoveTopicsFromMirror,
 * RegisterMirrorSyncTopic, AlterMirrorTopicType), read out of the response. Immutable.
 *
 * <p>The four responses share the schema of their TopicResult, but Kafka's message generator makes a class of it
 * for each; this is the one type that code reading any of them (the CLI, an admin client) works with.
 *
 * @param topicName    the topic name, or the pattern for an AddTopicsToMirror pattern's result
 * @param errorCode    the error code, 0 for none
 * @param errorMessage the error message, or on success a note such as a pending promotion; may be null
 */
public record MirrorTopicResult(String topicName, short errorCode, String errorMessage)
{
    /**
     * The per-topic results of {@code response}, in response order.
     *
     * @throws IllegalArgumentException if {@code response} is not one of the four responses
     */
    public static List<MirrorTopicResult> of(final ApiMessage response)
    {
        final List<MirrorTopicResult> results = new ArrayList<>();
        if (response instanceof AddTopicsToMirrorResponseData add)
        {
            add.topics().forEach(t -> results.add(new MirrorTopicResult(t.topicName(), t.errorCode(),
                t.errorMessage())));
        }
        else if (response instanceof RemoveTopicsFromMirrorResponseData remove)
        {
            remove.topics().forEach(t -> results.add(new MirrorTopicResult(t.topicName(), t.errorCode(),
                t.errorMessage())));
        }
        else if (response instanceof RegisterMirrorSyncTopicResponseData register)
        {
            register.topics().forEach(t -> results.add(new MirrorTopicResult(t.topicName(), t.errorCode(),
                t.errorMessage())));
        }
        else if (response instanceof AlterMirrorTopicTypeResponseData alter)
        {
            alter.topics().forEach(t -> results.add(new MirrorTopicResult(t.topicName(), t.errorCode(),
                t.errorMessage())));
        }
        else
        {
            throw new IllegalArgumentException("Not a per-topic mirror response: " + response.getClass().getName());
        }
        return results;
    }
}

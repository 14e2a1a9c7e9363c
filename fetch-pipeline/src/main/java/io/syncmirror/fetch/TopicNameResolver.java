package io.syncmirror.fetch;

import org.apache.kafka.common.Uuid;

/**
 * Resolves a topic id to its name from the broker's metadata image, for fetch requests that address topics by id
 * (Fetch v13+). Must be safe to call from the fetch handler's thread.
 */
@FunctionalInterface
public interface TopicNameResolver
{
    /** The topic's name, or {@code null} if the id is unknown (the partition is answered UNKNOWN_TOPIC_ID). */
    String topicName(Uuid topicId);
}

package io.syncmirror.broker.metadata;

import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * Receives the changes a newly applied metadata batch makes to partitions this broker hosts, in metadata log
 * order, on the broker's single metadata thread.
 */
public interface MetadataListener
{
    /** A listener told nothing matters: for an applier that only builds images (tools, tests, benchmarks). */
    MetadataListener NONE = new MetadataListener()
    {
        @Override
        public void onPartitionChanged(final PartitionState state, final Map<String, String> topicConfig)
        {
        }

        @Override
        public void onPartitionRemoved(final TopicPartition partition)
        {
        }

        @Override
        public void onTopicConfigChanged(final String topic, final Map<String, String> topicConfig)
        {
        }
    };

    /**
     * A partition with this broker in its assignment was created or changed (leader, ISR, epochs).
     * {@code topicConfig} is the topic's config overrides in force.
     */
    void onPartitionChanged(PartitionState state, Map<String, String> topicConfig);

    /** This broker no longer hosts the partition (topic deleted, or reassigned away): drop and delete it. */
    void onPartitionRemoved(TopicPartition partition);

    /** A topic's config overrides changed. */
    void onTopicConfigChanged(String topic, Map<String, String> topicConfig);

    /**
     * A topic's set of registered sync mirrors changed (a MirrorSyncRegistrationChange record); the image already
     * holds the new set. Called for every such topic, hosted here or not.
     */
    default void onSyncRegistrationChanged(final Uuid topicId)
    {
    }
}

package io.syncmirror.broker.replica;

import org.apache.kafka.common.TopicPartition;

/**
 * A (topic name, partition) map key whose hash spreads generated topic names. {@link TopicPartition}'s hash is
 * {@code 31 * (31 + partition) + topic.hashCode()}, and names that count ("topic-0000" .. "topic-0999") differ in
 * their hash by multiples of 31 in the same bits the partition moves: 100k such partitions share about 11k hash
 * values, and a hash map's bins turn into trees that cannot order them (TopicPartition is not Comparable), so every
 * lookup walks a bin. Mixing the topic's hash first keeps the partitions of one topic next to each other and the
 * topics apart.
 */
public record PartitionKey(String topic, int partition)
{
    public static PartitionKey of(final TopicPartition topicPartition)
    {
        return new PartitionKey(topicPartition.topic(), topicPartition.partition());
    }

    @Override
    public int hashCode()
    {
        final int mixed = topic.hashCode() * 0x9E3779B9;
        return (mixed ^ (mixed >>> 16)) + partition;
    }

    @Override
    public boolean equals(final Object other)
    {
        return other instanceof PartitionKey key && key.partition == partition && key.topic.equals(topic);
    }
}

package io.syncmirror.broker.replica;

import java.util.HashSet;
import java.util.Set;

import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Map keys for partitions of generated topic names: equal as TopicPartition is, hashed apart where it is not. */
class PartitionKeyTest
{
    @Test
    void shouldSpreadTheHashesOfCountedTopicNamesThatTopicPartitionPilesUp()
    {
        final Set<Integer> keyHashes = new HashSet<>();
        final Set<Integer> topicPartitionHashes = new HashSet<>();
        for (int topic = 0; topic < 1000; topic++)
        {
            final String name = String.format("sync-bench-%04d", topic);
            for (int partition = 0; partition < 100; partition++)
            {
                keyHashes.add(new PartitionKey(name, partition).hashCode());
                topicPartitionHashes.add(new TopicPartition(name, partition).hashCode());
            }
        }
        assertTrue(topicPartitionHashes.size() < 20_000, "TopicPartition: " + topicPartitionHashes.size());
        assertTrue(keyHashes.size() > 99_000, "100,000 partitions, " + keyHashes.size() + " distinct hashes");
    }

    @Test
    void shouldBeEqualForTheSamePartitionOnly()
    {
        assertEquals(new PartitionKey("t", 1), PartitionKey.of(new TopicPartition("t", 1)));
        assertEquals(new PartitionKey("t", 1).hashCode(), PartitionKey.of(new TopicPartition("t", 1)).hashCode());
        assertNotEquals(new PartitionKey("t", 1), new PartitionKey("t", 2));
        assertNotEquals(new PartitionKey("t", 1), new PartitionKey("u", 1));
    }
}

package io.syncmirror.broker.storage;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * The logs one broker holds, by partition: {@code DurableLogStore} keeps them under {@code log.dirs} with Kafka's
 * log engine and reloads them on start; {@code MemoryLogStore} keeps them on the heap for benchmarks.
 *
 * <p>It also owns the node-local state Kafka's log engine does not persist: per partition the HW, the log start
 * offset and the recovery point, and the clean-shutdown flag. {@link #checkpoint()} writes them; a start reads
 * them back, and a start after an unclean stop recovers the logs.
 *
 * <p>Thread-safety: all methods may be called from any thread.
 */
public interface LogStore extends AutoCloseable
{
    /**
     * The log of a partition, created empty when absent. {@code topicConfig} holds Kafka topic-config keys
     * (retention.ms, retention.bytes, cleanup.policy, compression.type, segment.bytes, ...) over the broker's
     * defaults.
     */
    PartitionLog getOrCreate(TopicPartition partition, Uuid topicId, Map<String, String> topicConfig);

    Optional<PartitionLog> get(TopicPartition partition);

    /** Every log loaded, including those found on disk at start. */
    Collection<PartitionLog> all();

    /** Applies new topic configs to a partition's log (retention and compression changes). */
    void updateConfig(TopicPartition partition, Map<String, String> topicConfig);

    /** Closes and deletes a partition's log. */
    void delete(TopicPartition partition);

    /** Writes the HW, log start offset and recovery point checkpoints for every log. */
    void checkpoint();

    /** Whether the previous stop of this store was clean (read at start). */
    boolean lastShutdownClean();

    /** Checkpoints, closes every log cleanly and marks the shutdown clean. */
    @Override
    void close();
}

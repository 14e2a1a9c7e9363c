package io.syncmirror.broker.storage;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;

/**
 * The broker's logs kept on the heap ({@link MemoryPartitionLog}), for benchmarks; thread-safe (a concurrent map).
 * Nothing survives a close: checkpoints are no-ops and every start is a clean first start. Retention is applied
 * only when the owner calls {@link #deleteOldSegments()}; no thread is started.
 */
public final class MemoryLogStore implements LogStore
{
    private final Map<String, String> defaultTopicConfig;
    private final Time time;
    private final ConcurrentHashMap<TopicPartition, MemoryPartitionLog> logs = new ConcurrentHashMap<>();

    public MemoryLogStore(final Map<String, String> defaultTopicConfig, final Time time)
    {
        this.defaultTopicConfig = Map.copyOf(defaultTopicConfig);
        this.time = time;
    }

    private Map<String, String> merged(final Map<String, String> topicConfig)
    {
        final Map<String, String> merged = new HashMap<>(defaultTopicConfig);
        merged.putAll(topicConfig);
        return merged;
    }

    @Override
    public PartitionLog getOrCreate(final TopicPartition partition, final Uuid topicId,
        final Map<String, String> topicConfig)
    {
        return logs.computeIfAbsent(partition, tp -> new MemoryPartitionLog(tp, topicId, merged(topicConfig), time));
    }

    @Override
    public Optional<PartitionLog> get(final TopicPartition partition)
    {
        return Optional.ofNullable(logs.get(partition));
    }

    @Override
    public Collection<PartitionLog> all()
    {
        return List.copyOf(logs.values());
    }

    @Override
    public void updateConfig(final TopicPartition partition, final Map<String, String> topicConfig)
    {
        final MemoryPartitionLog log = logs.get(partition);
        if (log != null)
        {
            log.updateConfig(merged(topicConfig));
        }
    }

    @Override
    public void delete(final TopicPartition partition)
    {
        final MemoryPartitionLog log = logs.remove(partition);
        if (log != null)
        {
            log.delete();
        }
    }

    /** Applies retention to every log; returns the chunks dropped. */
    public int deleteOldSegments()
    {
        int deleted = 0;
        for (final MemoryPartitionLog log : logs.values())
        {
            deleted += log.deleteOldSegments();
        }
        return deleted;
    }

    @Override
    public void checkpoint()
    {
    }

    @Override
    public boolean lastShutdownClean()
    {
        return true;
    }

    @Override
    public void close()
    {
        logs.clear();
    }
}

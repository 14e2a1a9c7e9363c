package io.syncmirror.broker.storage;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The broker's logs kept on the heap ({@link MemoryPartitionLog}), for benchmarks; thread-safe (a concurrent map).
 * Nothing survives a close: checkpoints are no-ops and every start is a clean first start. Retention is applied
 * only when the owner calls {@link #deleteOldSegments()}; no thread is started. Nothing is compacted: a log whose
 * config asks for {@code compact} keeps every record, and a warning names its topic once.
 */
public final class MemoryLogStore implements LogStore
{
    private final Map<String, String> defaultTopicConfig;
    private final Time time;
    private static final Logger LOG = LoggerFactory.getLogger(MemoryLogStore.class);

    private final ConcurrentHashMap<TopicPartition, MemoryPartitionLog> logs = new ConcurrentHashMap<>();
    private final Set<String> warnedUncompacted = ConcurrentHashMap.newKeySet();

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
        return logs.computeIfAbsent(partition, tp ->
        {
            final Map<String, String> config = merged(topicConfig);
            warnIfCompacted(tp.topic(), config);
            return new MemoryPartitionLog(tp, topicId, config, time);
        });
    }

    private void warnIfCompacted(final String topic, final Map<String, String> config)
    {
        final String policy = config.getOrDefault("cleanup.policy", "delete");
        if (policy.contains("compact") && warnedUncompacted.add(topic))
        {
            LOG.warn("{} has cleanup.policy={}, but memory log storage ({}=memory) does not compact: every record "
                + "is kept until the broker stops", topic, policy, "syncmirror.log.storage");
        }
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
            final Map<String, String> config = merged(topicConfig);
            warnIfCompacted(partition.topic(), config);
            log.updateConfig(config);
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

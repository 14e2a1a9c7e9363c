package io.syncmirror.broker.coordinator;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.Uuid;

import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MetadataView;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;

/** A metadata image a test edits directly. Thread-safe. */
final class FakeMetadataView implements MetadataView
{
    private final Map<String, TopicMetadata> topics = new ConcurrentHashMap<>();
    private final Map<Integer, BrokerEndpoint> brokers = new ConcurrentHashMap<>();

    void addBroker(final int id)
    {
        brokers.put(id, new BrokerEndpoint(id, "127.0.0.1", 9000 + id, null));
    }

    void removeBroker(final int id)
    {
        brokers.remove(id);
    }

    /** A topic whose partition i is led by {@code leaders[i]}. */
    void addTopic(final String name, final int... leaders)
    {
        final Uuid id = Uuid.randomUuid();
        final List<PartitionState> partitions = new ArrayList<>();
        for (int i = 0; i < leaders.length; i++)
        {
            partitions.add(new PartitionState(name, id, i, List.of(leaders[i]), List.of(leaders[i]), leaders[i], 0, 0));
        }
        topics.put(name, new TopicMetadata(name, id, Map.of(), partitions));
    }

    /** A topic of {@code count} partitions all led by {@code leader}. */
    void addTopicLedBy(final String name, final int count, final int leader)
    {
        final int[] leaders = new int[count];
        java.util.Arrays.fill(leaders, leader);
        addTopic(name, leaders);
    }

    @Override
    public long appliedOffset()
    {
        return 0;
    }

    @Override
    public long latestKnownOffset()
    {
        return 0;
    }

    @Override
    public Optional<TopicMetadata> topic(final String name)
    {
        return Optional.ofNullable(topics.get(name));
    }

    @Override
    public Optional<TopicMetadata> topic(final Uuid id)
    {
        return topics.values().stream().filter(t -> t.id().equals(id)).findFirst();
    }

    @Override
    public Collection<TopicMetadata> topics()
    {
        return topics.values();
    }

    @Override
    public Collection<BrokerEndpoint> liveBrokers()
    {
        return brokers.values();
    }

    @Override
    public Optional<BrokerEndpoint> broker(final int id)
    {
        return Optional.ofNullable(brokers.get(id));
    }

    @Override
    public int controllerId()
    {
        return 0;
    }
}

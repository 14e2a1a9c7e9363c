package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.errors.SecurityDisabledException;

/** A source cluster in memory that tests edit while the manager reads it. Thread-safe. */
final class FakeSourceClusterClient implements SourceClusterClient
{
    final Map<String, SourceTopic> topics = new ConcurrentHashMap<>();
    final Map<String, Map<TopicPartition, OffsetAndMetadata>> groups = new ConcurrentHashMap<>();
    final AtomicInteger closes = new AtomicInteger();
    volatile boolean reachable = true;
    /** The source's ACLs, served while {@link #authorizer} is set. */
    final Set<AclBinding> acls = ConcurrentHashMap.newKeySet();
    volatile boolean authorizer = true;

    void putTopic(final String name, final Uuid id, final int partitions, final Map<String, String> configs)
    {
        topics.put(name, new SourceTopic(name, id, partitions, configs, false));
    }

    void putTopic(final SourceTopic topic)
    {
        topics.put(topic.name(), topic);
    }

    private void check()
    {
        if (!reachable)
        {
            throw new SourceUnavailableException("source cluster fake:9092 is unreachable", null);
        }
    }

    @Override
    public Set<String> listTopics()
    {
        check();
        return new TreeSet<>(topics.keySet());
    }

    @Override
    public Map<String, SourceTopic> describeTopics(final Collection<String> names)
    {
        check();
        final Map<String, SourceTopic> out = new TreeMap<>();
        for (final String name : names)
        {
            final SourceTopic t = topics.get(name);
            if (t != null)
            {
                out.put(name, t);
            }
        }
        return out;
    }

    @Override
    public List<String> listConsumerGroups()
    {
        check();
        return new ArrayList<>(groups.keySet());
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> listConsumerGroupOffsets(final String groupId)
    {
        check();
        return Map.copyOf(groups.getOrDefault(groupId, Map.of()));
    }

    @Override
    public Collection<AclBinding> describeAcls(final AclBindingFilter filter)
    {
        check();
        if (!authorizer)
        {
            throw new SecurityDisabledException("No Authorizer is configured.");
        }
        return acls.stream().filter(filter::matches).toList();
    }

    @Override
    public void close()
    {
        closes.incrementAndGet();
    }
}

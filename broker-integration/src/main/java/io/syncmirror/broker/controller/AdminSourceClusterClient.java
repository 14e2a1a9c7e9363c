package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeTopicsResult;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

import io.syncmirror.broker.metadata.MirrorDefinition;

/**
 * A {@link SourceClusterClient} on kafka-clients' {@link Admin}, built from the mirror's source bootstrap servers
 * and source client configs. Thread-safe as Admin is; every call waits at most {@code timeoutMs}.
 *
 * <p>Failures: an unreachable or silent source is {@link SourceUnavailableException}; an API the source does not
 * serve (e.g. ListGroups) is Kafka's {@code UnsupportedVersionException}; anything else IllegalStateException.
 */
public final class AdminSourceClusterClient implements SourceClusterClient
{
    private static final String ULE = "unclean.leader.election.enable";

    private final Admin admin;
    private final String bootstrap;
    private final long timeoutMs;

    public AdminSourceClusterClient(final MirrorDefinition mirror, final long timeoutMs)
    {
        final Properties props = new Properties();
        props.putAll(mirror.sourceConfigs());
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, mirror.sourceBootstrapServers());
        props.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "mirror-metadata-" + mirror.name());
        props.putIfAbsent(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(Math.max(1000, timeoutMs)));
        props.putIfAbsent(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, String.valueOf(Math.max(1000, timeoutMs)));
        this.admin = Admin.create(props);
        this.bootstrap = mirror.sourceBootstrapServers();
        this.timeoutMs = timeoutMs;
    }

    /** A factory for {@link MirrorMetadataManager}: one client per mirror, calls bounded by {@code timeoutMs}. */
    public static java.util.function.Function<MirrorDefinition, SourceClusterClient> factory(final long timeoutMs)
    {
        return mirror -> new AdminSourceClusterClient(mirror, timeoutMs);
    }

    @Override
    public Set<String> listTopics()
    {
        return new TreeSet<>(get(admin.listTopics(new ListTopicsOptions().listInternal(false)).names(),
            "list topics"));
    }

    @Override
    public Map<String, SourceTopic> describeTopics(final Collection<String> names)
    {
        final Map<String, SourceTopic> out = new TreeMap<>();
        if (names.isEmpty())
        {
            return out;
        }
        final DescribeTopicsResult described = admin.describeTopics(names);
        final Map<String, TopicDescription> descriptions = new HashMap<>();
        for (final Map.Entry<String, KafkaFuture<TopicDescription>> e : described.topicNameValues().entrySet())
        {
            try
            {
                descriptions.put(e.getKey(), get(e.getValue(), "describe topic " + e.getKey()));
            }
            catch (final UnknownTopicOrPartitionException absent)
            {
                // Not at the source: left out of the result.
            }
        }
        if (descriptions.isEmpty())
        {
            return out;
        }
        final List<ConfigResource> resources = new ArrayList<>();
        for (final String name : descriptions.keySet())
        {
            resources.add(new ConfigResource(ConfigResource.Type.TOPIC, name));
        }
        final Map<ConfigResource, Config> configs = get(admin.describeConfigs(resources).all(), "describe configs");
        for (final TopicDescription d : descriptions.values())
        {
            final Config config = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, d.name()));
            final Map<String, String> dynamic = new TreeMap<>();
            boolean ule = false;
            if (config != null)
            {
                for (final ConfigEntry entry : config.entries())
                {
                    if (entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG && entry.value() != null)
                    {
                        dynamic.put(entry.name(), entry.value());
                    }
                    if (ULE.equals(entry.name()) && entry.value() != null)
                    {
                        ule = Boolean.parseBoolean(entry.value().trim());
                    }
                }
            }
            out.put(d.name(), new SourceTopic(d.name(), d.topicId(), d.partitions().size(), dynamic, ule));
        }
        return out;
    }

    @Override
    public List<String> listConsumerGroups()
    {
        final List<String> out = new ArrayList<>();
        for (final GroupListing g : get(admin.listGroups(ListGroupsOptions.forConsumerGroups()).all(),
            "list consumer groups"))
        {
            out.add(g.groupId());
        }
        return out;
    }

    @Override
    public Map<TopicPartition, OffsetAndMetadata> listConsumerGroupOffsets(final String groupId)
    {
        final Map<TopicPartition, OffsetAndMetadata> offsets = get(
            admin.listConsumerGroupOffsets(groupId).partitionsToOffsetAndMetadata(), "list offsets of " + groupId);
        final Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
        for (final Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet())
        {
            if (e.getValue() != null)
            {
                out.put(e.getKey(), e.getValue());
            }
        }
        return out;
    }

    @Override
    public Collection<AclBinding> describeAcls(final AclBindingFilter filter)
    {
        return get(admin.describeAcls(filter).values(), "describe ACLs");
    }

    private <T> T get(final KafkaFuture<T> future, final String what)
    {
        try
        {
            return future.get(timeoutMs, TimeUnit.MILLISECONDS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new SourceUnavailableException(what + " at source cluster " + bootstrap + " was interrupted", e);
        }
        catch (final TimeoutException e)
        {
            throw new SourceUnavailableException("source cluster " + bootstrap + " did not answer " + what
                + " within " + timeoutMs + " ms", e);
        }
        catch (final ExecutionException e)
        {
            final Throwable cause = e.getCause();
            if (cause instanceof UnknownTopicOrPartitionException unknown)
            {
                throw unknown;
            }
            if (cause instanceof org.apache.kafka.common.errors.SecurityDisabledException
                || cause instanceof org.apache.kafka.common.errors.ClusterAuthorizationException)
            {
                throw (org.apache.kafka.common.errors.ApiException) cause;
            }
            if (cause instanceof org.apache.kafka.common.errors.UnsupportedVersionException)
            {
                throw new org.apache.kafka.common.errors.UnsupportedVersionException("source cluster " + bootstrap
                    + " does not support " + what + ": " + cause.getMessage(), cause);
            }
            if (cause instanceof org.apache.kafka.common.errors.TimeoutException
                || cause instanceof org.apache.kafka.common.errors.RetriableException)
            {
                throw new SourceUnavailableException("source cluster " + bootstrap + " is unreachable (" + what
                    + "): " + cause.getMessage(), cause);
            }
            throw new IllegalStateException(what + " at source cluster " + bootstrap + " failed: "
                + cause, cause);
        }
    }

    @Override
    public void close()
    {
        admin.close(java.time.Duration.ofMillis(Math.min(timeoutMs, 5000)));
    }
}

package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.function.Supplier;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.SyncCommitFence;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.mirror.sync.RemotePartition;
import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;

/**
 * AlterMirrorTopicType (destination role) as a broker answers an operator's request, and the mirror coordinator's
 * sync control-path links. The desired type goes to every partition through the coordinator of each partition's
 * leader (the request passed on with {@code LocalPartitionsOnly}); a demotion also commits the effective ASYNC
 * type at once (at the controller, through {@link EffectiveTypes}), and the coordinators then unregister at the
 * source. A promotion answers NONE, with a "pending lag drain" note while any partition lags; the coordinators
 * promote. Thread-safety: stateless apart from its collaborators; callers run it off the network threads.
 */
final class MirrorTypeApis
{
    /** Commits effective mirror types at the controller: in-process on the active controller, else forwarded. */
    @FunctionalInterface
    interface EffectiveTypes
    {
        AlterMirrorTopicTypeResponseData commit(AlterMirrorTopicTypeRequestData request);
    }

    /** Between asks of the brokers whose coordinators do not coordinate an added topic's partitions yet. */
    private static final long ADD_SYNC_RETRY_BACKOFF_MS = 50;

    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final MirrorCoordinator coordinator;
    private final MirrorDescribeApis describe;
    private final EffectiveTypes controller;
    private final MirrorWireClients clients;
    private final ExecutorService fanOut;
    private final long timeoutMs;
    private final RetryWait retryWait;

    MirrorTypeApis(final int brokerId, final Supplier<MetadataImage> image, final MirrorCoordinator coordinator,
        final MirrorDescribeApis describe, final EffectiveTypes controller, final MirrorWireClients clients,
        final ExecutorService fanOut, final long timeoutMs, final MirrorCoordinator.MetadataWaiter metadataWaiter)
    {
        this.retryWait = new RetryWait(image, metadataWaiter, ADD_SYNC_RETRY_BACKOFF_MS, System::currentTimeMillis);
        this.brokerId = brokerId;
        this.image = image;
        this.coordinator = coordinator;
        this.describe = describe;
        this.controller = controller;
        this.clients = clients;
        this.fanOut = fanOut;
        this.timeoutMs = timeoutMs;
    }

    /**
     * {@code --add --sync} of named topics: {@link #setDesiredSyncOnAdd(String, java.util.regex.Pattern, long)}
     * for all of them at once. Each round asks every broker once for the topics not done yet, so an add of a
     * thousand topics costs a few rounds, not a thousand. Per topic left undone, what is left; none when done.
     */
    Map<String, String> setDesiredSyncOnAdd(final String mirrorName, final java.util.Collection<String> names,
        final long deadlineMs)
    {
        final java.util.Set<String> left = new java.util.LinkedHashSet<>(names);
        final Map<String, String> why = new HashMap<>();
        boolean first = true;
        while (!left.isEmpty() && (first || System.currentTimeMillis() < deadlineMs))
        {
            first = false; // at least one try, however long the commit before it took
            final MetadataImage decidedOn = retryWait.current();
            final List<TopicMetadata> topics = new ArrayList<>();
            for (final String name : left)
            {
                final Optional<TopicMetadata> topic = decidedOn.topic(name);
                if (topic.isPresent() && mirrorName.equals(MirrorTopicConfig.activeMirror(topic.get().config())))
                {
                    topics.add(topic.get());
                    why.put(name, "partitions have no leader coordinating them yet");
                }
                else
                {
                    why.put(name, "the topic is not in this broker's metadata yet");
                }
            }
            left.removeAll(applySync(mirrorName, topics));
            // Added topics reach this image, and their leaders, by metadata; a leader's coordinator taking its
            // partition is only seen by asking again.
            if (!left.isEmpty() && !retryWait.awaitChange(decidedOn, deadlineMs))
            {
                break;
            }
        }
        final Map<String, String> notes = new HashMap<>();
        for (final String name : left)
        {
            notes.put(name, "desired type SYNC not set within " + timeoutMs + " ms (" + why.get(name)
                + "); run --alter --sync to set it");
        }
        return notes;
    }

    /**
     * {@code --add --sync}: once the added topics are in this broker's image and their partitions have leaders,
     * their desired type becomes SYNC on every partition (the same path as {@code --alter --sync}); the
     * coordinators promote them when their lag is 0. Null when done, else what is left undone.
     */
    String setDesiredSyncOnAdd(final String mirrorName, final java.util.regex.Pattern names,
        final long deadlineMs)
    {
        String left = "no topic matched yet";
        boolean first = true;
        while (first || System.currentTimeMillis() < deadlineMs)
        {
            first = false; // at least one try, however long the commit before it took
            final MetadataImage decidedOn = retryWait.current();
            final List<TopicMetadata> topics = new ArrayList<>();
            for (final TopicMetadata topic : decidedOn.topics())
            {
                if (mirrorName.equals(MirrorTopicConfig.activeMirror(topic.config())) &&
                    names.matcher(topic.name()).matches())
                {
                    topics.add(topic);
                }
            }
            if (!topics.isEmpty())
            {
                final java.util.Set<String> done = applySync(mirrorName, topics);
                final List<String> missing = new ArrayList<>();
                for (final TopicMetadata topic : topics)
                {
                    if (!done.contains(topic.name()))
                    {
                        missing.add(topic.name());
                    }
                }
                if (missing.isEmpty())
                {
                    return null;
                }
                left = "partitions of " + missing + " have no leader coordinating them yet";
            }
            // Added topics reach this image, and their leaders, by metadata; a leader's coordinator taking its
            // partition is only seen by asking again.
            if (!retryWait.awaitChange(decidedOn, deadlineMs))
            {
                break;
            }
        }
        return "desired type SYNC not set within " + timeoutMs + " ms (" + left + "); run --alter --sync to set it";
    }

    /**
     * One round of an add's desired SYNC: every broker asked once for {@code topics}; the names of those whose every
     * partition took it (the others wait for their leaders' coordinators).
     */
    private java.util.Set<String> applySync(final String mirrorName, final List<TopicMetadata> topics)
    {
        final java.util.Set<String> done = new java.util.HashSet<>();
        if (topics.isEmpty())
        {
            return done;
        }
        final List<AlterMirrorTopicTypeRequestData.AlterMirrorTopic> request = new ArrayList<>();
        for (final TopicMetadata topic : topics)
        {
            request.add(new AlterMirrorTopicTypeRequestData.AlterMirrorTopic().setTopicId(topic.id())
                .setTopicName(topic.name()).setMirrorType(MirrorType.SYNC.id()));
        }
        final Map<String, java.util.Set<Integer>> applied = applyDesiredEverywhere(mirrorName, request);
        for (final TopicMetadata topic : topics)
        {
            if (applied.getOrDefault(topic.name(), java.util.Set.of()).size() >= topic.partitions().size())
            {
                done.add(topic.name());
            }
        }
        return done;
    }

    /**
     * Sets the desired type on the partitions this broker leads; each topic's answer names them in its message
     * (comma-separated partition indexes), which only the broker that passed the request on reads.
     */
    AlterMirrorTopicTypeResponseData applyDesiredLocally(final AlterMirrorTopicTypeRequestData request)
    {
        final List<AlterMirrorTopicTypeResponseData.TopicResult> results = new ArrayList<>();
        // Every topic's writes go out before any is awaited: a request may name thousands of topics.
        final List<CompletableFuture<java.util.Set<Integer>>> pending = new ArrayList<>();
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : request.topics())
        {
            pending.add(coordinator.setDesiredMirrorType(request.mirrorName(), topic.topicId(), topic.mirrorType()));
        }
        int index = 0;
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : request.topics())
        {
            final CompletableFuture<java.util.Set<Integer>> future = pending.get(index++);
            try
            {
                final java.util.Set<Integer> applied = MirrorApis.await(future, timeoutMs);
                final StringBuilder partitions = new StringBuilder();
                for (final int partition : applied)
                {
                    partitions.append(partitions.length() == 0 ? "" : ",").append(partition);
                }
                results.add(TopicResults.altered(topic.topicName(), Errors.NONE, partitions.toString()));
            }
            catch (final RuntimeException e)
            {
                results.add(TopicResults.altered(topic.topicName(), Errors.forException(e), e.getMessage()));
            }
        }
        return new AlterMirrorTopicTypeResponseData().setTopics(results);
    }

    /** An operator's AlterMirrorTopicType: desired type on every partition, then demotion or the lag note. */
    AlterMirrorTopicTypeResponseData alterTypes(final AlterMirrorTopicTypeRequestData request)
    {
        final List<AlterMirrorTopicTypeResponseData.TopicResult> results = new ArrayList<>();
        final MetadataImage current = image.get();
        final List<AlterMirrorTopicTypeRequestData.AlterMirrorTopic> valid = new ArrayList<>();
        final Map<String, TopicMetadata> topics = new HashMap<>();
        // Why the mirror takes no SYNC topic (its source link is not PLAINTEXT), or null.
        final String syncRefusal = Optional.ofNullable(current.mirrors().get(request.mirrorName()))
            .map(MirrorDefinition::syncRefusal).orElse(null);
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : request.topics())
        {
            final Optional<TopicMetadata> found = SyncRegistrationApis.resolve(current, topic.topicId(), topic.topicName());
            if (topic.mirrorType() != MirrorType.ASYNC.id() && topic.mirrorType() != MirrorType.SYNC.id())
            {
                results.add(TopicResults.altered(topic.topicName(), Errors.INVALID_REQUEST, "unknown mirror type " +
                    topic.mirrorType() + " (0 ASYNC, 1 SYNC)"));
            }
            else if (found.isEmpty())
            {
                results.add(TopicResults.altered(topic.topicName(), Errors.UNKNOWN_TOPIC_OR_PARTITION, "topic '" +
                    topic.topicName() + "' does not exist"));
            }
            else if (!request.mirrorName().equals(MirrorTopicConfig.activeMirror(found.get().config())))
            {
                results.add(TopicResults.altered(topic.topicName(), Errors.INVALID_REQUEST,
                    "topic '" + topic.topicName() + "' is not actively mirrored by cluster mirror '" + request.mirrorName() + "'"));
            }
            else if (topic.mirrorType() == MirrorType.SYNC.id() && syncRefusal != null)
            {
                results.add(TopicResults.altered(topic.topicName(), Errors.INVALID_CONFIG, syncRefusal));
            }
            else
            {
                topics.put(found.get().name(), found.get());
                valid.add(new AlterMirrorTopicTypeRequestData.AlterMirrorTopic().setTopicId(found.get().id())
                    .setTopicName(found.get().name()).setMirrorType(topic.mirrorType()));
            }
        }
        if (valid.isEmpty())
        {
            return new AlterMirrorTopicTypeResponseData().setTopics(results);
        }
        final Map<String, java.util.Set<Integer>> applied = applyDesiredEverywhere(request.mirrorName(), valid);
        final Map<String, Long> lags = valid.stream().anyMatch(t -> t.mirrorType() == MirrorType.SYNC.id()) ?
            lagsByPartition(request.mirrorName()) : Map.of();
        for (final AlterMirrorTopicTypeRequestData.AlterMirrorTopic topic : valid)
        {
            final TopicMetadata metadata = topics.get(topic.topicName());
            final List<Integer> missing = new ArrayList<>();
            for (final PartitionState state : metadata.partitions())
            {
                if (!applied.getOrDefault(topic.topicName(), java.util.Set.of()).contains(state.partition()))
                {
                    missing.add(state.partition());
                }
            }
            if (!missing.isEmpty())
            {
                results.add(TopicResults.altered(topic.topicName(), Errors.LEADER_NOT_AVAILABLE,
                    "partitions " + missing + " of topic '" + topic.topicName() + "' have no live leader coordinating them; retry"));
                continue;
            }
            if (topic.mirrorType() == MirrorType.ASYNC.id())
            {
                // Demotion takes effect at once: the source stops gating when the coordinators' Unregister lands.
                final AlterMirrorTopicTypeResponseData.TopicResult committed = commitEffective(topic.topicId(),
                    topic.topicName(), MirrorType.ASYNC.id());
                results.add(committed);
                continue;
            }
            final StringBuilder lagging = new StringBuilder();
            for (final PartitionState state : metadata.partitions())
            {
                final long lag = lags.getOrDefault(topic.topicName() + "-" + state.partition(), -1L);
                if (lag != 0)
                {
                    lagging.append(lagging.length() == 0 ? "" : ", ").append(state.partition()).append(": ")
                        .append(lag < 0 ? "unknown" : Long.toString(lag));
                }
            }
            final boolean alreadySync = current.syncState(topic.topicId()).mirrorType() == MirrorType.SYNC.id();
            results.add(TopicResults.altered(topic.topicName(), Errors.NONE, alreadySync || lagging.length() == 0
                ? null : "promotion to SYNC is pending lag drain (partition lags " + lagging + "); it happens "
                    + "automatically once every partition's lag is 0"));
        }
        return new AlterMirrorTopicTypeResponseData().setTopics(results);
    }

    /** The desired type through every live broker's coordinator; per topic, the partitions that took it. */
    private Map<String, java.util.Set<Integer>> applyDesiredEverywhere(final String mirrorName,
        final List<AlterMirrorTopicTypeRequestData.AlterMirrorTopic> topics)
    {
        final AlterMirrorTopicTypeRequestData local = new AlterMirrorTopicTypeRequestData().setMirrorName(mirrorName)
            .setTopics(topics).setLocalPartitionsOnly(true);
        final List<CompletableFuture<AlterMirrorTopicTypeResponseData>> answers = new ArrayList<>();
        for (final BrokerEndpoint broker : image.get().liveBrokers())
        {
            answers.add(broker.id() == brokerId ? CompletableFuture.completedFuture(applyDesiredLocally(local)) :
                CompletableFuture.supplyAsync(() ->
                {
                    try
                    {
                        return clients.send(broker.host(), broker.port(), local,
                            AlterMirrorTopicTypeResponseData.class);
                    }
                    catch (final IOException e)
                    {
                        return null; // that broker's partitions show as missing: the caller answers retriable
                    }
                }, fanOut));
        }
        final Map<String, java.util.Set<Integer>> applied = new HashMap<>();
        for (final CompletableFuture<AlterMirrorTopicTypeResponseData> answer : answers)
        {
            final AlterMirrorTopicTypeResponseData response = answer.join();
            if (response == null)
            {
                continue;
            }
            for (final AlterMirrorTopicTypeResponseData.TopicResult topic : response.topics())
            {
                if (topic.errorCode() != Errors.NONE.code() || topic.errorMessage() == null ||
                    topic.errorMessage().isEmpty())
                {
                    continue;
                }
                for (final String partition : topic.errorMessage().split(","))
                {
                    applied.computeIfAbsent(topic.topicName(), k -> new java.util.HashSet<>())
                        .add(Integer.parseInt(partition.trim()));
                }
            }
        }
        return applied;
    }

    /** Lag of every partition of the mirror, keyed topic-partition, as the whole cluster's describe shows it. */
    private Map<String, Long> lagsByPartition(final String mirrorName)
    {
        final Map<String, Long> lags = new HashMap<>();
        final DescribeClusterMirrorsResponseData described = describe.describeEverywhere(
            new DescribeClusterMirrorsRequestData().setMirrorNames(List.of(mirrorName)));
        for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : described.mirrors())
        {
            for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
            {
                for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : topic.partitions())
                {
                    lags.put(topic.topicName() + "-" + partition.partitionIndex(),
                        partition.state() == MirrorPartitionState.MIRRORING.id() ? partition.lag() : -1L);
                }
            }
        }
        return lags;
    }

    /** Commits a topic's effective mirror type at the controller (in-process or forwarded). */
    private AlterMirrorTopicTypeResponseData.TopicResult commitEffective(final Uuid topicId, final String topicName,
        final byte mirrorType)
    {
        return commitEffective(topicId, topicName, mirrorType, SyncCommitFence.NONE);
    }

    /** {@link #commitEffective(Uuid, String, byte)} numbered by the topic's sync driver. */
    private AlterMirrorTopicTypeResponseData.TopicResult commitEffective(final Uuid topicId, final String topicName,
        final byte mirrorType, final long driverEpoch)
    {
        final AlterMirrorTopicTypeRequestData request = new AlterMirrorTopicTypeRequestData().setEffective(true)
            .setDriverEpoch(driverEpoch)
            .setTopics(List.of(new AlterMirrorTopicTypeRequestData.AlterMirrorTopic().setTopicId(topicId)
                .setTopicName(topicName).setMirrorType(mirrorType)));
        try
        {
            final AlterMirrorTopicTypeResponseData response = controller.commit(request);
            for (final AlterMirrorTopicTypeResponseData.TopicResult result : response.topics())
            {
                return result.setTopicName(topicName);
            }
            return TopicResults.altered(topicName, Errors.UNKNOWN_SERVER_ERROR, "the controller answered no result");
        }
        catch (final RuntimeException e)
        {
            return TopicResults.altered(topicName, Errors.forException(e), e.getMessage());
        }
    }

    /** The coordinator's sync control-path links: the controller, the other brokers, the mirror's source. */
    MirrorCoordinator.SyncChannel syncChannel()
    {
        return new MirrorCoordinator.SyncChannel()
        {
            @Override
            public void commitMirrorType(final Uuid topicId, final byte mirrorType, final long driverEpoch)
            {
                final String name = image.get().topic(topicId).map(TopicMetadata::name).orElse("");
                final AlterMirrorTopicTypeResponseData.TopicResult result = commitEffective(topicId, name, mirrorType,
                    driverEpoch);
                if (result.errorCode() != Errors.NONE.code())
                {
                    throw Errors.forCode(result.errorCode()).exception("committing mirror type " + mirrorType +
                        " of topic '" + name + "': " + result.errorMessage());
                }
            }

            @Override
            public Map<Uuid, Map<Integer, RemotePartition>> remotePartitions(
                final String mirrorName)
            {
                final Map<Uuid, Map<Integer, RemotePartition>> remote = new HashMap<>();
                final DescribeClusterMirrorsResponseData described = describe.describeEverywhere(
                    new DescribeClusterMirrorsRequestData().setMirrorNames(List.of(mirrorName)));
                for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : described.mirrors())
                {
                    for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
                    {
                        for (final DescribeClusterMirrorsResponseData.MirrorPartition p : topic.partitions())
                        {
                            if (p.leaderId() != brokerId && p.destinationOffset() >= 0)
                            {
                                remote.computeIfAbsent(topic.topicId(), k -> new HashMap<>()).put(p.partitionIndex(),
                                    new RemotePartition(MirrorPartitionState.forId(p.state()),
                                        p.lag(), p.syncFailingForMs()));
                            }
                        }
                    }
                }
                return remote;
            }

            @Override
            public <T extends ApiMessage> T sendToSource(final SourceCluster source, final ApiMessage request,
                final Class<T> type) throws IOException
            {
                IOException last = null;
                for (final String server : source.bootstrapServers().split(","))
                {
                    if (server.isBlank())
                    {
                        continue;
                    }
                    try
                    {
                        final MirrorWireClient.HostPort hostPort = MirrorWireClient.parse(server);
                        return clients.send(hostPort.host(), hostPort.port(), source.wireSecurity(), request, type);
                    }
                    catch (final IOException e)
                    {
                        last = e;
                    }
                }
                throw last != null ? last : new IOException("mirror '" + source.mirrorName() +
                    "' has no source bootstrap server");
            }
        };
    }
}

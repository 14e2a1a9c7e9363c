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
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.controller.MirrorMetadataManager;
import io.syncmirror.broker.metadata.BrokerEndpoint;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.LastMirroredOffsetsRequestData;
import io.syncmirror.protocol.LastMirroredOffsetsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;

/**
 * DescribeClusterMirrors and LastMirroredOffsets as a broker answers them (the mirror RPCs that read state rather
 * than change it), and failback's LastMirroredOffsets call to a source. A describe is answered from this broker's
 * metadata image for mirrors and topics and from the partition leaders for per-partition state: the broker asks
 * every other live broker for the partitions it leads ({@code LocalPartitionsOnly}) on the fan-out threads and
 * merges the answers. Thread-safety: stateless apart from its collaborators; any thread (never a Netty event loop,
 * as {@link #describeEverywhere} blocks).
 */
final class MirrorDescribeApis
{
    private final int brokerId;
    private final Supplier<MetadataImage> image;
    private final MirrorCoordinator coordinator;
    private final MirrorMetadataManager metadataManager;
    private final MirrorWireClients clients;
    private final ExecutorService fanOut;
    private final long timeoutMs;

    /** @param metadataManager the controller node's mirror metadata manager (its last sync error), else null */
    MirrorDescribeApis(final int brokerId, final Supplier<MetadataImage> image, final MirrorCoordinator coordinator,
        final MirrorMetadataManager metadataManager, final MirrorWireClients clients, final ExecutorService fanOut,
        final long timeoutMs)
    {
        this.brokerId = brokerId;
        this.image = image;
        this.coordinator = coordinator;
        this.metadataManager = metadataManager;
        this.clients = clients;
        this.fanOut = fanOut;
        this.timeoutMs = timeoutMs;
    }

    // ------------------------------------------------------------------------------------------------------
    // DescribeClusterMirrors.
    // ------------------------------------------------------------------------------------------------------

    /**
     * The local answer merged with every other live broker's partitions, asked in parallel on the fan-out
     * threads; blocks the caller (never a pool thread waiting on pool threads, which could starve the pool).
     */
    DescribeClusterMirrorsResponseData describeEverywhere(final DescribeClusterMirrorsRequestData request)
    {
        final DescribeClusterMirrorsResponseData local = describeLocally(request);
        final DescribeClusterMirrorsRequestData fanOutRequest = new DescribeClusterMirrorsRequestData()
            .setMirrorNames(request.mirrorNames()).setLocalPartitionsOnly(true);
        final List<CompletableFuture<DescribeClusterMirrorsResponseData>> answers = new ArrayList<>();
        for (final BrokerEndpoint broker : image.get().liveBrokers())
        {
            if (broker.id() == brokerId)
            {
                continue;
            }
            answers.add(CompletableFuture.supplyAsync(() ->
            {
                try
                {
                    return clients.send(broker.host(), broker.port(), fanOutRequest,
                        DescribeClusterMirrorsResponseData.class);
                }
                catch (final IOException e)
                {
                    return null; // that broker's partitions show as not reported
                }
            }, fanOut));
        }
        for (final CompletableFuture<DescribeClusterMirrorsResponseData> answer : answers)
        {
            final DescribeClusterMirrorsResponseData other = answer.join();
            if (other != null)
            {
                merge(local, other);
            }
        }
        return local;
    }

    /** The mirrors and their topics from this broker's image, with the partitions this broker coordinates. */
    DescribeClusterMirrorsResponseData describeLocally(final DescribeClusterMirrorsRequestData request)
    {
        final MetadataImage current = image.get();
        final Map<String, MirrorDefinition> defined = current.mirrors();
        final List<String> names = request.mirrorNames() == null ? new ArrayList<>(defined.keySet()) :
            request.mirrorNames();
        final Map<String, List<MirrorCoordinator.Status>> statusByTopic = new HashMap<>();
        for (final MirrorCoordinator.Status status : coordinator.statuses())
        {
            statusByTopic.computeIfAbsent(status.partition().topic(), k -> new ArrayList<>()).add(status);
        }
        final Map<Uuid, Byte> desiredTypes = coordinator.desiredMirrorTypes();
        final Map<org.apache.kafka.common.TopicPartition, MirrorCoordinator.SyncStatus> syncByPartition =
            new HashMap<>();
        for (final MirrorCoordinator.SyncStatus status : coordinator.syncStatuses())
        {
            syncByPartition.put(status.partition(), status);
        }
        final List<DescribeClusterMirrorsResponseData.MirrorDescription> mirrors = new ArrayList<>();
        for (final String name : names)
        {
            final MirrorDefinition definition = defined.get(name);
            final DescribeClusterMirrorsResponseData.MirrorDescription description =
                new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName(name);
            if (definition == null)
            {
                mirrors.add(description.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                    .setErrorMessage("no cluster mirror named '" + name + "'"));
                continue;
            }
            description.setSourceBootstrapServers(definition.sourceBootstrapServers())
                .setIncludeTopics(definition.includeTopics()).setExcludeTopics(definition.excludeTopics())
                .setMirrorConfigs(definition.mirrorConfigs().entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue()).toList());
            if (metadataManager != null)
            {
                metadataManager.lastError(name).ifPresent(error -> description
                    .setErrorCode(Errors.NONE.code()).setErrorMessage("last metadata sync: " + error));
            }
            final List<DescribeClusterMirrorsResponseData.MirrorTopic> topics = new ArrayList<>();
            for (final TopicMetadata topic : current.topics())
            {
                final String active = MirrorTopicConfig.activeMirror(topic.config());
                final String removed = MirrorTopicConfig.removedMirror(topic.config());
                if (!name.equals(active) && !name.equals(removed))
                {
                    continue;
                }
                final List<DescribeClusterMirrorsResponseData.MirrorPartition> partitions = new ArrayList<>();
                for (final MirrorCoordinator.Status status : statusByTopic.getOrDefault(topic.name(), List.of()))
                {
                    if (status.topicId().equals(topic.id()) && status.mirrorName().equals(name))
                    {
                        final MirrorCoordinator.SyncStatus sync = syncByPartition.get(status.partition());
                        partitions.add(partition(status).setSyncFailingForMs(sync == null ? -1L :
                            sync.failingForMs()));
                    }
                }
                if (!request.localPartitionsOnly())
                {
                    addUnreported(partitions, topic);
                }
                final byte effective = current.syncState(topic.id()).mirrorType();
                final byte desired = (byte)Math.max(MirrorType.ASYNC.id(),
                    desiredTypes.getOrDefault(topic.id(), (byte)-1));
                final boolean recovery = coordinator.recoveryPending(topic.id());
                topics.add(new DescribeClusterMirrorsResponseData.MirrorTopic().setTopicId(topic.id())
                    .setTopicName(topic.name()).setDesiredMirrorType(desired).setEffectiveMirrorType(effective)
                    .setRecoveryPending(recovery)
                    .setStatusMessage(removed != null ? "removed from the mirror (failed over)" :
                        syncNote(desired, effective, recovery))
                    .setPartitions(partitions));
            }
            mirrors.add(description.setTopics(topics));
        }
        return new DescribeClusterMirrorsResponseData().setMirrors(mirrors);
    }

    /** The spec's annotation of a topic whose desired and effective types differ; null when they agree. */
    private static String syncNote(final byte desired, final byte effective, final boolean recoveryPending)
    {
        if (recoveryPending)
        {
            return "released by source — recovery in flight";
        }
        if (desired == MirrorType.SYNC.id() && effective != MirrorType.SYNC.id())
        {
            return "promotion to SYNC pending lag drain";
        }
        return null;
    }

    private DescribeClusterMirrorsResponseData.MirrorPartition partition(final MirrorCoordinator.Status status)
    {
        return new DescribeClusterMirrorsResponseData.MirrorPartition()
            .setPartitionIndex(status.partition().partition())
            .setState(status.state().id())
            .setLeaderId(brokerId)
            .setSourceOffset(status.sourceHighWatermark())
            .setDestinationOffset(status.destinationOffset())
            .setLag(status.lag())
            .setLastErrorCode(status.lastError().code())
            .setLastErrorMessage(status.lastErrorMessage());
    }

    /** Partitions no leader reported yet (no leader, or not coordinating yet): UNKNOWN. */
    private static void addUnreported(final List<DescribeClusterMirrorsResponseData.MirrorPartition> partitions,
        final TopicMetadata topic)
    {
        for (final PartitionState state : topic.partitions())
        {
            boolean reported = false;
            for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : partitions)
            {
                reported |= partition.partitionIndex() == state.partition();
            }
            if (!reported)
            {
                partitions.add(new DescribeClusterMirrorsResponseData.MirrorPartition()
                    .setPartitionIndex(state.partition()).setState(MirrorPartitionState.UNKNOWN.id())
                    .setLeaderId(state.leader()));
            }
        }
    }

    /** Adds another broker's partitions to the local answer (it replaces the placeholders of unreported ones). */
    private static void merge(final DescribeClusterMirrorsResponseData into,
        final DescribeClusterMirrorsResponseData other)
    {
        for (final DescribeClusterMirrorsResponseData.MirrorDescription otherMirror : other.mirrors())
        {
            for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : into.mirrors())
            {
                if (!mirror.mirrorName().equals(otherMirror.mirrorName()))
                {
                    continue;
                }
                for (final DescribeClusterMirrorsResponseData.MirrorTopic otherTopic : otherMirror.topics())
                {
                    for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
                    {
                        if (!topic.topicId().equals(otherTopic.topicId()))
                        {
                            continue;
                        }
                        // The desired type and the recovery hint live with the partitions' (and the driver's)
                        // coordinators: the union of what the brokers hold.
                        if (otherTopic.desiredMirrorType() > topic.desiredMirrorType())
                        {
                            topic.setDesiredMirrorType(otherTopic.desiredMirrorType());
                        }
                        topic.setRecoveryPending(topic.recoveryPending() || otherTopic.recoveryPending());
                        if (topic.statusMessage() == null || otherTopic.recoveryPending())
                        {
                            topic.setStatusMessage(otherTopic.statusMessage());
                        }
                        for (final DescribeClusterMirrorsResponseData.MirrorPartition partition :
                            otherTopic.partitions())
                        {
                            topic.partitions().removeIf(p -> p.partitionIndex() == partition.partitionIndex() &&
                                (p.leaderId() != partition.leaderId() || p.destinationOffset() < 0));
                            topic.partitions().add(partition);
                        }
                        topic.partitions().sort(java.util.Comparator.comparingInt(
                            DescribeClusterMirrorsResponseData.MirrorPartition::partitionIndex));
                    }
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // LastMirroredOffsets (failback: the old source asks the new one).
    // ------------------------------------------------------------------------------------------------------

    LastMirroredOffsetsResponseData lastMirroredOffsets(final LastMirroredOffsetsRequestData request)
    {
        final MetadataImage current = image.get();
        final List<LastMirroredOffsetsResponseData.TopicResult> topics = new ArrayList<>();
        for (final LastMirroredOffsetsRequestData.TopicRequest topic : request.topics())
        {
            final Optional<TopicMetadata> found = !Uuid.ZERO_UUID.equals(topic.topicId()) ?
                current.topic(topic.topicId()) : current.topic(topic.topicName());
            final List<LastMirroredOffsetsResponseData.PartitionResult> partitions = new ArrayList<>();
            for (final int index : topic.partitions())
            {
                final LastMirroredOffsetsResponseData.PartitionResult result =
                    new LastMirroredOffsetsResponseData.PartitionResult().setPartitionIndex(index);
                if (found.isEmpty() || index < 0 || index >= found.get().partitions().size())
                {
                    partitions.add(result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                    continue;
                }
                if (found.get().partitions().get(index).leader() != brokerId)
                {
                    partitions.add(result.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code()));
                    continue;
                }
                final Optional<MirrorStateRecord> state = coordinator.stateOf(found.get().id(), index);
                if (state.isPresent() && state.get().lastMirroredOffset() >= 0)
                {
                    result.setLastMirroredOffset(state.get().lastMirroredOffset())
                        .setLastMirrorEpoch(state.get().lastMirrorEpoch());
                }
                partitions.add(result);
            }
            topics.add(new LastMirroredOffsetsResponseData.TopicResult().setTopicId(found.map(TopicMetadata::id)
                .orElse(topic.topicId())).setTopicName(topic.topicName()).setPartitions(partitions));
        }
        return new LastMirroredOffsetsResponseData().setTopics(topics);
    }

    /**
     * Failback's LastMirroredOffsets call to the new source's partition leader, on a connection of its own (a
     * pooled one could have been closed while idle). A source that closes the connection on the request (Kafka
     * brokers do so for an API key they do not know) or answers UNSUPPORTED_VERSION does not serve it: empty, and
     * the caller truncates to 0. One that cannot be reached or does not answer in time is an error, retried: a
     * slow source must never cost the old source its whole log.
     */
    MirrorCoordinator.LastMirroredLookup lastMirroredLookup()
    {
        return (source, leader, topic, topicId, partition) ->
        {
            final LastMirroredOffsetsRequestData request = new LastMirroredOffsetsRequestData().setTopics(List.of(
                new LastMirroredOffsetsRequestData.TopicRequest().setTopicId(topicId).setTopicName(topic)
                    .setPartitions(List.of(partition))));
            final LastMirroredOffsetsResponseData response;
            try (MirrorWireClient client = MirrorWireClient.connect(leader.host(), leader.port(),
                "broker-" + brokerId + "-failback", (int)timeoutMs, (int)timeoutMs, source.wireSecurity()))
            {
                response = client.send(request, LastMirroredOffsetsResponseData.class);
            }
            catch (final IOException e)
            {
                if (e.getCause() instanceof java.io.EOFException)
                {
                    return Optional.empty();
                }
                throw e;
            }
            for (final LastMirroredOffsetsResponseData.TopicResult result : response.topics())
            {
                for (final LastMirroredOffsetsResponseData.PartitionResult p : result.partitions())
                {
                    if (p.partitionIndex() != partition)
                    {
                        continue;
                    }
                    if (p.errorCode() == Errors.UNSUPPORTED_VERSION.code())
                    {
                        return Optional.empty();
                    }
                    if (p.errorCode() != Errors.NONE.code())
                    {
                        throw Errors.forCode(p.errorCode()).exception("LastMirroredOffsets of " + topic + "-" +
                            partition + " at the source");
                    }
                    return p.lastMirroredOffset() < 0 ? Optional.empty() :
                        Optional.of(new long[] {p.lastMirroredOffset(), p.lastMirrorEpoch()});
                }
            }
            return Optional.empty();
        };
    }
}

package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.metadata.authorizer.StandardAcl;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MirrorDefinition;

/**
 * The controller's mirror operations for callers on any thread (the mirror RPC handlers on the controller node,
 * the {@link MirrorMetadataManager}). Thread-safe: each call runs on the controller's event thread through
 * {@link ControllerApis#onEventThread} and completes only after its records are appended to the metadata log
 * (and parked metadata fetches are woken), so a broker that then catches up sees the change.
 */
public final class MirrorController
{
    private final ControllerApis apis;

    public MirrorController(final ControllerApis apis)
    {
        this.apis = apis;
    }

    /** Whether this node's controller is the active one (see {@link ControllerApis#isActive}). */
    public boolean isActive()
    {
        return apis.isActive();
    }

    /** The epoch this node's controller is active in, -1 when it is not (see {@link ControllerApis#activeEpoch}). */
    public int activeEpoch()
    {
        return apis.activeEpoch();
    }

    public CompletableFuture<MirrorOpResult> createMirror(final MirrorDefinition definition)
    {
        return apis.onEventThread(c -> c.createMirror(definition));
    }

    public CompletableFuture<MirrorOpResult> updateMirror(final MirrorDefinition definition)
    {
        return apis.onEventThread(c -> c.updateMirror(definition));
    }

    public CompletableFuture<MirrorOpResult> addMirrorIncludes(final String mirrorName,
        final Collection<String> patterns)
    {
        final List<String> copy = List.copyOf(patterns);
        return apis.onEventThread(c -> c.addMirrorIncludes(mirrorName, copy));
    }

    public CompletableFuture<MirrorOpResult> deleteMirror(final String mirrorName)
    {
        return apis.onEventThread(c -> c.deleteMirror(mirrorName));
    }

    public CompletableFuture<MirrorOpResult> createMirrorTopic(final String topic, final Uuid sourceTopicId,
        final int partitions, final Map<String, String> configs, final String mirrorName)
    {
        final Map<String, String> copy = Map.copyOf(configs);
        return apis.onEventThread(c -> c.createMirrorTopic(topic, sourceTopicId, partitions, copy, mirrorName));
    }

    /** Mirror topics created in one metadata commit (a bounded share of one add or one sync cycle). */
    public CompletableFuture<Map<String, MirrorOpResult>> createMirrorTopics(final String mirrorName,
        final List<SourceClusterClient.SourceTopic> topics)
    {
        final List<SourceClusterClient.SourceTopic> copy = List.copyOf(topics);
        return apis.onEventThread(c -> c.createMirrorTopics(mirrorName, copy));
    }

    public CompletableFuture<MirrorOpResult> setMirrorName(final String topic, final String value)
    {
        return apis.onEventThread(c -> c.setMirrorName(topic, value));
    }

    public CompletableFuture<MirrorOpResult> removeTopicFromMirror(final String topic, final String mirrorName)
    {
        return apis.onEventThread(c -> c.removeTopicFromMirror(topic, mirrorName));
    }

    public CompletableFuture<MirrorOpResult> addPartitions(final String topic, final int partitionCount)
    {
        return apis.onEventThread(c -> c.addPartitions(topic, partitionCount));
    }

    public CompletableFuture<MirrorOpResult> syncTopicConfigs(final String topic,
        final Map<String, String> sourceConfigs)
    {
        final Map<String, String> copy = Map.copyOf(sourceConfigs);
        return apis.onEventThread(c -> c.syncTopicConfigs(topic, copy));
    }

    /** Mirror ACL sync's one change: the mirror's ACLs here become exactly these (see Controller#syncMirrorAcls). */
    public CompletableFuture<MirrorOpResult> syncMirrorAcls(final String mirrorName, final Set<StandardAcl> inForce,
        final Set<StandardAcl> held)
    {
        final Set<StandardAcl> inForceCopy = Set.copyOf(inForce);
        final Set<StandardAcl> heldCopy = Set.copyOf(held);
        return apis.onEventThread(c -> c.syncMirrorAcls(mirrorName, inForceCopy, heldCopy));
    }

    /** The ACLs mirror {@code mirrorName}'s ACL sync keeps here, in force and held back. */
    public CompletableFuture<List<MetadataRecord.MirrorAcl>> mirrorAcls(final String mirrorName)
    {
        return apis.onEventThread(c -> c.mirrorAcls(mirrorName));
    }

    public CompletableFuture<EpochBumpResult> bumpLeaderEpochs(final Uuid topicId,
        final Map<Integer, Integer> minLeaderEpochs, final long minNextProducerId)
    {
        final Map<Integer, Integer> copy = Map.copyOf(minLeaderEpochs);
        return apis.onEventThread(c -> c.bumpLeaderEpochs(topicId, copy, minNextProducerId));
    }

    public CompletableFuture<MirrorOpResult> changeSyncRegistration(final Uuid topicId, final String mirrorName,
        final boolean registered)
    {
        return apis.onEventThread(c -> c.changeSyncRegistration(topicId, mirrorName, registered));
    }

    public CompletableFuture<MirrorOpResult> setMirrorTopicType(final Uuid topicId, final byte mirrorType,
        final long driverEpoch)
    {
        return apis.onEventThread(c -> c.setMirrorTopicType(topicId, mirrorType, driverEpoch));
    }

    /** The offset of the last record in the metadata log now. */
    public CompletableFuture<Long> lastMetadataOffset()
    {
        return apis.onEventThread(c -> c.log().endOffset() - 1);
    }

    /** See {@link Controller#whenAppliedByAllActiveBrokers(long)}. */
    public CompletableFuture<Void> whenAppliedByAllActiveBrokers(final long offset)
    {
        return apis.onEventThread(c -> c.whenAppliedByAllActiveBrokers(offset)).thenCompose(waiter -> waiter);
    }

    public CompletableFuture<Void> raiseProducerIdFloor(final long floor)
    {
        return apis.onEventThread(c ->
        {
            c.raiseProducerIdFloor(floor);
            return null;
        });
    }

    public CompletableFuture<Map<String, MirrorDefinition>> mirrors()
    {
        return apis.onEventThread(Controller::mirrors);
    }

    public CompletableFuture<Optional<MirrorDefinition>> mirror(final String name)
    {
        return apis.onEventThread(c -> c.mirror(name));
    }

    /** One consistent view of the topics, for a sync cycle. */
    public CompletableFuture<TopicsSnapshot> topics()
    {
        return apis.onEventThread(c ->
        {
            final List<TopicView> topics = new ArrayList<>();
            for (final String name : c.topicNames())
            {
                topics.add(new TopicView(name, c.topicId(name).orElseThrow(), c.partitionCount(name),
                    c.topicConfig(name)));
            }
            return new TopicsSnapshot(c.mirrors(), topics);
        });
    }

    /** A topic as the controller holds it: id, partition count and config overrides (mirror.name included). */
    public record TopicView(String name, Uuid id, int partitions, Map<String, String> config)
    {
        public Optional<String> mirrorName()
        {
            return Optional.ofNullable(config.get(MirrorDefinition.MIRROR_NAME_CONFIG));
        }
    }

    /** The mirrors and topics at one point of the metadata log. */
    public record TopicsSnapshot(Map<String, MirrorDefinition> mirrors, List<TopicView> topics)
    {
        public Optional<TopicView> topic(final String name)
        {
            for (final TopicView t : topics)
            {
                if (t.name().equals(name))
                {
                    return Optional.of(t);
                }
            }
            return Optional.empty();
        }
    }
}

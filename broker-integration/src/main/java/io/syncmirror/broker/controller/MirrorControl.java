package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.metadata.authorizer.StandardAcl;

import io.syncmirror.broker.adapter.MirrorLinks;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.SyncCommitFence;

/**
 * The controller's cluster-mirroring state, replayed from its records: the mirror definitions
 * ({@link MetadataRecord.Mirror}, {@link MetadataRecord.RemoveMirror}), on a source each topic's registered sync
 * mirrors ({@link MetadataRecord.MirrorSyncRegistrationChange}), and on a destination each mirror topic's effective
 * mirror type ({@link MetadataRecord.MirrorTopicTypeChange}); a deleted topic takes its registrations and type with
 * it. Also the rules a definition must meet, and the mirror operations, which write these records and, through
 * {@link ReplicationControl} and {@link TopicConfigControl}, the mirror topics and their {@code mirror.name}: a
 * topic belongs to mirror M while its config {@code mirror.name} is M, a key only these operations write. Mirror
 * topics keep the source's topic id. Thread-safety: the controller's event thread, as all controller state.
 */
final class MirrorControl
{
    private final ClusterControl cluster;
    private final ReplicationControl replication;
    private final TopicConfigControl configs;
    private final MetadataWriter writer;
    private final MirrorAclControl mirrorAcls;
    /**
     * The sync mirrors this source cluster gates produces on at once (MirrorLinks.LINKS_CONFIG): each of its
     * brokers gives every registered mirror one link, a block of every partition row, and has this many.
     */
    private final int maxSyncMirrors;

    private final TreeMap<String, MirrorDefinition> mirrors = new TreeMap<>();
    /** Source role: each topic's registered sync mirrors. */
    private final Map<Uuid, TreeSet<String>> registeredMirrors = new HashMap<>();
    /** Source role: how many topics each registered sync mirror is registered for. */
    private final Map<String, Integer> topicsPerSyncMirror = new TreeMap<>();
    /** Destination role: each mirror topic's effective mirror type (absent: ASYNC). */
    private final Map<Uuid, Byte> mirrorTypes = new HashMap<>();
    /** Destination role: the highest driver number applied to each mirror topic's type (SyncCommitFence). */
    private final Map<Uuid, Long> typeFences = new HashMap<>();

    MirrorControl(final ClusterControl cluster, final ReplicationControl replication, final TopicConfigControl configs,
        final MetadataWriter writer, final MirrorAclControl mirrorAcls, final int maxSyncMirrors)
    {
        this.mirrorAcls = mirrorAcls;
        this.cluster = cluster;
        this.replication = replication;
        this.configs = configs;
        this.writer = writer;
        this.maxSyncMirrors = maxSyncMirrors;
    }

    /** {@value MirrorLinks#LINKS_CONFIG} from the controller's config, validated. */
    static int maxSyncMirrors(final Map<String, String> config)
    {
        final String value = config.getOrDefault(MirrorLinks.LINKS_CONFIG, String.valueOf(MirrorLinks.LINKS_DEFAULT));
        final int links;
        try
        {
            links = Integer.parseInt(value.trim());
        }
        catch (final NumberFormatException e)
        {
            throw new IllegalArgumentException(MirrorLinks.LINKS_CONFIG + " must be a number, not '" + value + "'");
        }
        if (links < 1 || links > MirrorLinks.LINKS_MAX)
        {
            throw new IllegalArgumentException(MirrorLinks.LINKS_CONFIG + " must be between 1 and " +
                MirrorLinks.LINKS_MAX + ", not " + links);
        }
        return links;
    }

    void replay(final MetadataRecord.Mirror record)
    {
        mirrors.put(record.name(), record.definition());
    }

    void replay(final MetadataRecord.RemoveMirror record)
    {
        mirrors.remove(record.name());
    }

    void replay(final MetadataRecord.MirrorSyncRegistrationChange record)
    {
        if (record.registered())
        {
            if (registeredMirrors.computeIfAbsent(record.topicId(), k -> new TreeSet<>()).add(record.mirrorName()))
            {
                topicsPerSyncMirror.merge(record.mirrorName(), 1, Integer::sum);
            }
        }
        else if (registeredMirrors.containsKey(record.topicId()) &&
            registeredMirrors.get(record.topicId()).remove(record.mirrorName()))
        {
            forgetOneTopic(record.mirrorName());
        }
    }

    private void forgetOneTopic(final String mirrorName)
    {
        topicsPerSyncMirror.computeIfPresent(mirrorName, (name, topics) -> topics > 1 ? topics - 1 : null);
    }

    void replay(final MetadataRecord.MirrorTopicTypeChange record)
    {
        mirrorTypes.put(record.topicId(), record.mirrorType());
        if (record.driverEpoch() != SyncCommitFence.NONE)
        {
            typeFences.merge(record.topicId(), record.driverEpoch(), SyncCommitFence::raised);
        }
    }

    /**
     * The records that restore this state, in an order replay accepts: the definitions, then each topic's
     * registered mirrors and its mirror type (after the topics a snapshot lists first).
     */
    void snapshot(final java.util.function.Consumer<MetadataRecord> out)
    {
        mirrors.values().forEach(definition -> out.accept(MetadataRecord.Mirror.of(definition)));
        new TreeMap<>(registeredMirrors).forEach((topicId, names) -> names.forEach(name ->
            out.accept(new MetadataRecord.MirrorSyncRegistrationChange(topicId, name, true))));
        new TreeMap<>(mirrorTypes).forEach((topicId, type) -> out.accept(new MetadataRecord.MirrorTopicTypeChange(
            topicId, type, typeFences.getOrDefault(topicId, SyncCommitFence.NONE))));
    }

    /** The topic was deleted: its registrations and mirror type go with it. */
    void removeTopic(final Uuid topicId)
    {
        final TreeSet<String> names = registeredMirrors.remove(topicId);
        if (names != null)
        {
            names.forEach(this::forgetOneTopic);
        }
        mirrorTypes.remove(topicId);
        typeFences.remove(topicId);
    }

    /** The mirror's definition, or null when no mirror has that name. */
    MirrorDefinition definition(final String name)
    {
        return mirrors.get(name);
    }

    /** Every mirror defined, by name (a read-only copy). */
    Map<String, MirrorDefinition> definitions()
    {
        return Collections.unmodifiableMap(new TreeMap<>(mirrors));
    }

    /** The destination mirrors registered for sync replication of a topic of this (source) cluster. */
    Set<String> registeredMirrors(final Uuid topicId)
    {
        return Collections.unmodifiableSet(registeredMirrors.getOrDefault(topicId, new TreeSet<>()));
    }

    /** A mirror topic's effective mirror type: 0 ASYNC (also for a topic with none recorded), 1 SYNC. */
    byte mirrorType(final Uuid topicId)
    {
        return mirrorTypes.getOrDefault(topicId, (byte) 0);
    }

    /** Why a definition cannot be stored (a bad name, no source bootstrap servers, a bad regex), or null. */
    static MirrorOpResult invalid(final MirrorDefinition definition)
    {
        final String reason = MirrorDefinition.invalidNameReason(definition.name());
        if (reason != null)
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, reason);
        }
        if (definition.sourceBootstrapServers().isBlank())
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST,
                "mirror '" + definition.name() + "' needs the source cluster's bootstrap servers");
        }
        final List<String> patterns = new ArrayList<>(definition.includeTopics());
        patterns.addAll(definition.excludeTopics());
        for (final String pattern : patterns)
        {
            try
            {
                Pattern.compile(pattern);
            }
            catch (final PatternSyntaxException e)
            {
                return MirrorOpResult.error(Errors.INVALID_REQUEST, "mirror '" + definition.name()
                    + "': topic pattern '" + pattern + "' is not a valid regular expression: " + e.getDescription());
            }
        }
        final String badConfig = io.syncmirror.broker.metadata.MirrorAclSyncConfig.invalidReason(
            definition.mirrorConfigs());
        if (badConfig != null)
        {
            return MirrorOpResult.error(Errors.INVALID_CONFIG, "mirror '" + definition.name() + "': " + badConfig);
        }
        return null;
    }

    static MirrorOpResult unknown(final String mirrorName)
    {
        return MirrorOpResult.error(Errors.RESOURCE_NOT_FOUND, "mirror '" + mirrorName + "' does not exist");
    }

    // ------------------------------------------------------------------------------------------- operations

    /** Defines a new mirror. Fails on a bad name, a bad regex, no source bootstrap servers, or an existing name. */
    MirrorOpResult createMirror(final MirrorDefinition definition)
    {
        final MirrorOpResult invalid = invalid(definition);
        if (invalid != null)
        {
            return invalid;
        }
        if (definition(definition.name()) != null)
        {
            return MirrorOpResult.error(Errors.DUPLICATE_RESOURCE,
                "mirror '" + definition.name() + "' already exists");
        }
        writer.emit(MetadataRecord.Mirror.of(definition));
        writer.commit();
        return MirrorOpResult.OK;
    }

    /** Replaces an existing mirror's definition whole (source, client configs, filters). */
    MirrorOpResult updateMirror(final MirrorDefinition definition)
    {
        final MirrorOpResult invalid = invalid(definition);
        if (invalid != null)
        {
            return invalid;
        }
        final MirrorDefinition current = definition(definition.name());
        if (current == null)
        {
            return unknown(definition.name());
        }
        if (!current.equals(definition))
        {
            writer.emit(MetadataRecord.Mirror.of(definition));
            writer.commit();
        }
        return MirrorOpResult.OK;
    }

    /** Appends {@code patterns} (regexes) to the mirror's include list, keeping those already there once. */
    MirrorOpResult addMirrorIncludes(final String mirrorName, final Collection<String> patterns)
    {
        MirrorDefinition current = definition(mirrorName);
        if (current == null)
        {
            return unknown(mirrorName);
        }
        for (final String pattern : patterns)
        {
            current = current.withInclude(pattern);
        }
        return updateMirror(current);
    }

    /**
     * Removes the mirror's definition. Refused while a topic still belongs to it ({@code mirror.name} = the
     * name); topics removed from it ({@code name.removed}) do not count.
     */
    MirrorOpResult deleteMirror(final String mirrorName)
    {
        if (definition(mirrorName) == null)
        {
            return unknown(mirrorName);
        }
        final List<String> attached = topicNames(mirrorName);
        if (!attached.isEmpty())
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, "mirror '" + mirrorName + "' still has "
                + attached.size() + " topic(s) " + attached + ": remove the topics from the mirror first");
        }
        mirrorAcls.forget(mirrorName);
        writer.emit(new MetadataRecord.RemoveMirror(mirrorName));
        writer.commit();
        return MirrorOpResult.OK;
    }

    /**
     * Creates mirror topic {@code topic} with the source's topic id and partition count, replicated
     * {@code default.replication.factor} times (capped by the live brokers), with the source configs
     * that LogConfig accepts plus {@code mirror.name} = {@code mirrorName}. A topic of that name that already
     * has the source's id (failed over earlier) just gets {@code mirror.name} again (failback); one with another
     * id is TOPIC_ALREADY_EXISTS.
     */
    MirrorOpResult createMirrorTopic(final String topic, final Uuid sourceTopicId, final int partitions,
        final Map<String, String> sourceConfigs, final String mirrorName)
    {
        if (definition(mirrorName) == null)
        {
            return unknown(mirrorName);
        }
        final MirrorOpResult result = emitMirrorTopic(topic, sourceTopicId, partitions, sourceConfigs, mirrorName);
        writer.commit();
        return result;
    }

    /**
     * {@link #createMirrorTopic} for each of {@code topics}, committed as one metadata write: one round through
     * the metadata quorum for all of them, not one per topic (the caller bounds how many partitions one write
     * holds). Each topic has its own result, in the order given; a topic refused does not stop the others.
     */
    Map<String, MirrorOpResult> createMirrorTopics(final String mirrorName,
        final List<SourceClusterClient.SourceTopic> topics)
    {
        final Map<String, MirrorOpResult> results = new java.util.LinkedHashMap<>();
        final MirrorOpResult unknown = definition(mirrorName) == null ? unknown(mirrorName) : null;
        for (final SourceClusterClient.SourceTopic topic : topics)
        {
            results.put(topic.name(), unknown != null ? unknown
                : emitMirrorTopic(topic.name(), topic.topicId(), topic.partitions(), topic.configs(), mirrorName));
        }
        writer.commit();
        return results;
    }

    /** Validates and emits one mirror topic (or its failback's mirror.name); the caller commits. */
    private MirrorOpResult emitMirrorTopic(final String topic, final Uuid sourceTopicId, final int partitions,
        final Map<String, String> sourceConfigs, final String mirrorName)
    {
        final Uuid existingId = replication.topicId(topic).orElse(null);
        if (existingId != null)
        {
            if (!existingId.equals(sourceTopicId))
            {
                return MirrorOpResult.error(Errors.TOPIC_ALREADY_EXISTS, "topic '" + topic
                    + "' already exists on the destination with topic id " + existingId
                    + ", not the source's id " + sourceTopicId + "; delete or rename it to mirror the source topic");
            }
            final String current = configs.view(topic).get(MirrorDefinition.MIRROR_NAME_CONFIG);
            if (current != null && !current.equals(mirrorName) && !current.endsWith(MirrorDefinition.REMOVED_SUFFIX))
            {
                return MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + topic + "' belongs to mirror '"
                    + current + "'; remove it from that mirror first");
            }
            emitMirrorName(topic, mirrorName);
            return MirrorOpResult.OK;
        }
        try
        {
            Topic.validate(topic);
        }
        catch (final InvalidTopicException e)
        {
            return MirrorOpResult.error(Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
        }
        if (sourceTopicId == null || Uuid.RESERVED.contains(sourceTopicId))
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + topic + "' has no usable source topic id ("
                + sourceTopicId + ")");
        }
        final String sameId = replication.topicName(sourceTopicId);
        if (sameId != null)
        {
            return MirrorOpResult.error(Errors.TOPIC_ALREADY_EXISTS, "the source topic id " + sourceTopicId
                + " of '" + topic + "' is already used by destination topic '" + sameId + "'");
        }
        final String collision = replication.collidingTopic(topic);
        if (collision != null)
        {
            return MirrorOpResult.error(Errors.INVALID_TOPIC_EXCEPTION, "Topic '" + topic
                + "' collides with existing topic '" + collision + "' ('.' and '_' are the same in metric names).");
        }
        if (partitions <= 0)
        {
            return MirrorOpResult.error(Errors.INVALID_PARTITIONS,
                "topic '" + topic + "': partition count " + partitions + " is not positive");
        }
        final List<Integer> live = cluster.liveBrokers();
        if (live.isEmpty())
        {
            return MirrorOpResult.error(Errors.INVALID_REPLICATION_FACTOR,
                "topic '" + topic + "' cannot be created: no live broker");
        }
        final TreeMap<String, String> logConfigs;
        try
        {
            logConfigs = TopicConfigControl.mirrorableConfigs(sourceConfigs);
        }
        catch (final InvalidConfigurationException e)
        {
            return MirrorOpResult.error(Errors.INVALID_CONFIG, "topic '" + topic + "': " + e.getMessage());
        }
        logConfigs.put(MirrorDefinition.MIRROR_NAME_CONFIG, mirrorName);
        replication.emitTopic(topic, sourceTopicId, partitions,
            Math.min(replication.defaultReplicationFactor(), live.size()), logConfigs);
        return MirrorOpResult.OK;
    }

    /**
     * Sets the topic's {@code mirror.name} ({@code value} null removes it). The controller-side write behind
     * add (re-add) and remove of topics; users cannot write the key.
     */
    MirrorOpResult setMirrorName(final String topic, final String value)
    {
        if (!replication.hasTopic(topic))
        {
            return ReplicationControl.unknownTopic(topic);
        }
        emitMirrorName(topic, value);
        writer.commit();
        return MirrorOpResult.OK;
    }

    private void emitMirrorName(final String topic, final String value)
    {
        if (!Objects.equals(configs.view(topic).get(MirrorDefinition.MIRROR_NAME_CONFIG), value))
        {
            writer.emit(new MetadataRecord.Config(topic, MirrorDefinition.MIRROR_NAME_CONFIG, value));
        }
    }

    /**
     * Source role: adds a destination mirror to a topic's sync registration set, or removes it, through the
     * metadata log (MirrorSyncRegistrationChange), so every source broker's image shows it. A change that is
     * already in force writes nothing. UNKNOWN_TOPIC_ID for a topic this cluster does not have; POLICY_VIOLATION
     * for a mirror that would make the cluster's registered sync mirrors more than {@link #maxSyncMirrors}.
     */
    MirrorOpResult changeSyncRegistration(final Uuid topicId, final String mirrorName, final boolean registered)
    {
        if (!replication.hasTopic(topicId))
        {
            return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_ID, "no topic with id " + topicId + " on this cluster");
        }
        if (registered && !topicsPerSyncMirror.containsKey(mirrorName) &&
            topicsPerSyncMirror.size() >= maxSyncMirrors)
        {
            // A broker could not give it a link, and would hold the partitions' HW rather than acknowledge
            // without the mirror: refused here, where the whole cluster's registrations are known.
            return MirrorOpResult.error(Errors.POLICY_VIOLATION, "this source cluster already gates produces on "
                + maxSyncMirrors + " sync mirrors " + topicsPerSyncMirror.keySet() + ", the most its brokers can "
                + "serve (" + MirrorLinks.LINKS_CONFIG + "); mirror '" + mirrorName + "' can register once one of "
                + "them is released or demoted on every topic");
        }
        if (registeredMirrors(topicId).contains(mirrorName) != registered)
        {
            writer.emit(new MetadataRecord.MirrorSyncRegistrationChange(topicId, mirrorName, registered));
            writer.commit();
        }
        return MirrorOpResult.OK;
    }

    /** Destination role: a mirror topic's effective mirror type (0 ASYNC, 1 SYNC), written when it changes. */
    MirrorOpResult setMirrorTopicType(final Uuid topicId, final byte mirrorType)
    {
        return setMirrorTopicType(topicId, mirrorType, SyncCommitFence.NONE);
    }

    /**
     * Destination role: a mirror topic's effective mirror type (0 ASYNC, 1 SYNC), numbered {@code driverEpoch} by
     * its sync driver or {@link SyncCommitFence#NONE}; written when the type or the topic's highest number moves.
     * A numbered commit below that number is refused FENCED_LEADER_EPOCH, and SYNC only holds for a topic its
     * mirror still mirrors (a failed-over topic's late SYNC commit is refused).
     */
    MirrorOpResult setMirrorTopicType(final Uuid topicId, final byte mirrorType, final long driverEpoch)
    {
        if (!replication.hasTopic(topicId))
        {
            return MirrorOpResult.error(Errors.UNKNOWN_TOPIC_ID, "no topic with id " + topicId + " on this cluster");
        }
        if (mirrorType != 0 && mirrorType != 1)
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, "unknown mirror type " + mirrorType);
        }
        final long fence = typeFences.getOrDefault(topicId, SyncCommitFence.NONE);
        if (SyncCommitFence.refuses(driverEpoch, fence))
        {
            return MirrorOpResult.error(Errors.FENCED_LEADER_EPOCH, "mirror type commit " +
                SyncCommitFence.describe(driverEpoch) + " is older than commit " + SyncCommitFence.describe(fence) +
                ", already applied");
        }
        if (mirrorType == 1 && MirrorTopicConfig.activeMirror(configs.view(replication.topicName(topicId))) == null)
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + replication.topicName(topicId) +
                "' is not mirrored any more: it cannot become SYNC");
        }
        if (mirrorType(topicId) != mirrorType || SyncCommitFence.raised(fence, driverEpoch) != fence)
        {
            writer.emit(new MetadataRecord.MirrorTopicTypeChange(topicId, mirrorType, driverEpoch));
            writer.commit();
        }
        return MirrorOpResult.OK;
    }

    /**
     * Removes the topic from mirror {@code mirrorName} (failover): {@code mirror.name} becomes
     * {@code mirrorName.removed}. A topic already removed from that mirror is fine (a retry); a topic in no or
     * another mirror is INVALID_REQUEST.
     */
    MirrorOpResult removeTopicFromMirror(final String topic, final String mirrorName)
    {
        if (!replication.hasTopic(topic))
        {
            return ReplicationControl.unknownTopic(topic);
        }
        final String current = configs.view(topic).get(MirrorDefinition.MIRROR_NAME_CONFIG);
        if (MirrorDefinition.removedName(mirrorName).equals(current))
        {
            return MirrorOpResult.ok("topic '" + topic + "' was already removed from mirror '" + mirrorName + "'");
        }
        if (!mirrorName.equals(current))
        {
            return MirrorOpResult.error(Errors.INVALID_REQUEST, "topic '" + topic + "' is not in mirror '"
                + mirrorName + "'" + (current == null ? "" : " (" + MirrorDefinition.MIRROR_NAME_CONFIG + "="
                + current + ")"));
        }
        // The grants held back while the topic was read-only go in force in the same batch that makes it writable.
        final int granted = mirrorAcls.grantAtFailover(mirrorName, topic);
        final MirrorOpResult result = setMirrorName(topic, MirrorDefinition.removedName(mirrorName));
        return granted == 0 || !result.isOk() ? result : MirrorOpResult.ok(granted + " ACL(s) held back while the "
            + "topic was read-only are now in force");
    }

    /**
     * Mirror ACL sync: makes the ACLs mirror {@code mirrorName} keeps here exactly {@code inForce} and {@code held}
     * ({@link MirrorAclControl#sync}), in one batch. The message counts the changes.
     */
    MirrorOpResult syncMirrorAcls(final String mirrorName, final Set<StandardAcl> inForce,
        final Set<StandardAcl> held)
    {
        if (definition(mirrorName) == null)
        {
            return unknown(mirrorName);
        }
        final MirrorAclControl.SyncCounts counts = mirrorAcls.sync(mirrorName, inForce, held);
        writer.commit();
        // No message when nothing changed: the manager logs only the syncs that changed something.
        return counts.changed() ? MirrorOpResult.ok(counts.toString()) : MirrorOpResult.OK;
    }

    /**
     * Replaces the topic's LogConfig overrides with the source's mirrorable ones (keys the source does not set go
     * back to the defaults), keeping {@code mirror.name}. The result's message counts the keys changed.
     */
    MirrorOpResult syncTopicConfigs(final String topic, final Map<String, String> sourceConfigs)
    {
        if (!replication.hasTopic(topic))
        {
            return ReplicationControl.unknownTopic(topic);
        }
        final TreeMap<String, String> target;
        try
        {
            target = TopicConfigControl.mirrorableConfigs(sourceConfigs);
        }
        catch (final InvalidConfigurationException e)
        {
            return MirrorOpResult.error(Errors.INVALID_CONFIG, "topic '" + topic + "': " + e.getMessage());
        }
        final String mirrorName = configs.override(topic, MirrorDefinition.MIRROR_NAME_CONFIG);
        if (mirrorName != null)
        {
            target.put(MirrorDefinition.MIRROR_NAME_CONFIG, mirrorName);
        }
        final List<MetadataRecord.Config> changes = configs.changesTo(topic, target);
        changes.forEach(writer::emit);
        writer.commit();
        return MirrorOpResult.ok(changes.size() + " config(s) changed");
    }

    /** The topics whose {@code mirror.name} is exactly {@code mirrorName}, sorted. */
    List<String> topicNames(final String mirrorName)
    {
        final List<String> out = new ArrayList<>(configs.topicsWith(MirrorDefinition.MIRROR_NAME_CONFIG, mirrorName));
        out.removeIf(topic -> !replication.hasTopic(topic));
        return out;
    }
}

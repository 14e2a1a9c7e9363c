package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MirrorDefinition;

/**
 * The controller's cluster-mirroring state, replayed from its records: the mirror definitions
 * ({@link MetadataRecord.Mirror}, {@link MetadataRecord.RemoveMirror}), on a source each topic's registered sync
 * mirrors ({@link MetadataRecord.MirrorSyncRegistrationChange}), and on a destination each mirror topic's effective
 * mirror type ({@link MetadataRecord.MirrorTopicTypeChange}); a deleted topic takes its registrations and type with
 * it. Also the rules a definition must meet. The operations that write these records stay with the controller,
 * which owns the topics they touch. Thread-safety: the controller's event thread, as all controller state.
 */
final class MirrorControl
{
    private final TreeMap<String, MirrorDefinition> mirrors = new TreeMap<>();
    /** Source role: each topic's registered sync mirrors. */
    private final Map<Uuid, TreeSet<String>> registeredMirrors = new HashMap<>();
    /** Destination role: each mirror topic's effective mirror type (absent: ASYNC). */
    private final Map<Uuid, Byte> mirrorTypes = new HashMap<>();

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
            registeredMirrors.computeIfAbsent(record.topicId(), k -> new TreeSet<>()).add(record.mirrorName());
        }
        else if (registeredMirrors.containsKey(record.topicId()))
        {
            registeredMirrors.get(record.topicId()).remove(record.mirrorName());
        }
    }

    void replay(final MetadataRecord.MirrorTopicTypeChange record)
    {
        mirrorTypes.put(record.topicId(), record.mirrorType());
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
        new TreeMap<>(mirrorTypes).forEach((topicId, type) ->
            out.accept(new MetadataRecord.MirrorTopicTypeChange(topicId, type)));
    }

    /** The topic was deleted: its registrations and mirror type go with it. */
    void removeTopic(final Uuid topicId)
    {
        registeredMirrors.remove(topicId);
        mirrorTypes.remove(topicId);
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
        return null;
    }

    static MirrorOpResult unknown(final String mirrorName)
    {
        return MirrorOpResult.error(Errors.RESOURCE_NOT_FOUND, "mirror '" + mirrorName + "' does not exist");
    }
}

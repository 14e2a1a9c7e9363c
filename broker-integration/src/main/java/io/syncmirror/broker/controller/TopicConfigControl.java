package io.syncmirror.broker.controller;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.storage.internals.log.LogConfig;

import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MirrorDefinition;

/**
 * The controller's topic config overrides, as Kafka's {@code ConfigurationControlManager} keeps them: the state
 * replayed from {@link MetadataRecord.Config} records (and dropped with the topic), and the rules that turn a
 * request into records: IncrementalAlterConfigs operations, Kafka's {@code LogConfig} validation, the source configs
 * a mirror topic can take, and the protection of {@code mirror.name}, which only the mirror operations write.
 * Thread-safety: the controller's event thread, as all controller state.
 */
final class TopicConfigControl
{
    static final String MIRROR_NAME_PROTECTED = MirrorDefinition.MIRROR_NAME_CONFIG
        + " is managed by cluster mirroring and cannot be set or deleted directly; use the mirror operations "
        + "(add topics to a mirror, remove topics from a mirror)";

    private final Map<String, TreeMap<String, String>> overrides = new HashMap<>();

    /** Applies one committed or emitted config record. */
    void replay(final MetadataRecord.Config record)
    {
        if (record.value() == null)
        {
            final TreeMap<String, String> topic = overrides.get(record.topic());
            if (topic != null)
            {
                topic.remove(record.key());
            }
        }
        else
        {
            overrides.computeIfAbsent(record.topic(), k -> new TreeMap<>()).put(record.key(), record.value());
        }
    }

    /** The topic was deleted: its overrides go with it. */
    void removeTopic(final String topic)
    {
        overrides.remove(topic);
    }

    /** The topic's overrides, a sorted copy that the caller may change. */
    TreeMap<String, String> overrides(final String topic)
    {
        final TreeMap<String, String> current = overrides.get(topic);
        return current == null ? new TreeMap<>() : new TreeMap<>(current);
    }

    /** One override, or null when the topic has none for {@code key}. */
    String override(final String topic, final String key)
    {
        final TreeMap<String, String> current = overrides.get(topic);
        return current == null ? null : current.get(key);
    }

    /** A read-only view of the topic's overrides. */
    Map<String, String> view(final String topic)
    {
        final TreeMap<String, String> current = overrides.get(topic);
        return current == null ? Map.of() : Collections.unmodifiableMap(new TreeMap<>(current));
    }

    /** The topics whose override of {@code key} is exactly {@code value}, sorted. */
    List<String> topicsWith(final String key, final String value)
    {
        final List<String> out = new ArrayList<>();
        for (final Map.Entry<String, TreeMap<String, String>> e : new TreeMap<>(overrides).entrySet())
        {
            if (value.equals(e.getValue().get(key)))
            {
                out.add(e.getKey());
            }
        }
        return out;
    }

    /** The records that take the topic's overrides to {@code target}: one per key that differs (null deletes). */
    List<MetadataRecord.Config> changesTo(final String topic, final Map<String, String> target)
    {
        final TreeMap<String, String> current = overrides(topic);
        final TreeSet<String> keys = new TreeSet<>(current.keySet());
        keys.addAll(target.keySet());
        final List<MetadataRecord.Config> changes = new ArrayList<>();
        for (final String key : keys)
        {
            final String after = target.get(key);
            if (!Objects.equals(current.get(key), after))
            {
                changes.add(new MetadataRecord.Config(topic, key, after));
            }
        }
        return changes;
    }

    /** Validates overrides as Kafka's LogConfig does; {@code mirror.name} is not a LogConfig key and is skipped. */
    static void validate(final Map<String, String> overrides)
    {
        try
        {
            if (overrides.containsKey(MirrorDefinition.MIRROR_NAME_CONFIG))
            {
                final Map<String, String> logConfigs = new TreeMap<>(overrides);
                logConfigs.remove(MirrorDefinition.MIRROR_NAME_CONFIG);
                LogConfig.validate(logConfigs);
            }
            else
            {
                LogConfig.validate(overrides);
            }
        }
        catch (final ConfigException e)
        {
            throw new InvalidConfigurationException(e.getMessage());
        }
    }

    /**
     * The subset of source topic configs this cluster can apply: known LogConfig keys (never {@code mirror.name})
     * whose value is valid alone; the whole is then validated as LogConfig does.
     */
    static TreeMap<String, String> mirrorableConfigs(final Map<String, String> sourceConfigs)
    {
        final TreeMap<String, String> out = new TreeMap<>();
        for (final Map.Entry<String, String> e : sourceConfigs.entrySet())
        {
            if (e.getValue() == null || !LogConfig.configNames().contains(e.getKey()))
            {
                continue;
            }
            try
            {
                LogConfig.validate(Map.of(e.getKey(), e.getValue()));
                out.put(e.getKey(), e.getValue());
            }
            catch (final ConfigException | InvalidConfigurationException ex)
            {
                // A value this version cannot apply (e.g. from a newer source) is left at the local default.
            }
        }
        validate(out);
        return out;
    }

    /** Applies IncrementalAlterConfigs operations to a topic's overrides, as Kafka's controller does. */
    static TreeMap<String, String> applyConfigOps(final Map<String, String> current,
        final Collection<IncrementalAlterConfigsRequestData.AlterableConfig> ops)
    {
        final TreeMap<String, String> updated = new TreeMap<>(current);
        for (final IncrementalAlterConfigsRequestData.AlterableConfig op : ops)
        {
            final String key = op.name();
            if (MirrorDefinition.MIRROR_NAME_CONFIG.equals(key))
            {
                throw new InvalidConfigurationException(MIRROR_NAME_PROTECTED);
            }
            if (!LogConfig.configNames().contains(key))
            {
                throw new InvalidConfigurationException("Unknown topic config name: " + key);
            }
            final AlterConfigOp.OpType type = AlterConfigOp.OpType.forId(op.configOperation());
            if (type == null)
            {
                throw new org.apache.kafka.common.errors.InvalidRequestException(
                    "unknown config operation " + op.configOperation());
            }
            switch (type)
            {
                case SET:
                    if (op.value() == null)
                    {
                        throw new InvalidConfigurationException("null value for " + key);
                    }
                    updated.put(key, op.value());
                    break;
                case DELETE:
                    updated.remove(key);
                    break;
                case APPEND:
                case SUBTRACT:
                    if (LogConfig.configType(key).orElse(null) != ConfigDef.Type.LIST)
                    {
                        throw new InvalidConfigurationException(
                            "Config value append/subtract is not allowed for config key " + key);
                    }
                    final List<String> values = new ArrayList<>(splitList(updated.getOrDefault(key,
                        defaultAsString(key))));
                    for (final String v : splitList(op.value()))
                    {
                        if (type == AlterConfigOp.OpType.APPEND)
                        {
                            if (!values.contains(v))
                            {
                                values.add(v);
                            }
                        }
                        else
                        {
                            values.remove(v);
                        }
                    }
                    updated.put(key, String.join(",", values));
                    break;
                default:
                    throw new org.apache.kafka.common.errors.InvalidRequestException("unsupported " + type);
            }
        }
        return updated;
    }

    private static String defaultAsString(final String key)
    {
        final ConfigDef.ConfigKey configKey = LogConfig.configKeys().get(key);
        if (configKey == null || !configKey.hasDefault() || configKey.defaultValue == null)
        {
            return "";
        }
        return ConfigDef.convertToString(configKey.defaultValue, configKey.type);
    }

    private static List<String> splitList(final String value)
    {
        final List<String> out = new ArrayList<>();
        if (value == null)
        {
            return out;
        }
        for (final String part : value.split(","))
        {
            final String trimmed = part.trim();
            if (!trimmed.isEmpty())
            {
                out.add(trimmed);
            }
        }
        return out;
    }
}

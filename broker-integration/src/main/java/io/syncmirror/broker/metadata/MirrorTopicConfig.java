package io.syncmirror.broker.metadata;

import java.util.Map;

/**
 * The topic config that ties a topic to a cluster mirror, as KIP-1279 defines it: {@code mirror.name} names the
 * mirror the topic is read from; RemoveTopicsFromMirror (failover) appends {@code .removed}, and adding the topic
 * again (failback, or restarting a stopped mirror) sets the plain name back. Stateless.
 */
public final class MirrorTopicConfig
{
    /** The topic config naming the topic's mirror. */
    public static final String MIRROR_NAME_CONFIG = MirrorDefinition.MIRROR_NAME_CONFIG;
    /** What RemoveTopicsFromMirror appends to the mirror name. */
    public static final String REMOVED_SUFFIX = MirrorDefinition.REMOVED_SUFFIX;

    private MirrorTopicConfig()
    {
    }

    /** The mirror the topic is actively mirrored from, or null (no mirror, or removed from it). */
    public static String activeMirror(final Map<String, String> topicConfig)
    {
        final String value = topicConfig == null ? null : topicConfig.get(MIRROR_NAME_CONFIG);
        return value == null || value.isEmpty() || value.endsWith(REMOVED_SUFFIX) ? null : value;
    }

    /** The mirror the topic was removed from (failed over), or null. */
    public static String removedMirror(final Map<String, String> topicConfig)
    {
        final String value = topicConfig == null ? null : topicConfig.get(MIRROR_NAME_CONFIG);
        return value != null && value.endsWith(REMOVED_SUFFIX) ?
            value.substring(0, value.length() - REMOVED_SUFFIX.length()) : null;
    }

    /** Whether the topic is or was a mirror topic (it has a mirror state on this cluster). */
    public static boolean isMirrorTopic(final Map<String, String> topicConfig)
    {
        final String value = topicConfig == null ? null : topicConfig.get(MIRROR_NAME_CONFIG);
        return value != null && !value.isEmpty();
    }
}

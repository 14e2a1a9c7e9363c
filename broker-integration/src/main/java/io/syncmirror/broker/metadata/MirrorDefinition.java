package io.syncmirror.broker.metadata;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A cluster mirror as the destination's metadata log defines it: its name, how to reach the source cluster, and
 * which source topics it mirrors (include regexes minus exclude regexes, each matched against the whole topic
 * name), and the mirror's own settings ({@link MirrorAclSyncConfig}). Immutable, so thread-safe.
 *
 * <p>A topic belongs to mirror {@code M} while its topic config {@value #MIRROR_NAME_CONFIG} is {@code M};
 * failover sets it to {@code M} + {@value #REMOVED_SUFFIX}, failback sets {@code M} again.
 */
public record MirrorDefinition(String name, String sourceBootstrapServers, Map<String, String> sourceConfigs,
    List<String> includeTopics, List<String> excludeTopics, Map<String, String> mirrorConfigs)
{
    /** The topic config naming the mirror a topic belongs to; set only by the controller's mirror operations. */
    public static final String MIRROR_NAME_CONFIG = "mirror.name";
    /** Appended to the mirror name when a topic is removed from its mirror (failover). */
    public static final String REMOVED_SUFFIX = ".removed";
    /** Longest mirror name, as for topic names. */
    public static final int MAX_NAME_LENGTH = 249;

    public MirrorDefinition
    {
        Objects.requireNonNull(name, "name");
        sourceBootstrapServers = sourceBootstrapServers == null ? "" : sourceBootstrapServers;
        sourceConfigs = sourceConfigs == null ? Map.of() : java.util.Collections.unmodifiableMap(
            new TreeMap<>(sourceConfigs));
        includeTopics = includeTopics == null ? List.of() : List.copyOf(includeTopics);
        excludeTopics = excludeTopics == null ? List.of() : List.copyOf(excludeTopics);
        mirrorConfigs = mirrorConfigs == null ? Map.of() : java.util.Collections.unmodifiableMap(
            new TreeMap<>(mirrorConfigs));
    }

    /** A mirror without settings of its own (every mirror config at its default). */
    public MirrorDefinition(final String name, final String sourceBootstrapServers,
        final Map<String, String> sourceConfigs, final List<String> includeTopics, final List<String> excludeTopics)
    {
        this(name, sourceBootstrapServers, sourceConfigs, includeTopics, excludeTopics, Map.of());
    }

    /** The mirror's ACL sync settings (its mirror configs, validated when the mirror was created). */
    public MirrorAclSyncConfig aclSync()
    {
        return MirrorAclSyncConfig.parse(mirrorConfigs);
    }

    /** The {@value #MIRROR_NAME_CONFIG} value of a topic removed from mirror {@code mirrorName}. */
    public static String removedName(final String mirrorName)
    {
        return mirrorName + REMOVED_SUFFIX;
    }

    /**
     * Why this mirror cannot run topics in SYNC mode, or null when it can: its sync fetches and reports (the mirror
     * RPC client) speak PLAINTEXT, SSL, and SASL with PLAIN or SCRAM, so a source link configured with another SASL
     * mechanism (Kafka's default, GSSAPI, or OAUTHBEARER) would not be honoured by them. Refused rather than sent
     * without its authentication.
     */
    public String syncRefusal()
    {
        final String protocol = sourceConfigs.getOrDefault("security.protocol", "PLAINTEXT").trim()
            .toUpperCase(java.util.Locale.ROOT);
        if (!protocol.startsWith("SASL_"))
        {
            return null;
        }
        final String mechanism = sourceConfigs.getOrDefault("sasl.mechanism", "GSSAPI").trim();
        if (SYNC_SASL_MECHANISMS.contains(mechanism))
        {
            return null;
        }
        return "cluster mirror '" + name + "' connects to its source with security.protocol=" + protocol +
            " and sasl.mechanism=" + mechanism + ", which sync mode's fetches and reports do not serve (they log in "
            + "with " + SYNC_SASL_MECHANISMS + "): the topic stays ASYNC rather than send them without it";
    }

    /** The SASL mechanisms the mirror RPC client logs in with. */
    private static final java.util.Set<String> SYNC_SASL_MECHANISMS = java.util.Set.of("PLAIN", "SCRAM-SHA-256",
        "SCRAM-SHA-512");

    /** Why {@code name} cannot name a mirror, or null when it can. */
    public static String invalidNameReason(final String name)
    {
        if (name == null || name.isEmpty())
        {
            return "a mirror name must not be empty";
        }
        if (name.length() > MAX_NAME_LENGTH)
        {
            return "mirror name '" + name + "' is longer than " + MAX_NAME_LENGTH + " characters";
        }
        if (name.contains("/"))
        {
            return "mirror name '" + name + "' must not contain '/'";
        }
        if (name.endsWith(REMOVED_SUFFIX))
        {
            return "mirror name '" + name + "' must not end with '" + REMOVED_SUFFIX
                + "' (the suffix marks topics removed from a mirror)";
        }
        return null;
    }

    /** This definition with {@code pattern} appended to the include list (unchanged when already there). */
    public MirrorDefinition withInclude(final String pattern)
    {
        if (includeTopics.contains(pattern))
        {
            return this;
        }
        final List<String> includes = new java.util.ArrayList<>(includeTopics);
        includes.add(pattern);
        return new MirrorDefinition(name, sourceBootstrapServers, sourceConfigs, includes, excludeTopics,
            mirrorConfigs);
    }

    @Override
    public String toString()
    {
        // Source client configs may hold credentials (sasl.jaas.config): name the keys only.
        return "MirrorDefinition[name=" + name + ", sourceBootstrapServers=" + sourceBootstrapServers
            + ", sourceConfigKeys=" + sourceConfigs.keySet() + ", includeTopics=" + includeTopics
            + ", excludeTopics=" + excludeTopics + ", mirrorConfigs=" + mirrorConfigs + "]";
    }
}

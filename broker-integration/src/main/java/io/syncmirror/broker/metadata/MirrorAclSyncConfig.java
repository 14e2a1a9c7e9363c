package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * A mirror's ACL sync settings, read from its mirror configs (set with {@code --mirror-config} at creation):
 * whether the destination copies the source's ACLs of the mirror's topics and of the consumer groups the filters
 * select. Immutable, so thread-safe.
 *
 * <ul>
 * <li>{@value #ENABLE_CONFIG} ({@code false}): copy ACLs at each metadata sync cycle.</li>
 * <li>{@value #GROUPS_INCLUDE_CONFIG} ({@code .*}) and {@value #GROUPS_EXCLUDE_CONFIG} (none): comma-separated
 * regexes; a source GROUP ACL is copied when its pattern's name (a group id, a prefix, or {@code *}) matches an
 * include regex and no exclude regex, whole.</li>
 * </ul>
 * Topic ACLs need no filter of their own: the mirror's topics are the filter.
 */
public record MirrorAclSyncConfig(boolean enabled, List<Pattern> groupIncludes, List<Pattern> groupExcludes)
{
    public static final String ENABLE_CONFIG = "acl.sync.enable";
    public static final String GROUPS_INCLUDE_CONFIG = "acl.sync.groups.include";
    public static final String GROUPS_EXCLUDE_CONFIG = "acl.sync.groups.exclude";

    /** Every mirror config name a destination knows. */
    public static final Set<String> NAMES = Set.of(ENABLE_CONFIG, GROUPS_INCLUDE_CONFIG, GROUPS_EXCLUDE_CONFIG);

    /** ACL sync off: the default of a mirror created without mirror configs. */
    public static final MirrorAclSyncConfig DISABLED = parse(Map.of());

    public MirrorAclSyncConfig
    {
        groupIncludes = List.copyOf(groupIncludes);
        groupExcludes = List.copyOf(groupExcludes);
    }

    /**
     * The settings in {@code mirrorConfigs}.
     *
     * @throws IllegalArgumentException naming the config, for an unknown name, a value that is not
     *                                  {@code true}/{@code false}, or a regex that does not compile
     */
    public static MirrorAclSyncConfig parse(final Map<String, String> mirrorConfigs)
    {
        for (final String name : mirrorConfigs.keySet())
        {
            if (!NAMES.contains(name))
            {
                throw new IllegalArgumentException("unknown mirror config '" + name + "' (known: "
                    + new java.util.TreeSet<>(NAMES) + ")");
            }
        }
        final String enable = mirrorConfigs.getOrDefault(ENABLE_CONFIG, "false").trim().toLowerCase(Locale.ROOT);
        if (!enable.equals("true") && !enable.equals("false"))
        {
            throw new IllegalArgumentException("mirror config " + ENABLE_CONFIG + " must be true or false, not '"
                + mirrorConfigs.get(ENABLE_CONFIG) + "'");
        }
        return new MirrorAclSyncConfig(enable.equals("true"),
            regexes(GROUPS_INCLUDE_CONFIG, mirrorConfigs.getOrDefault(GROUPS_INCLUDE_CONFIG, ".*")),
            regexes(GROUPS_EXCLUDE_CONFIG, mirrorConfigs.getOrDefault(GROUPS_EXCLUDE_CONFIG, "")));
    }

    /** Why {@code mirrorConfigs} cannot be a mirror's, or null when they can. */
    public static String invalidReason(final Map<String, String> mirrorConfigs)
    {
        try
        {
            parse(mirrorConfigs);
            return null;
        }
        catch (final IllegalArgumentException e)
        {
            return e.getMessage();
        }
    }

    /** Whether a source GROUP ACL whose pattern is named {@code patternName} is copied. */
    public boolean copiesGroupPattern(final String patternName)
    {
        return groupIncludes.stream().anyMatch(p -> p.matcher(patternName).matches())
            && groupExcludes.stream().noneMatch(p -> p.matcher(patternName).matches());
    }

    private static List<Pattern> regexes(final String config, final String value)
    {
        final List<Pattern> out = new ArrayList<>();
        for (final String part : value.split(","))
        {
            final String regex = part.trim();
            if (regex.isEmpty())
            {
                continue;
            }
            try
            {
                out.add(Pattern.compile(regex));
            }
            catch (final PatternSyntaxException e)
            {
                throw new IllegalArgumentException("mirror config " + config + ": '" + regex
                    + "' is not a valid regular expression: " + e.getDescription());
            }
        }
        return out;
    }
}

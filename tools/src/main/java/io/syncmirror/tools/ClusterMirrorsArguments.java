package io.syncmirror.tools;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;

import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.WireSecurity;
import io.syncmirror.tools.ClusterMirrorsCommand.Option;
import io.syncmirror.tools.ClusterMirrorsCommand.UsageException;

/**
 * The values of {@code kafka-cluster-mirrors}' parsed options, read and checked: a value that is missing, empty or
 * malformed, or a file that cannot be read, is a {@link UsageException} naming the option, before anything is
 * sent. Stateless.
 */
final class ClusterMirrorsArguments
{
    private ClusterMirrorsArguments()
    {
    }

    /** The value of a required option, trimmed; it must not be empty. */
    static String required(final Map<Option, List<String>> options, final Option option)
        throws UsageException
    {
        final List<String> values = options.get(option);
        if (values == null)
        {
            throw new UsageException(option.flag + " " + option.argName + " is required");
        }
        final String value = values.get(0).trim();
        if (value.isEmpty())
        {
            throw new UsageException(option.flag + " must not be empty");
        }
        return value;
    }

    /** The value of an optional option, trimmed, or null when it is not given. */
    static String optional(final Map<Option, List<String>> options, final Option option)
        throws UsageException
    {
        return options.containsKey(option) ? required(options, option) : null;
    }

    /** Checks that {@code value} is a comma-separated list of {@code host:port}. */
    static void hostPorts(final Option option, final String value) throws UsageException
    {
        for (final String part : value.split(",", -1))
        {
            try
            {
                MirrorWireClient.parse(part);
            }
            catch (final IllegalArgumentException e)
            {
                throw new UsageException(option.flag + ": " + e.getMessage());
            }
        }
    }

    /** --command-timeout-ms, or its default. */
    static int timeoutMs(final Map<Option, List<String>> options) throws UsageException
    {
        final String value = optional(options, Option.COMMAND_TIMEOUT_MS);
        if (value == null)
        {
            return ClusterMirrorsCommand.DEFAULT_COMMAND_TIMEOUT_MS;
        }
        try
        {
            final int timeoutMs = Integer.parseInt(value);
            if (timeoutMs > 0)
            {
                return timeoutMs;
            }
        }
        catch (final NumberFormatException e)
        {
            // Reported below with the same message as a non-positive number.
        }
        throw new UsageException(Option.COMMAND_TIMEOUT_MS.flag + " must be a positive number of milliseconds, not '"
            + value + "'");
    }

    /** The KEY=VALUE arguments of a repeatable option, in key order. */
    static Map<String, String> keyValues(final Map<Option, List<String>> options, final Option option)
        throws UsageException
    {
        final Map<String, String> configs = new TreeMap<>();
        for (final String config : options.getOrDefault(option, List.of()))
        {
            final int equals = config.indexOf('=');
            if (equals <= 0 || config.substring(0, equals).isBlank())
            {
                throw new UsageException(option.flag + " must be KEY=VALUE, not '" + config + "'");
            }
            configs.put(config.substring(0, equals).trim(), config.substring(equals + 1));
        }
        return configs;
    }

    /** The connection security a config-file option names; plaintext when it is not given. */
    static WireSecurity security(final Map<Option, List<String>> options, final Option option)
        throws UsageException
    {
        final String file = optional(options, option);
        if (file == null)
        {
            return WireSecurity.PLAINTEXT;
        }
        try
        {
            return WireSecurity.forClientConfigs(readConfigFile(file, option));
        }
        catch (final KafkaException e)
        {
            throw new UsageException(option.flag + " '" + file + "': " + e.getMessage());
        }
    }

    /** The client configs of the --source-config-file. */
    static Map<String, String> readConfigFile(final String file) throws UsageException
    {
        return readConfigFile(file, Option.SOURCE_CONFIG_FILE);
    }

    private static Map<String, String> readConfigFile(final String file, final Option option) throws UsageException
    {
        final Path path = Paths.get(file);
        final Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(path, StandardCharsets.UTF_8))
        {
            properties.load(reader);
        }
        catch (final IOException | IllegalArgumentException e)
        {
            // IllegalArgumentException: a malformed unicode escape (backslash, u, four hex digits) in the file.
            throw new UsageException("cannot read " + option.flag + " '" + file + "': "
                + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
        final Map<String, String> configs = new LinkedHashMap<>();
        for (final String name : properties.stringPropertyNames())
        {
            configs.put(name, properties.getProperty(name));
        }
        return configs;
    }

    /** The regexes of a repeatable option, each checked. */
    static List<String> regexes(final Option option, final List<String> values) throws UsageException
    {
        for (final String regex : values)
        {
            regex(option, regex);
        }
        return new ArrayList<>(values);
    }

    /** A regex option's value, checked to compile. */
    static String regex(final Option option, final String regex) throws UsageException
    {
        if (regex.isEmpty())
        {
            throw new UsageException(option.flag + " must not be empty");
        }
        try
        {
            Pattern.compile(regex);
            return regex;
        }
        catch (final PatternSyntaxException e)
        {
            throw new UsageException(option.flag + " '" + regex + "' is not a valid regular expression: "
                + e.getDescription());
        }
    }

    /** The --topics, each a valid topic name, without duplicates, in the order given. */
    static List<String> topics(final Map<Option, List<String>> options) throws UsageException
    {
        final Set<String> topics = new LinkedHashSet<>();
        for (final String part : required(options, Option.TOPICS).split(",", -1))
        {
            final String topic = part.trim();
            try
            {
                Topic.validate(topic);
            }
            catch (final InvalidTopicException e)
            {
                throw new UsageException(Option.TOPICS.flag + ": '" + topic + "' is not a valid topic name: "
                    + e.getMessage());
            }
            topics.add(topic);
        }
        return new ArrayList<>(topics);
    }

    /** The --mirror value, known to be present once the request was built. */
    static String mirrorName(final Map<Option, List<String>> options)
    {
        return options.get(Option.MIRROR).get(0).trim();
    }
}

package io.syncmirror.tools;

import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.MirrorTopicResult;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.WireSecurity;

/**
 * The {@code kafka-cluster-mirrors} command: creates, lists, describes and deletes cluster mirrors on a
 * destination cluster, adds topics to them (asynchronous or synchronous), alters their mirror type, removes topics
 * from them (failover), and, against a source cluster, releases sync registrations. Stateless between runs;
 * {@link #run} is safe to call from several threads at once, each call on its own streams.
 *
 * <p>It follows the Kafka command-line tools' conventions: {@code --bootstrap-server} names the cluster,
 * exactly one action option says what to do, {@code --help} lists every option. Bad, missing or conflicting
 * arguments print one line naming the problem and "see --help" on stderr and exit {@value #EXIT_USAGE};
 * anything the broker refuses, and a cluster that cannot be reached, print the error on stderr and exit
 * {@value #EXIT_FAILED}, without a stack trace. It parses the options and prints; every request goes through
 * {@link MirrorAdmin}, as Kafka's TopicCommand sits on Admin, since the mirror RPCs are not ones kafka-clients can
 * send.
 */
public final class ClusterMirrorsCommand
{
    /** Every request succeeded. */
    public static final int EXIT_OK = 0;
    /** The broker refused something, or could not be reached. */
    public static final int EXIT_FAILED = 1;
    /** The arguments were bad, missing or conflicting; nothing was sent. */
    public static final int EXIT_USAGE = 2;

    static final int DEFAULT_COMMAND_TIMEOUT_MS = 30_000;
    static final String CLIENT_ID = "kafka-cluster-mirrors";

    /** The command-line options, in the order --help lists them. */
    enum Option
    {
        BOOTSTRAP_SERVER("bootstrap-server", "HOST:PORT", false,
            "The destination cluster's broker(s) to connect to, comma-separated (required except with --help); "
                + "with --release-sync, the source cluster's."),
        CREATE("create", null, false,
            "Action: define a cluster mirror (needs --mirror and --source-bootstrap-server)."),
        ADD("add", null, false,
            "Action: add topics to a mirror (needs --mirror and one of --topics or --topic-regex; --sync optional)."),
        ALTER("alter", null, false,
            "Action: set the mirror type of mirrored topics (needs --mirror, --topics and one of --sync, --async)."),
        REMOVE("remove", null, false,
            "Action: remove topics from a mirror, which fails them over to writable (needs --mirror, --topics)."),
        STOP("stop", null, false,
            "Action: the same as --remove."),
        DESCRIBE("describe", null, false,
            "Action: show each mirror's source, filters and per-partition state (all mirrors, or --mirror)."),
        LIST("list", null, false,
            "Action: list the mirrors, one line each: name and source bootstrap servers."),
        DELETE("delete", null, false,
            "Action: delete a mirror definition (needs --mirror)."),
        RELEASE_SYNC("release-sync", null, false,
            "Action, run against the SOURCE cluster: release the sync registration of a mirror's topics (--topics, "
                + "or all); breaks zero-RPO for data not yet on the destination (needs --mirror)."),
        HELP("help", null, false,
            "Print this list of options and exit."),
        MIRROR("mirror", "NAME", false,
            "The cluster mirror to act on."),
        SOURCE_BOOTSTRAP_SERVER("source-bootstrap-server", "HOST:PORT", false,
            "With --create: the source cluster's broker(s), comma-separated."),
        SOURCE_CONFIG("source-config", "KEY=VALUE", true,
            "With --create: a client config for the connections to the source; repeatable, wins over the file."),
        SOURCE_CONFIG_FILE("source-config-file", "FILE", false,
            "With --create: a properties file of client configs for the connections to the source."),
        MIRROR_CONFIG("mirror-config", "KEY=VALUE", true,
            "With --create: a setting of the mirror itself; repeatable. acl.sync.enable=true copies the source's ACLs "
                + "of the mirror's topics and of the groups acl.sync.groups.include/exclude (comma-separated "
                + "regexes) select."),
        INCLUDE("include", "REGEX", true,
            "With --create: mirror the source topics whose whole name matches; repeatable."),
        EXCLUDE("exclude", "REGEX", true,
            "With --create: never mirror the source topics whose whole name matches; repeatable."),
        TOPICS("topics", "T1,T2", false,
            "With --add, --remove, --alter or --release-sync: the topics, comma-separated."),
        TOPIC_REGEX("topic-regex", "REGEX", false,
            "With --add: add every source topic whose whole name matches, now and as they appear."),
        SYNC("sync", null, false,
            "With --add or --alter: mirror synchronously (zero RPO); promotion waits until the lag is zero. The "
                + "source is probed first and an incompatible source fails the command."),
        ASYNC("async", null, false,
            "With --alter: mirror asynchronously; demotes a SYNC topic at once."),
        FAILED("failed", null, false,
            "With --describe: only the partitions that are FAILED or carry an error, and the topics and mirrors "
                + "they belong to."),
        JSON("json", null, false,
            "With --describe: print one JSON document (mirrors, topics, partitions, every field) instead of tables."),
        COMMAND_CONFIG("command-config", "FILE", false,
            "A properties file of Kafka client configs for the connection to --bootstrap-server (security.protocol, "
                + "ssl.*), as Kafka's tools take it."),
        SOURCE_COMMAND_CONFIG("source-command-config", "FILE", false,
            "With --sync: a properties file of Kafka client configs for the probe of the mirror's source cluster "
                + "(its bootstrap servers come from the mirror)."),
        COMMAND_TIMEOUT_MS("command-timeout-ms", "N", false,
            "How long to wait to connect and for each response, in milliseconds (default "
                + DEFAULT_COMMAND_TIMEOUT_MS + ").");

        final String flag;
        final String argName;
        final boolean repeatable;
        final String description;

        Option(final String name, final String argName, final boolean repeatable, final String description)
        {
            this.flag = "--" + name;
            this.argName = argName;
            this.repeatable = repeatable;
            this.description = description;
        }

        boolean takesValue()
        {
            return argName != null;
        }

        static Option forFlag(final String flag)
        {
            for (final Option option : values())
            {
                if (option.flag.equals(flag))
                {
                    return option;
                }
            }
            return null;
        }
    }

    /**
     * The actions, each with the options it accepts besides --bootstrap-server, --command-config and
     * --command-timeout-ms.
     */
    private enum Action
    {
        CREATE(Option.CREATE, EnumSet.of(Option.MIRROR, Option.SOURCE_BOOTSTRAP_SERVER, Option.SOURCE_CONFIG,
            Option.SOURCE_CONFIG_FILE, Option.MIRROR_CONFIG, Option.INCLUDE, Option.EXCLUDE)),
        ADD(Option.ADD, EnumSet.of(Option.MIRROR, Option.TOPICS, Option.TOPIC_REGEX, Option.SYNC,
            Option.SOURCE_COMMAND_CONFIG)),
        ALTER(Option.ALTER, EnumSet.of(Option.MIRROR, Option.TOPICS, Option.SYNC, Option.ASYNC,
            Option.SOURCE_COMMAND_CONFIG)),
        RELEASE_SYNC(Option.RELEASE_SYNC, EnumSet.of(Option.MIRROR, Option.TOPICS)),
        REMOVE(Option.REMOVE, EnumSet.of(Option.MIRROR, Option.TOPICS)),
        DESCRIBE(Option.DESCRIBE, EnumSet.of(Option.MIRROR, Option.FAILED, Option.JSON)),
        LIST(Option.LIST, EnumSet.noneOf(Option.class)),
        DELETE(Option.DELETE, EnumSet.of(Option.MIRROR));

        final Option option;
        final Set<Option> accepts;

        Action(final Option option, final Set<Option> accepts)
        {
            this.option = option;
            this.accepts = accepts;
        }
    }

    /** One action's request, its arguments checked, sent through {@link MirrorAdmin}, and its answer printed. */
    @FunctionalInterface
    private interface Call
    {
        /** Sends the request, waits for its answer and prints it; returns the command's exit code. */
        int send(MirrorAdmin admin, PrintStream out, PrintStream err) throws IOException;
    }

    /** A bad, missing or conflicting argument; its message is the one line the user sees. */
    static final class UsageException extends Exception
    {
        private static final long serialVersionUID = 1L;

        UsageException(final String message)
        {
            super(message);
        }
    }

    private ClusterMirrorsCommand()
    {
    }

    public static void main(final String[] args)
    {
        System.exit(run(args, System.out, System.err));
    }

    /**
     * Runs the command with {@code args}, writing results to {@code out} and errors to {@code err}.
     *
     * @return {@link #EXIT_OK}, {@link #EXIT_FAILED} or {@link #EXIT_USAGE}
     */
    public static int run(final String[] args, final PrintStream out, final PrintStream err)
    {
        final Map<Option, List<String>> options;
        try
        {
            options = parse(args);
        }
        catch (final UsageException e)
        {
            return usageError(err, e.getMessage());
        }
        if (options.containsKey(Option.HELP))
        {
            printHelp(out);
            return EXIT_OK;
        }
        final String bootstrap;
        final int timeoutMs;
        final Call call;
        final WireSecurity security;
        final WireSecurity sourceSecurity;
        try
        {
            final Action action = action(options);
            checkApplicable(options, action);
            bootstrap = required(options, Option.BOOTSTRAP_SERVER);
            hostPorts(Option.BOOTSTRAP_SERVER, bootstrap);
            timeoutMs = timeoutMs(options);
            call = call(action, options);
            security = security(options, Option.COMMAND_CONFIG);
            sourceSecurity = security(options, Option.SOURCE_COMMAND_CONFIG);
        }
        catch (final UsageException e)
        {
            return usageError(err, e.getMessage());
        }
        try (MirrorAdmin admin = MirrorAdmin.create(bootstrap, timeoutMs, security, CLIENT_ID))
        {
            if (options.containsKey(Option.SYNC))
            {
                final int probeExit = probeSource(admin, mirrorName(options), timeoutMs, sourceSecurity, err);
                if (probeExit != EXIT_OK)
                {
                    return probeExit;
                }
            }
            return call.send(admin, out, err);
        }
        catch (final IOException e)
        {
            err.println("Error: " + e.getMessage());
            return EXIT_FAILED;
        }
        catch (final RuntimeException e)
        {
            // A request the codec cannot encode (a string over 32767 bytes) or a response this command cannot
            // read: still one line, not a stack trace.
            err.println("Error: " + e.getClass().getSimpleName() + ": " + e.getMessage());
            return EXIT_FAILED;
        }
    }

    private static int usageError(final PrintStream err, final String message)
    {
        err.println("Error: " + message + " (see --help)");
        return EXIT_USAGE;
    }

    static Map<Option, List<String>> parse(final String[] args) throws UsageException
    {
        final Map<Option, List<String>> options = new EnumMap<>(Option.class);
        for (int i = 0; i < args.length; i++)
        {
            final String arg = args[i];
            final int equals = arg.indexOf('=');
            final String flag = arg.startsWith("--") && equals > 0 ? arg.substring(0, equals) : arg;
            final Option option = Option.forFlag(flag);
            if (option == null)
            {
                throw new UsageException(arg.startsWith("-") ? "unknown option " + flag
                    : "unexpected argument '" + arg + "'");
            }
            final String value;
            if (!option.takesValue())
            {
                if (flag.length() != arg.length())
                {
                    throw new UsageException(option.flag + " takes no value");
                }
                value = "";
            }
            else if (flag.length() != arg.length())
            {
                value = arg.substring(equals + 1);
            }
            else if (i + 1 < args.length && !args[i + 1].startsWith("--"))
            {
                value = args[++i];
            }
            else
            {
                throw new UsageException(option.flag + " needs a value (" + option.argName + ")");
            }
            final List<String> values = options.computeIfAbsent(option, o -> new ArrayList<>());
            if (!values.isEmpty() && !option.repeatable)
            {
                throw new UsageException(option.flag + " was given more than once");
            }
            values.add(value);
        }
        return options;
    }

    private static Action action(final Map<Option, List<String>> options) throws UsageException
    {
        final List<Option> given = new ArrayList<>();
        for (final Option option : new Option[] {Option.CREATE, Option.ADD, Option.ALTER, Option.REMOVE, Option.STOP,
            Option.DESCRIBE, Option.LIST, Option.DELETE, Option.RELEASE_SYNC})
        {
            if (options.containsKey(option))
            {
                given.add(option);
            }
        }
        if (given.isEmpty())
        {
            throw new UsageException("exactly one action is needed: --create, --add, --alter, --remove (--stop), "
                + "--describe, --list, --delete or --release-sync");
        }
        if (given.size() > 1)
        {
            throw new UsageException("only one action at a time, but got " + given.get(0).flag + " and "
                + given.get(1).flag);
        }
        switch (given.get(0))
        {
            case CREATE:
                return Action.CREATE;
            case ADD:
                return Action.ADD;
            case ALTER:
                return Action.ALTER;
            case RELEASE_SYNC:
                return Action.RELEASE_SYNC;
            case REMOVE:
            case STOP:
                return Action.REMOVE;
            case DESCRIBE:
                return Action.DESCRIBE;
            case LIST:
                return Action.LIST;
            default:
                return Action.DELETE;
        }
    }

    private static void checkApplicable(final Map<Option, List<String>> options, final Action action)
        throws UsageException
    {
        for (final Option option : options.keySet())
        {
            final boolean actionFlag = option == action.option || action == Action.REMOVE && option == Option.STOP;
            if (!actionFlag && option != Option.BOOTSTRAP_SERVER && option != Option.COMMAND_TIMEOUT_MS
                && option != Option.COMMAND_CONFIG && !action.accepts.contains(option))
            {
                throw new UsageException(option.flag + " does not apply to " + action.option.flag);
            }
        }
    }

    private static String required(final Map<Option, List<String>> options, final Option option)
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

    private static String optional(final Map<Option, List<String>> options, final Option option)
        throws UsageException
    {
        return options.containsKey(option) ? required(options, option) : null;
    }

    /** Checks that {@code value} is a comma-separated list of {@code host:port}. */
    private static void hostPorts(final Option option, final String value) throws UsageException
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

    private static int timeoutMs(final Map<Option, List<String>> options) throws UsageException
    {
        final String value = optional(options, Option.COMMAND_TIMEOUT_MS);
        if (value == null)
        {
            return DEFAULT_COMMAND_TIMEOUT_MS;
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

    /**
     * The action's request, built from the options and checked before anything is sent, and how its answer is
     * printed.
     */
    private static Call call(final Action action, final Map<Option, List<String>> options) throws UsageException
    {
        switch (action)
        {
            case CREATE:
                return createCall(options);
            case ADD:
                return addCall(options);
            case ALTER:
                return alterCall(options);
            case RELEASE_SYNC:
                return releaseCall(options);
            case REMOVE:
                return removeCall(options);
            case DESCRIBE:
                final String mirror = optional(options, Option.MIRROR);
                final boolean failedOnly = options.containsKey(Option.FAILED);
                final boolean json = options.containsKey(Option.JSON);
                return (admin, out, err) -> MirrorDescriptions.describe(mirror, await(admin.describeClusterMirrors(
                    mirror == null ? null : List.of(mirror)).response()), failedOnly, json, out, err);
            case LIST:
                return (admin, out, err) -> MirrorDescriptions.list(await(admin.describeClusterMirrors(null)
                    .response()), out, err);
            default:
                final String deleted = required(options, Option.MIRROR);
                return (admin, out, err) -> reportWhole(await(admin.deleteClusterMirror(deleted).answer()),
                    "Deleted cluster mirror '" + deleted + "'.", "Failed to delete cluster mirror '" + deleted + "'",
                    out, err);
        }
    }

    private static Call createCall(final Map<Option, List<String>> options) throws UsageException
    {
        final String name = required(options, Option.MIRROR);
        final String source = required(options, Option.SOURCE_BOOTSTRAP_SERVER);
        hostPorts(Option.SOURCE_BOOTSTRAP_SERVER, source);
        final Map<String, String> configs = new TreeMap<>();
        final String file = optional(options, Option.SOURCE_CONFIG_FILE);
        if (file != null)
        {
            configs.putAll(readConfigFile(file));
        }
        configs.putAll(keyValues(options, Option.SOURCE_CONFIG));
        final MirrorAdmin.NewClusterMirror mirror = new MirrorAdmin.NewClusterMirror(name, source, configs,
            keyValues(options, Option.MIRROR_CONFIG),
            regexes(Option.INCLUDE, options.getOrDefault(Option.INCLUDE, List.of())),
            regexes(Option.EXCLUDE, options.getOrDefault(Option.EXCLUDE, List.of())));
        return (admin, out, err) -> reportWhole(await(admin.createClusterMirror(mirror).answer()),
            "Created cluster mirror '" + name + "' from " + source + ".",
            "Failed to create cluster mirror '" + name + "'", out, err);
    }

    /** The KEY=VALUE arguments of a repeatable option, in key order. */
    private static Map<String, String> keyValues(final Map<Option, List<String>> options, final Option option)
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
    private static WireSecurity security(final Map<Option, List<String>> options, final Option option)
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

    private static Map<String, String> readConfigFile(final String file) throws UsageException
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

    private static List<String> regexes(final Option option, final List<String> values) throws UsageException
    {
        for (final String regex : values)
        {
            regex(option, regex);
        }
        return new ArrayList<>(values);
    }

    private static String regex(final Option option, final String regex) throws UsageException
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

    private static List<String> topics(final Map<Option, List<String>> options) throws UsageException
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

    private static Call addCall(final Map<Option, List<String>> options) throws UsageException
    {
        final String mirror = required(options, Option.MIRROR);
        final boolean byName = options.containsKey(Option.TOPICS);
        final boolean byRegex = options.containsKey(Option.TOPIC_REGEX);
        if (byName == byRegex)
        {
            throw new UsageException(Option.ADD.flag + " needs exactly one of " + Option.TOPICS.flag + " and "
                + Option.TOPIC_REGEX.flag);
        }
        final boolean sync = options.containsKey(Option.SYNC);
        final MirrorType type = sync ? MirrorType.SYNC : MirrorType.ASYNC;
        final String added = "Added topic '%s' to mirror '" + mirror + "'" + (sync ? " as SYNC" : "") + ".";
        if (byName)
        {
            final List<String> topics = topics(options);
            return (admin, out, err) -> reportTopics(await(admin.addTopicsToMirror(mirror, topics, type).answer())
                .topics(), added, name -> false, sync, out, err);
        }
        final String regex = regex(Option.TOPIC_REGEX, options.get(Option.TOPIC_REGEX).get(0));
        return (admin, out, err) ->
        {
            final List<MirrorTopicResult> topics = await(admin.addTopicPatternToMirror(mirror, regex, type)
                .answer()).topics();
            if (topics.isEmpty())
            {
                out.println("Added topic pattern '" + regex + "' to mirror '" + mirror + "'" + (sync ? " as SYNC"
                    : "") + "; no matching topic was reported yet.");
                return EXIT_OK;
            }
            // A broker reports an error for a regex it could not act on under the regex itself.
            return reportTopics(topics, added, regex::equals, sync, out, err);
        };
    }

    private static Call alterCall(final Map<Option, List<String>> options) throws UsageException
    {
        final String mirror = required(options, Option.MIRROR);
        if (options.containsKey(Option.SYNC) == options.containsKey(Option.ASYNC))
        {
            throw new UsageException(Option.ALTER.flag + " needs exactly one of " + Option.SYNC.flag + " and "
                + Option.ASYNC.flag);
        }
        final MirrorType type = options.containsKey(Option.SYNC) ? MirrorType.SYNC : MirrorType.ASYNC;
        final Map<String, MirrorType> types = new LinkedHashMap<>();
        topics(options).forEach(topic -> types.put(topic, type));
        return (admin, out, err) -> reportTopics(await(admin.alterMirrorTopicType(mirror, types).answer()).topics(),
            "Set the mirror type of topic '%s' in mirror '" + mirror + "' to " + type + ".", name -> false,
            type == MirrorType.SYNC, out, err);
    }

    /** Release of the sync registration; no --topics means every topic registered under the mirror. */
    private static Call releaseCall(final Map<Option, List<String>> options) throws UsageException
    {
        final String mirror = required(options, Option.MIRROR);
        final List<String> topics = options.containsKey(Option.TOPICS) ? topics(options) : List.of();
        final String which = topics.isEmpty() ? "every topic" : "topic(s) " + String.join(", ", topics);
        return (admin, out, err) -> reportWhole(await(admin.releaseMirrorSyncTopics(mirror, topics).answer()),
            "Released the sync registration of " + which + " of mirror '" + mirror + "' on this source cluster; "
                + "sync resumes once the destination re-promotes them.",
            "failed to release the sync registration of " + which + " of mirror '" + mirror + "'", out, err);
    }

    private static Call removeCall(final Map<Option, List<String>> options) throws UsageException
    {
        final String mirror = required(options, Option.MIRROR);
        final List<String> topics = topics(options);
        return (admin, out, err) -> reportTopics(await(admin.removeTopicsFromMirror(mirror, topics).answer())
            .topics(), "Removed topic '%s' from mirror '" + mirror + "'; it fails over to writable once its "
                + "partitions are STOPPED.", name -> false, false, out, err);
    }

    /**
     * The value of a call's future, or the failure that kept the answer from arriving, as this command has always
     * printed it: a connect failure in the words of one server's or of all of them, an I/O failure as it is, and a
     * request that could not be encoded or an answer that could not be read as its own exception.
     */
    private static <T> T await(final CompletableFuture<T> future) throws IOException
    {
        try
        {
            return future.get();
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while waiting for the answer", e);
        }
        catch (final ExecutionException e)
        {
            final Throwable failure = e.getCause();
            final Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
            if (cause instanceof MirrorAdmin.BootstrapException bootstrap)
            {
                final List<IOException> failures = bootstrap.failures();
                final IOException last = failures.get(failures.size() - 1);
                if (failures.size() == 1)
                {
                    throw last;
                }
                throw new IOException("Cannot connect to any of the " + failures.size() + " bootstrap servers; the "
                    + "last: " + last.getMessage(), last);
            }
            if (cause instanceof IOException io)
            {
                throw io;
            }
            if (cause instanceof RuntimeException runtime)
            {
                throw runtime;
            }
            throw new IOException(cause.getMessage(), cause);
        }
    }

    /** The --mirror value, known to be present once the request was built. */
    private static String mirrorName(final Map<Option, List<String>> options)
    {
        return options.get(Option.MIRROR).get(0).trim();
    }

    private static int reportWhole(final MirrorAdmin.Answer answer, final String success, final String failure,
        final PrintStream out, final PrintStream err)
    {
        if (answer.errorCode() != Errors.NONE.code())
        {
            err.println("Error: " + failure + ": " + describeError(answer.errorCode(), answer.errorMessage()));
            return EXIT_FAILED;
        }
        out.println(success);
        return EXIT_OK;
    }

    /**
     * Prints each topic's result, in the order the broker sent them; a result whose name {@code isPattern} answers
     * a topic pattern rather than a topic. A success that carries a message is a warning: for a move to SYNC it is
     * the broker saying the promotion is pending until the lag drains.
     */
    private static int reportTopics(final List<MirrorTopicResult> results, final String successFormat,
        final Predicate<String> isPattern, final boolean sync, final PrintStream out, final PrintStream err)
    {
        int exit = EXIT_OK;
        for (final MirrorTopicResult topic : results)
        {
            if (topic.errorCode() == Errors.NONE.code())
            {
                out.println(String.format(Locale.ROOT, successFormat, topic.topicName()));
                final String note = topic.errorMessage();
                if (note != null && !note.isBlank())
                {
                    err.println("WARNING: topic '" + topic.topicName() + "': " + (sync && !note.toLowerCase(
                        Locale.ROOT).contains("pending") ? "promotion to SYNC is pending until the lag is zero: "
                        : "") + note);
                }
            }
            else
            {
                err.println("Error: " + (isPattern.test(topic.topicName()) ? "topic pattern '" : "topic '")
                    + topic.topicName() + "': " + describeError(topic.errorCode(), topic.errorMessage()));
                exit = EXIT_FAILED;
            }
        }
        return exit;
    }

    /**
     * The source-compatibility probe before --add --sync or --alter --sync: finds the mirror's source on the
     * destination and asks it for its versions and features.
     *
     * @return {@link #EXIT_OK} to go on (compatible, or unreachable after a warning), else the exit code, with
     *         the reason printed; nothing that changes state has been sent then
     */
    private static int probeSource(final MirrorAdmin destination, final String mirror, final int timeoutMs,
        final WireSecurity sourceSecurity, final PrintStream err) throws IOException
    {
        final DescribeClusterMirrorsResponseData described = await(destination.describeClusterMirrors(
            List.of(mirror)).response());
        if (described.errorCode() != Errors.NONE.code())
        {
            err.println("Error: cannot look up cluster mirror '" + mirror + "' to probe its source: "
                + describeError(described.errorCode(), described.errorMessage()) + "; nothing was changed.");
            return EXIT_FAILED;
        }
        final DescribeClusterMirrorsResponseData.MirrorDescription description = described.mirrors().stream()
            .filter(d -> mirror.equals(d.mirrorName())).findFirst().orElse(null);
        if (description == null || description.errorCode() != Errors.NONE.code())
        {
            err.println("Error: cluster mirror '" + mirror + "' " + (description == null ? "was not found"
                : describeError(description.errorCode(), description.errorMessage()))
                + "; cannot probe its source, nothing was changed.");
            return EXIT_FAILED;
        }
        final SourceCompatibilityProbe.Result result = SourceCompatibilityProbe.probe(
            description.sourceBootstrapServers(), timeoutMs, sourceSecurity);
        switch (result.outcome())
        {
            case COMPATIBLE:
                return EXIT_OK;
            case UNREACHABLE:
                err.println("WARNING: could not probe the source cluster of mirror '" + mirror + "' ("
                    + description.sourceBootstrapServers() + "): " + result.detail() + "; proceeding, the "
                    + "destination rejects an incompatible source when it registers the topics.");
                return EXIT_OK;
            default:
                err.println("Error: the source cluster of mirror '" + mirror + "' (" + description
                    .sourceBootstrapServers() + ") cannot mirror synchronously: " + result.detail()
                    + "; no mirror type was changed.");
                return EXIT_FAILED;
        }
    }

    /** The name of a mirror type byte: ASYNC, SYNC, or {@code TYPE_<n>} for one this command does not know. */
    static String typeName(final byte type)
    {
        try
        {
            return MirrorType.fromId(type).name();
        }
        catch (final IllegalArgumentException e)
        {
            return "TYPE_" + type;
        }
    }

    /** The name of a partition state byte, or {@code STATE_<n>} for a state this command does not know. */
    static String stateName(final byte state)
    {
        return MirrorPartitionState.nameOf(state);
    }

    /** An error code's name, from Kafka's Errors or the mirroring codes, or {@code ERROR_<code>} if neither does. */
    static String errorName(final short code)
    {
        return MirrorError.nameOf(code);
    }

    /** {@code NAME: message}, with the code's default message when the broker sent none. */
    static String describeError(final short code, final String message)
    {
        return MirrorError.describe(code, message);
    }

    private static void printHelp(final PrintStream out)
    {
        out.println("Manages the cluster mirrors of a destination cluster.");
        out.println("Usage: kafka-cluster-mirrors.sh --bootstrap-server HOST:PORT ACTION [OPTIONS]");
        out.println("  where ACTION is one of --create, --add, --alter, --remove (--stop), --describe, --list,");
        out.println("  --delete, --release-sync.");
        out.println("Exit status: 0 on success, 1 if the cluster refused a request or could not be reached,");
        out.println("2 for bad arguments.");
        out.println();
        out.println("Options:");
        int width = 0;
        for (final Option option : Option.values())
        {
            width = Math.max(width, usage(option).length());
        }
        for (final Option option : Option.values())
        {
            final String usage = usage(option);
            out.println("  " + usage + " ".repeat(width - usage.length() + 2) + option.description);
        }
    }

    private static String usage(final Option option)
    {
        return option.takesValue() ? option.flag + " " + option.argName : option.flag;
    }
}

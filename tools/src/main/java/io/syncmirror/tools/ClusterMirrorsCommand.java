package io.syncmirror.tools;

import static io.syncmirror.tools.ClusterMirrorsArguments.hostPorts;
import static io.syncmirror.tools.ClusterMirrorsArguments.mirrorName;
import static io.syncmirror.tools.ClusterMirrorsArguments.required;
import static io.syncmirror.tools.ClusterMirrorsArguments.security;
import static io.syncmirror.tools.ClusterMirrorsArguments.timeoutMs;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.MirrorType;
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
        final ClusterMirrorsCalls.Call call;
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
                final int probeExit = ClusterMirrorsCalls.probeSource(admin, mirrorName(options), timeoutMs,
                    sourceSecurity, err);
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

    /**
     * The action's request, built from the options and checked before anything is sent, and how its answer is
     * printed.
     */
    private static ClusterMirrorsCalls.Call call(final Action action, final Map<Option, List<String>> options)
        throws UsageException
    {
        switch (action)
        {
            case CREATE:
                return ClusterMirrorsCalls.create(options);
            case ADD:
                return ClusterMirrorsCalls.add(options);
            case ALTER:
                return ClusterMirrorsCalls.alter(options);
            case RELEASE_SYNC:
                return ClusterMirrorsCalls.release(options);
            case REMOVE:
                return ClusterMirrorsCalls.remove(options);
            case DESCRIBE:
                return ClusterMirrorsCalls.describe(options);
            case LIST:
                return ClusterMirrorsCalls.list();
            default:
                return ClusterMirrorsCalls.delete(options);
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

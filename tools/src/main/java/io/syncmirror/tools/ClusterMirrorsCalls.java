package io.syncmirror.tools;

import static io.syncmirror.tools.ClusterMirrorsArguments.hostPorts;
import static io.syncmirror.tools.ClusterMirrorsArguments.keyValues;
import static io.syncmirror.tools.ClusterMirrorsArguments.optional;
import static io.syncmirror.tools.ClusterMirrorsArguments.readConfigFile;
import static io.syncmirror.tools.ClusterMirrorsArguments.regex;
import static io.syncmirror.tools.ClusterMirrorsArguments.regexes;
import static io.syncmirror.tools.ClusterMirrorsArguments.required;
import static io.syncmirror.tools.ClusterMirrorsArguments.topics;
import static io.syncmirror.tools.ClusterMirrorsCommand.EXIT_FAILED;
import static io.syncmirror.tools.ClusterMirrorsCommand.EXIT_OK;
import static io.syncmirror.tools.ClusterMirrorsCommand.describeError;

import java.io.IOException;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.Predicate;

import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorTopicResult;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.WireSecurity;
import io.syncmirror.tools.ClusterMirrorsCommand.Option;
import io.syncmirror.tools.ClusterMirrorsCommand.UsageException;

/**
 * Each action of {@code kafka-cluster-mirrors} as a call through {@link MirrorAdmin}: its request, built from the
 * options and checked before anything is sent, and its answer printed in the broker's order with the broker's
 * codes, as the command has always printed it; also the source-compatibility probe before a move to SYNC.
 * Stateless; a {@link Call} holds only the checked arguments of one run.
 */
final class ClusterMirrorsCalls
{
    /** One action's request, its arguments checked, sent through {@link MirrorAdmin}, and its answer printed. */
    @FunctionalInterface
    interface Call
    {
        /** Sends the request, waits for its answer and prints it; returns the command's exit code. */
        int send(MirrorAdmin admin, PrintStream out, PrintStream err) throws IOException;
    }

    private ClusterMirrorsCalls()
    {
    }

    /** --create: CreateClusterMirror with the source configs of the file, overridden by --source-config. */
    static Call create(final Map<Option, List<String>> options) throws UsageException
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

    /** --add: the --topics by name, or the --topic-regex as one pattern whose matches the broker reports. */
    static Call add(final Map<Option, List<String>> options) throws UsageException
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

    /** --alter: every topic of --topics to the one mirror type of --sync or --async. */
    static Call alter(final Map<Option, List<String>> options) throws UsageException
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
    static Call release(final Map<Option, List<String>> options) throws UsageException
    {
        final String mirror = required(options, Option.MIRROR);
        final List<String> topics = options.containsKey(Option.TOPICS) ? topics(options) : List.of();
        final String which = topics.isEmpty() ? "every topic" : "topic(s) " + String.join(", ", topics);
        return (admin, out, err) -> reportWhole(await(admin.releaseMirrorSyncTopics(mirror, topics).answer()),
            "Released the sync registration of " + which + " of mirror '" + mirror + "' on this source cluster; "
                + "sync resumes once the destination re-promotes them.",
            "failed to release the sync registration of " + which + " of mirror '" + mirror + "'", out, err);
    }

    /** --remove (--stop): RemoveTopicsFromMirror, which fails the topics over to writable. */
    static Call remove(final Map<Option, List<String>> options) throws UsageException
    {
        final String mirror = required(options, Option.MIRROR);
        final List<String> topics = topics(options);
        return (admin, out, err) -> reportTopics(await(admin.removeTopicsFromMirror(mirror, topics).answer())
            .topics(), "Removed topic '%s' from mirror '" + mirror + "'; it fails over to writable once its "
                + "partitions are STOPPED.", name -> false, false, out, err);
    }

    /** --describe: one mirror or all, as tables or JSON, every partition or only the failing ones. */
    static Call describe(final Map<Option, List<String>> options) throws UsageException
    {
        final String mirror = optional(options, Option.MIRROR);
        final boolean failedOnly = options.containsKey(Option.FAILED);
        final boolean json = options.containsKey(Option.JSON);
        return (admin, out, err) -> MirrorDescriptions.describe(mirror, await(admin.describeClusterMirrors(
            mirror == null ? null : List.of(mirror)).response()), failedOnly, json, out, err);
    }

    /** --list: every mirror's name and source. */
    static Call list()
    {
        return (admin, out, err) -> MirrorDescriptions.list(await(admin.describeClusterMirrors(null).response()),
            out, err);
    }

    /** --delete: DeleteClusterMirror. */
    static Call delete(final Map<Option, List<String>> options) throws UsageException
    {
        final String mirror = required(options, Option.MIRROR);
        return (admin, out, err) -> reportWhole(await(admin.deleteClusterMirror(mirror).answer()),
            "Deleted cluster mirror '" + mirror + "'.", "Failed to delete cluster mirror '" + mirror + "'", out, err);
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
    static int probeSource(final MirrorAdmin destination, final String mirror, final int timeoutMs,
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
}

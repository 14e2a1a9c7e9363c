package io.syncmirror.tools;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.MirrorType;

/**
 * The output of {@code --describe} and {@code --list}, from the one DescribeClusterMirrors answer: tables (the
 * default) or a JSON document ({@code --json}), of every partition or only the failing ones ({@code --failed}).
 * Stateless.
 */
final class MirrorDescriptions
{
    private MirrorDescriptions()
    {
    }

    /**
     * Prints {@code --describe}; returns the command's exit code.
     *
     * @param askedFor the mirror asked for, or null when every mirror was
     */
    static int describe(final String askedFor, final DescribeClusterMirrorsResponseData response,
        final boolean failedOnly, final boolean json, final PrintStream out, final PrintStream err)
    {
        if (response.errorCode() != Errors.NONE.code())
        {
            err.println("Error: " + ClusterMirrorsCommand.describeError(response.errorCode(),
                response.errorMessage()));
            return ClusterMirrorsCommand.EXIT_FAILED;
        }
        if (response.mirrors().isEmpty() && askedFor != null)
        {
            err.println("Error: cluster mirror '" + askedFor + "' was not found.");
            return ClusterMirrorsCommand.EXIT_FAILED;
        }
        final List<DescribeClusterMirrorsResponseData.MirrorDescription> mirrors = failedOnly ?
            failed(response.mirrors()) : response.mirrors();
        int exit = ClusterMirrorsCommand.EXIT_OK;
        for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : mirrors)
        {
            if (mirror.errorCode() != Errors.NONE.code())
            {
                err.println("Error: cluster mirror '" + mirror.mirrorName() + "': "
                    + ClusterMirrorsCommand.describeError(mirror.errorCode(), mirror.errorMessage()));
                exit = ClusterMirrorsCommand.EXIT_FAILED;
            }
        }
        if (json)
        {
            out.println(json(mirrors));
            return exit;
        }
        if (response.mirrors().isEmpty())
        {
            out.println("No cluster mirrors.");
            return exit;
        }
        boolean first = true;
        for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : mirrors)
        {
            if (mirror.errorCode() != Errors.NONE.code())
            {
                continue;
            }
            if (!first)
            {
                out.println();
            }
            first = false;
            table(mirror, failedOnly, out);
        }
        return exit;
    }

    /** Prints {@code --list}: one line per mirror, its name and source. */
    static int list(final DescribeClusterMirrorsResponseData response, final PrintStream out, final PrintStream err)
    {
        if (response.errorCode() != Errors.NONE.code())
        {
            err.println("Error: " + ClusterMirrorsCommand.describeError(response.errorCode(),
                response.errorMessage()));
            return ClusterMirrorsCommand.EXIT_FAILED;
        }
        int exit = ClusterMirrorsCommand.EXIT_OK;
        final List<String[]> rows = new ArrayList<>();
        for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : response.mirrors())
        {
            if (mirror.errorCode() != Errors.NONE.code())
            {
                err.println("Error: cluster mirror '" + mirror.mirrorName() + "': "
                    + ClusterMirrorsCommand.describeError(mirror.errorCode(), mirror.errorMessage()));
                exit = ClusterMirrorsCommand.EXIT_FAILED;
            }
            else
            {
                rows.add(new String[] {mirror.mirrorName(), mirror.sourceBootstrapServers()});
            }
        }
        printTable(rows, out);
        return exit;
    }

    /** Whether a partition is failing: FAILED, or carrying an error code. */
    static boolean failing(final DescribeClusterMirrorsResponseData.MirrorPartition partition)
    {
        return partition.state() == MirrorPartitionState.FAILED.id() || partition.lastErrorCode() != Errors.NONE.code();
    }

    /** The mirrors with only their failing partitions, and only the topics that have one. */
    private static List<DescribeClusterMirrorsResponseData.MirrorDescription> failed(
        final List<DescribeClusterMirrorsResponseData.MirrorDescription> mirrors)
    {
        final List<DescribeClusterMirrorsResponseData.MirrorDescription> out = new ArrayList<>();
        for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : mirrors)
        {
            final DescribeClusterMirrorsResponseData.MirrorDescription copy = mirror.duplicate();
            copy.topics().clear();
            for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
            {
                final DescribeClusterMirrorsResponseData.MirrorTopic kept = topic.duplicate();
                kept.partitions().removeIf(partition -> !failing(partition));
                if (!kept.partitions().isEmpty())
                {
                    copy.topics().add(kept);
                }
            }
            out.add(copy);
        }
        return out;
    }

    private static void table(final DescribeClusterMirrorsResponseData.MirrorDescription mirror,
        final boolean failedOnly, final PrintStream out)
    {
        out.println("Mirror: " + mirror.mirrorName() + "\tSource: " + mirror.sourceBootstrapServers()
            + "\tInclude: " + patterns(mirror.includeTopics()) + "\tExclude: " + patterns(mirror.excludeTopics())
            + (mirror.mirrorConfigs().isEmpty() ? "" : "\tConfigs: " + String.join(",", mirror.mirrorConfigs())));
        if (mirror.errorMessage() != null && !mirror.errorMessage().isEmpty())
        {
            // Not an error of the answer: the mirror's last metadata sync (topics, configs, offsets, ACLs) failed.
            out.println("Mirror " + mirror.mirrorName() + ": " + mirror.errorMessage());
        }
        final List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"MIRROR", "TOPIC", "PARTITION", "STATE", "SOURCE-OFFSET", "DESTINATION-OFFSET",
            "LAG", "LAST-ERROR"});
        final List<String> notes = new ArrayList<>();
        for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
        {
            // Sync mirroring: both types and the recovery hint, for every topic that takes part in it (an
            // asynchronous topic's output stays as it was).
            if (topic.desiredMirrorType() != MirrorType.ASYNC.id()
                || topic.effectiveMirrorType() != MirrorType.ASYNC.id() || topic.recoveryPending())
            {
                notes.add("Topic " + topic.topicName() + ": desired " + typeName(topic.desiredMirrorType())
                    + ", effective " + typeName(topic.effectiveMirrorType())
                    + (topic.recoveryPending() ? ", recovery pending" : ""));
            }
            if (topic.statusMessage() != null && !topic.statusMessage().isEmpty())
            {
                notes.add("Topic " + topic.topicName() + ": " + topic.statusMessage());
            }
            for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : topic.partitions())
            {
                rows.add(new String[] {mirror.mirrorName(), topic.topicName(),
                    Integer.toString(partition.partitionIndex()), MirrorPartitionState.nameOf(partition.state()),
                    offset(partition.sourceOffset()), offset(partition.destinationOffset()),
                    offset(partition.lag()), lastError(partition)});
            }
        }
        if (rows.size() == 1)
        {
            out.println(failedOnly ? "(no failing partitions)" : "(no mirrored partitions)");
        }
        else
        {
            printTable(rows, out);
        }
        notes.forEach(out::println);
    }

    /** The mirrors as one JSON document: every field of the answer, names for codes, null for "none". */
    static String json(final List<DescribeClusterMirrorsResponseData.MirrorDescription> mirrors)
    {
        final Json json = new Json().open('{').key("mirrors").open('[');
        for (final DescribeClusterMirrorsResponseData.MirrorDescription mirror : mirrors)
        {
            json.open('{').field("name", mirror.mirrorName())
                .field("error", mirror.errorCode() == Errors.NONE.code() ? null :
                    ClusterMirrorsCommand.errorName(mirror.errorCode()))
                .field("message", mirror.errorMessage())
                .field("sourceBootstrapServers", mirror.sourceBootstrapServers())
                .strings("include", mirror.includeTopics()).strings("exclude", mirror.excludeTopics())
                .strings("configs", mirror.mirrorConfigs())
                .key("topics").open('[');
            for (final DescribeClusterMirrorsResponseData.MirrorTopic topic : mirror.topics())
            {
                json.open('{').field("name", topic.topicName()).field("topicId", topic.topicId().toString())
                    .field("desiredMirrorType", typeName(topic.desiredMirrorType()))
                    .field("effectiveMirrorType", typeName(topic.effectiveMirrorType()))
                    .raw("recoveryPending", Boolean.toString(topic.recoveryPending()))
                    .field("status", topic.statusMessage())
                    .key("partitions").open('[');
                for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : topic.partitions())
                {
                    json.open('{').raw("partition", Integer.toString(partition.partitionIndex()))
                        .field("state", MirrorPartitionState.nameOf(partition.state()))
                        .raw("sourceOffset", number(partition.sourceOffset()))
                        .raw("destinationOffset", number(partition.destinationOffset()))
                        .raw("lag", number(partition.lag()))
                        .raw("leader", partition.leaderId() < 0 ? "null" : Integer.toString(partition.leaderId()))
                        .field("lastError", partition.lastErrorCode() == Errors.NONE.code() ? null :
                            ClusterMirrorsCommand.errorName(partition.lastErrorCode()))
                        .field("lastErrorMessage", partition.lastErrorMessage())
                        .raw("syncFailingForMs", number(partition.syncFailingForMs()))
                        .close('}');
                }
                json.close(']').close('}');
            }
            json.close(']').close('}');
        }
        return json.close(']').close('}').toString();
    }

    private static String number(final long value)
    {
        return value < 0 ? "null" : Long.toString(value);
    }

    private static String patterns(final List<String> patterns)
    {
        return patterns.isEmpty() ? "(none)" : String.join(",", patterns);
    }

    private static String offset(final long value)
    {
        return value < 0 ? "-" : Long.toString(value);
    }

    private static String typeName(final byte type)
    {
        return ClusterMirrorsCommand.typeName(type);
    }

    private static String lastError(final DescribeClusterMirrorsResponseData.MirrorPartition partition)
    {
        if (partition.lastErrorCode() == Errors.NONE.code())
        {
            return partition.lastErrorMessage() == null || partition.lastErrorMessage().isEmpty() ? "-"
                : partition.lastErrorMessage();
        }
        return ClusterMirrorsCommand.describeError(partition.lastErrorCode(), partition.lastErrorMessage());
    }

    /** Prints rows as left-aligned columns two spaces apart; the last column is not padded. */
    static void printTable(final List<String[]> rows, final PrintStream out)
    {
        if (rows.isEmpty())
        {
            return;
        }
        final int columns = rows.get(0).length;
        final int[] widths = new int[columns];
        for (final String[] row : rows)
        {
            for (int c = 0; c < columns; c++)
            {
                widths[c] = Math.max(widths[c], row[c].length());
            }
        }
        final StringBuilder line = new StringBuilder();
        for (final String[] row : rows)
        {
            line.setLength(0);
            for (int c = 0; c < columns; c++)
            {
                line.append(row[c]);
                if (c < columns - 1)
                {
                    line.append(" ".repeat(widths[c] - row[c].length() + 2));
                }
            }
            out.println(line);
        }
    }

    /** A compact JSON writer: objects and arrays opened and closed in order, commas where they belong. */
    private static final class Json
    {
        private final StringBuilder out = new StringBuilder();
        /** Whether the innermost open object or array has a member yet. */
        private final java.util.ArrayDeque<boolean[]> open = new java.util.ArrayDeque<>();
        private boolean afterKey;

        Json open(final char bracket)
        {
            separate();
            out.append(bracket);
            open.push(new boolean[1]);
            return this;
        }

        Json close(final char bracket)
        {
            open.pop();
            out.append(bracket);
            return this;
        }

        Json key(final String name)
        {
            separate();
            quote(name);
            out.append(':');
            afterKey = true;
            return this;
        }

        Json field(final String name, final String value)
        {
            key(name);
            if (value == null)
            {
                out.append("null");
            }
            else
            {
                quote(value);
            }
            afterKey = false;
            return this;
        }

        Json raw(final String name, final String literal)
        {
            key(name);
            out.append(literal);
            afterKey = false;
            return this;
        }

        Json strings(final String name, final List<String> values)
        {
            key(name).open('[');
            for (final String value : values)
            {
                separate();
                quote(value);
            }
            return close(']');
        }

        private void separate()
        {
            if (afterKey)
            {
                afterKey = false;
                return;
            }
            final boolean[] hasMember = open.peek();
            if (hasMember != null)
            {
                if (hasMember[0])
                {
                    out.append(',');
                }
                hasMember[0] = true;
            }
        }

        private void quote(final String value)
        {
            out.append('"');
            for (int i = 0; i < value.length(); i++)
            {
                final char c = value.charAt(i);
                switch (c)
                {
                    case '"' -> out.append("\\\"");
                    case '\\' -> out.append("\\\\");
                    case '\n' -> out.append("\\n");
                    case '\r' -> out.append("\\r");
                    case '\t' -> out.append("\\t");
                    default ->
                    {
                        if (c < 0x20)
                        {
                            out.append(String.format("\\u%04x", (int) c));
                        }
                        else
                        {
                            out.append(c);
                        }
                    }
                }
            }
            out.append('"');
        }

        @Override
        public String toString()
        {
            return out.toString();
        }
    }
}

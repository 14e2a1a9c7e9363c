package io.syncmirror.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;

import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.FakeMirrorBroker;
import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

/** The sync mirroring options of kafka-cluster-mirrors against broker stand-ins for the destination and source. */
@Timeout(30)
class ClusterMirrorsSyncCommandTest
{
    private static final String PENDING = "promotion pending lag drain: partition 0 lags by 20";

    /** One run of the command: its exit code and what it printed. */
    private record Result(int exit, String out, String err)
    {
    }

    private static Result run(final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit = ClusterMirrorsCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Result(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static int closedPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    private static String address(final FakeMirrorBroker broker)
    {
        return "127.0.0.1:" + broker.port();
    }

    /** What a sync-capable source answers: Fetch up to v20 and mirror.sync.version finalized at 1. */
    static ApiVersionsResponseData compatibleSource()
    {
        return source((short)20, (short)1);
    }

    /** An ApiVersions answer: Fetch up to {@code fetchMax}, mirror.sync.version at {@code level} (-1: absent). */
    static ApiVersionsResponseData source(final short fetchMax, final short level)
    {
        final ApiVersionsResponseData data = new ApiVersionsResponseData();
        data.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.FETCH.id)
            .setMinVersion((short)4).setMaxVersion(fetchMax));
        data.apiKeys().add(new ApiVersionsResponseData.ApiVersion().setApiKey(ApiKeys.API_VERSIONS.id)
            .setMinVersion((short)0).setMaxVersion((short)4));
        if (level >= 0)
        {
            data.supportedFeatures().add(new ApiVersionsResponseData.SupportedFeatureKey()
                .setName(SourceCompatibilityProbe.SYNC_FEATURE).setMinVersion((short)0).setMaxVersion((short)1));
            data.finalizedFeatures().add(new ApiVersionsResponseData.FinalizedFeatureKey()
                .setName(SourceCompatibilityProbe.SYNC_FEATURE).setMinVersionLevel(level).setMaxVersionLevel(level));
        }
        return data;
    }

    /**
     * A destination stand-in: DescribeClusterMirrors names mirror "east" with source {@code sourceServers}; every
     * AddTopicsToMirror and AlterMirrorTopicType topic succeeds, with {@link #PENDING} as the note of topic "lagging".
     */
    private static FakeMirrorBroker destination(final String sourceServers) throws IOException
    {
        return new FakeMirrorBroker((header, request, socket, out) ->
        {
            final ApiMessage response;
            switch (header.apiKey())
            {
                case DESCRIBE_CLUSTER_MIRRORS:
                    response = new DescribeClusterMirrorsResponseData().setMirrors(List.of(
                        new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("east")
                            .setSourceBootstrapServers(sourceServers)));
                    break;
                case ADD_TOPICS_TO_MIRROR:
                    final List<String> added = new ArrayList<>();
                    ((AddTopicsToMirrorRequestData)request).topics().forEach(t -> added.add(t.topicName()));
                    response = new AddTopicsToMirrorResponseData().setTopics(results(added,
                        (topic, note) -> new AddTopicsToMirrorResponseData.TopicResult().setTopicName(topic)
                            .setErrorMessage(note)));
                    break;
                case ALTER_MIRROR_TOPIC_TYPE:
                    final List<String> altered = new ArrayList<>();
                    ((AlterMirrorTopicTypeRequestData)request).topics().forEach(t -> altered.add(t.topicName()));
                    response = new AlterMirrorTopicTypeResponseData().setTopics(results(altered,
                        (topic, note) -> new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName(topic)
                            .setErrorMessage(note)));
                    break;
                default:
                    response = header.apiKey().newResponseData();
            }
            FakeMirrorBroker.reply(out, header, response);
        });
    }

    /** One successful result per topic, built by {@code result} from the topic and its note, if any. */
    private static <T> List<T> results(final List<String> topics, final BiFunction<String, String, T> result)
    {
        final List<T> results = new ArrayList<>();
        for (final String topic : topics)
        {
            results.add(result.apply(topic, "lagging".equals(topic) ? PENDING : null));
        }
        return results;
    }

    /** The requests of {@code broker} that change state: everything but DescribeClusterMirrors. */
    private static List<ApiMessage> stateChanging(final FakeMirrorBroker broker)
    {
        return broker.requests().stream().filter(r -> r.apiKey() != MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS.id())
            .toList();
    }

    @Test
    @DisplayName("SU-03 --help lists --alter, --sync, --async and --release-sync")
    void shouldListTheSyncOptionsInHelp()
    {
        final Result result = run("--help");
        assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit());
        for (final String flag : new String[] {"--alter", "--sync", "--async", "--release-sync"})
        {
            assertTrue(result.out().lines().anyMatch(l -> l.startsWith("  " + flag + " ")), flag + " in\n"
                + result.out());
        }
        assertTrue(result.out().contains("SOURCE"), result.out());
    }

    static Stream<Arguments> badSyncArguments()
    {
        return Stream.of(
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--remove", "--mirror", "m", "--topics", "a",
                "--sync"}, "--sync does not apply to --remove"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--alter", "--mirror", "m", "--topics", "a",
                "--sync", "--async"}, "--alter needs exactly one of --sync and --async"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--alter", "--mirror", "m", "--topics", "a"},
                "--alter needs exactly one of --sync and --async"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--alter", "--mirror", "m", "--sync"},
                "--topics T1,T2 is required"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--alter", "--topics", "a", "--sync"},
                "--mirror NAME is required"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--add", "--mirror", "m", "--topics", "a",
                "--async"}, "--async does not apply to --add"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--release-sync"}, "--mirror NAME is required"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--release-sync", "--mirror", "m", "--sync"},
                "--sync does not apply to --release-sync"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--release-sync", "--mirror", "m",
                "--topic-regex", "a.*"}, "--topic-regex does not apply to --release-sync"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--alter", "--release-sync", "--mirror", "m"},
                "only one action at a time"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--alter", "--mirror", "m", "--topics", "a,,b",
                "--async"}, "'' is not a valid topic name"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--list", "--sync"},
                "--sync does not apply to --list"));
    }

    @ParameterizedTest
    @MethodSource("badSyncArguments")
    @DisplayName("SU-03 bad combinations of the sync options print one line naming the problem and exit 2")
    void shouldRejectBadSyncCombinations(final String[] args, final String expected)
    {
        final Result result = run(args);
        assertEquals(ClusterMirrorsCommand.EXIT_USAGE, result.exit(), result.err());
        assertEquals("", result.out());
        assertEquals(1, result.err().strip().lines().count(), result.err());
        assertTrue(result.err().contains(expected), "expected '" + expected + "' in: " + result.err());
    }

    @Test
    @DisplayName("SU-03 SU-09 --alter --sync probes a compatible source, sends SYNC for each topic and warns that a "
        + "lagging topic's promotion is pending")
    void shouldAlterToSyncAndWarnOfAPendingPromotion() throws Exception
    {
        try (FakeMirrorBroker source = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults())
                .answerApiVersions(compatibleSource());
             FakeMirrorBroker destination = destination(address(source)))
        {
            final Result result = run("--bootstrap-server", address(destination), "--alter", "--mirror", "east",
                "--topics", "caught-up,lagging", "--sync");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertEquals(1, source.apiVersionsRequests());
            final List<ApiMessage> sent = stateChanging(destination);
            assertEquals(1, sent.size(), sent.toString());
            final AlterMirrorTopicTypeRequestData alter = assertInstanceOf(AlterMirrorTopicTypeRequestData.class,
                sent.get(0));
            assertEquals("east", alter.mirrorName());
            assertEquals(List.of("caught-up", "lagging"), alter.topics().stream()
                .map(AlterMirrorTopicTypeRequestData.AlterMirrorTopic::topicName).toList());
            assertTrue(alter.topics().stream().allMatch(t -> t.mirrorType() == MirrorType.SYNC.id()));
            assertEquals(List.of(List.of("east")), destination.requests().stream()
                .filter(r -> r instanceof DescribeClusterMirrorsRequestData)
                .map(r -> ((DescribeClusterMirrorsRequestData)r).mirrorNames()).toList());
            assertTrue(result.out().contains("Set the mirror type of topic 'caught-up' in mirror 'east' to SYNC."),
                result.out());
            assertTrue(result.out().contains("topic 'lagging' in mirror 'east' to SYNC."), result.out());
            final List<String> warnings = result.err().lines().filter(l -> l.startsWith("WARNING:")).toList();
            assertEquals(1, warnings.size(), result.err());
            assertTrue(warnings.get(0).contains("'lagging'") && warnings.get(0).contains("pending")
                && warnings.get(0).contains(PENDING), warnings.get(0));
        }
    }

    @Test
    @DisplayName("SU-03 a pending note without the word pending is still reported as a pending promotion")
    void shouldSayPendingForAnyNoteOnAPromotion() throws Exception
    {
        final String closedSource = "127.0.0.1:" + closedPort();
        try (FakeMirrorBroker destination = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, header.apiKey() == MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS
                ? new DescribeClusterMirrorsResponseData().setMirrors(List.of(
                    new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("east")
                        .setSourceBootstrapServers(closedSource)))
                : new AddTopicsToMirrorResponseData().setTopics(List.of(
                    new AddTopicsToMirrorResponseData.TopicResult().setTopicName("t").setErrorMessage("lag is 7"))))))
        {
            // The source the destination names is closed: the probe warns and the command goes on.
            final Result result = run("--bootstrap-server", address(destination), "--add", "--mirror", "east",
                "--topics", "t", "--sync", "--command-timeout-ms", "2000");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertTrue(result.err().contains("WARNING: topic 't': promotion to SYNC is pending until the lag is "
                + "zero: lag is 7"), result.err());
            assertEquals(1, stateChanging(destination).size());
        }
    }

    @Test
    @DisplayName("SU-03 SU-09 --add --sync probes the source, then sends AddTopicsToMirror with mirror type SYNC")
    void shouldAddTopicsAsSync() throws Exception
    {
        try (FakeMirrorBroker source = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults())
                .answerApiVersions(compatibleSource());
             FakeMirrorBroker destination = destination(address(source)))
        {
            final Result result = run("--bootstrap-server", address(destination), "--add", "--mirror", "east",
                "--topics", "orders", "--sync");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertEquals(1, source.apiVersionsRequests());
            final List<ApiMessage> sent = stateChanging(destination);
            assertEquals(1, sent.size());
            final AddTopicsToMirrorRequestData add = assertInstanceOf(AddTopicsToMirrorRequestData.class, sent.get(0));
            assertEquals(MirrorType.SYNC.id(), add.topics().get(0).mirrorType());
            assertEquals("east", add.topics().get(0).mirrorName());
            assertTrue(result.out().contains("Added topic 'orders' to mirror 'east' as SYNC."), result.out());
            assertEquals("", result.err());
        }
    }

    @Test
    @DisplayName("SU-03 --add without --sync and --alter --async send ASYNC and run no probe")
    void shouldSendAsyncWithoutProbing() throws Exception
    {
        try (FakeMirrorBroker source = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults())
                .answerApiVersions(compatibleSource());
             FakeMirrorBroker destination = destination(address(source)))
        {
            final Result add = run("--bootstrap-server", address(destination), "--add", "--mirror", "east",
                "--topic-regex", "orders-.*");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, add.exit(), add.err());
            final Result alter = run("--bootstrap-server", address(destination), "--alter", "--mirror", "east",
                "--topics", "orders", "--async");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, alter.exit(), alter.err());
            assertTrue(alter.out().contains("Set the mirror type of topic 'orders' in mirror 'east' to ASYNC."),
                alter.out());
            assertEquals(0, source.apiVersionsRequests());
            assertTrue(destination.requests().stream().noneMatch(r -> r instanceof DescribeClusterMirrorsRequestData));
            final AddTopicsToMirrorRequestData addRequest = (AddTopicsToMirrorRequestData)destination.requests().get(0);
            assertEquals(MirrorType.ASYNC.id(), addRequest.topicPatterns().get(0).mirrorType());
            final AlterMirrorTopicTypeRequestData alterRequest = (AlterMirrorTopicTypeRequestData)destination
                .requests().get(1);
            assertEquals(MirrorType.ASYNC.id(), alterRequest.topics().get(0).mirrorType());
        }
    }

    static Stream<Arguments> incompatibleSources()
    {
        return Stream.of(
            Arguments.of(source((short)18, (short)1), "Fetch v20 is not served (highest: v18)", null),
            Arguments.of(source((short)20, (short)-1), "feature mirror.sync.version is not finalized at level 1",
                "Fetch"),
            Arguments.of(source((short)20, (short)0), "(level 0)", "Fetch"),
            Arguments.of(source((short)17, (short)0), "Fetch v20 is not served (highest: v17) and feature "
                + "mirror.sync.version is not finalized", null));
    }

    @ParameterizedTest
    @MethodSource("incompatibleSources")
    @DisplayName("SU-09 SI-17 an incompatible source fails --alter --sync with an error naming what is missing, "
        + "exit 1, and no AlterMirrorTopicType is sent")
    void shouldRefuseAnIncompatibleSourceAndChangeNothing(final ApiVersionsResponseData answer, final String missing,
        final String notMentioned) throws Exception
    {
        try (FakeMirrorBroker source = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults())
                .answerApiVersions(answer);
             FakeMirrorBroker destination = destination(address(source)))
        {
            final Result result = run("--bootstrap-server", address(destination), "--alter", "--mirror", "east",
                "--topics", "orders", "--sync");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit(), result.err());
            assertEquals(1, source.apiVersionsRequests());
            assertTrue(stateChanging(destination).isEmpty(), destination.requests().toString());
            assertEquals(1, result.err().strip().lines().count(), result.err());
            assertTrue(result.err().startsWith("Error: the source cluster of mirror 'east' (" + address(source)
                + ") cannot mirror synchronously: "), result.err());
            assertTrue(result.err().contains(missing), result.err());
            if (notMentioned != null)
            {
                assertFalse(result.err().contains(notMentioned), result.err());
            }
            assertTrue(result.err().contains("no mirror type was changed"), result.err());
            assertEquals("", result.out());
        }
    }

    @Test
    @DisplayName("SU-09 SI-17 an incompatible source fails --add --sync with exit 1 and no AddTopicsToMirror is sent")
    void shouldRefuseAnIncompatibleSourceForAdd() throws Exception
    {
        try (FakeMirrorBroker source = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults())
                .answerApiVersions(source((short)20, (short)-1));
             FakeMirrorBroker destination = destination(address(source)))
        {
            final Result result = run("--bootstrap-server", address(destination), "--add", "--mirror", "east",
                "--topics", "orders", "--sync");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit(), result.err());
            assertTrue(result.err().contains("mirror.sync.version"), result.err());
            assertTrue(stateChanging(destination).isEmpty(), destination.requests().toString());
        }
    }

    @Test
    @DisplayName("SU-09 an unreachable source gives a WARNING line on stderr and the AlterMirrorTopicType is sent")
    void shouldWarnAndProceedWhenTheSourceIsUnreachable() throws Exception
    {
        final String closed = "127.0.0.1:" + closedPort();
        try (FakeMirrorBroker destination = destination(closed))
        {
            final Result result = run("--bootstrap-server", address(destination), "--alter", "--mirror", "east",
                "--topics", "orders", "--sync", "--command-timeout-ms", "2000");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            final List<String> warnings = result.err().lines().filter(l -> l.startsWith("WARNING:")).toList();
            assertEquals(1, warnings.size(), result.err());
            assertTrue(warnings.get(0).contains("could not probe the source cluster of mirror 'east' (" + closed
                + ")") && warnings.get(0).contains("proceeding"), warnings.get(0));
            assertEquals(1, stateChanging(destination).size());
            assertTrue(result.out().contains("to SYNC."), result.out());
        }
    }

    @Test
    @DisplayName("SU-09 a source that accepts the connection but does not speak ApiVersions counts as unreachable")
    void shouldTreatASilentSourceAsUnreachable() throws Exception
    {
        // Without an ApiVersions answer the stand-in closes the connection.
        try (FakeMirrorBroker source = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults());
             FakeMirrorBroker destination = destination(address(source)))
        {
            final Result result = run("--bootstrap-server", address(destination), "--alter", "--mirror", "east",
                "--topics", "orders", "--sync");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertTrue(result.err().startsWith("WARNING: could not probe"), result.err());
            assertEquals(1, stateChanging(destination).size());
        }
    }

    @Test
    @DisplayName("SU-09 SI-17 a mirror the destination does not know fails --alter --sync with exit 1 and sends "
        + "nothing that changes state")
    void shouldFailWhenTheMirrorIsUnknown() throws Exception
    {
        try (FakeMirrorBroker destination = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults()))
        {
            final Result result = run("--bootstrap-server", address(destination), "--alter", "--mirror", "west",
                "--topics", "orders", "--sync");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit(), result.err());
            assertTrue(result.err().contains("cluster mirror 'west' was not found"), result.err());
            assertTrue(stateChanging(destination).isEmpty());
        }
    }

    @Test
    @DisplayName("SU-03 --alter reports a per-topic error by name, including a mirroring code, and exits 1")
    void shouldReportAnAlterError() throws Exception
    {
        try (FakeMirrorBroker destination = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, new AlterMirrorTopicTypeResponseData().setTopics(List.of(
                new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName("a"),
                new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName("b")
                    .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()),
                new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName("c")
                    .setErrorCode(MirrorError.MIRROR_SYNC_VERSION_MISMATCH.code()))))))
        {
            final Result result = run("--bootstrap-server", address(destination), "--alter", "--mirror", "east",
                "--topics", "a,b,c", "--async");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertTrue(result.out().contains("topic 'a' in mirror 'east' to ASYNC."), result.out());
            assertTrue(result.err().contains("topic 'b': UNKNOWN_TOPIC_OR_PARTITION"), result.err());
            assertTrue(result.err().contains("topic 'c': MIRROR_SYNC_VERSION_MISMATCH"), result.err());
        }
    }

    @Test
    @DisplayName("--release-sync sends UnregisterMirrorSyncTopic with Release set, the named topics or none for all")
    void shouldReleaseSyncRegistrations() throws Exception
    {
        try (FakeMirrorBroker source = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults()))
        {
            final Result some = run("--bootstrap-server", address(source), "--release-sync", "--mirror", "east",
                "--topics", "orders-1,orders-2");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, some.exit(), some.err());
            final Result all = run("--bootstrap-server", address(source), "--release-sync", "--mirror", "east");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, all.exit(), all.err());
            assertEquals(2, source.requests().size());
            final UnregisterMirrorSyncTopicRequestData first = (UnregisterMirrorSyncTopicRequestData)source.requests()
                .get(0);
            assertTrue(first.release());
            assertEquals("east", first.mirrorName());
            assertEquals(List.of("orders-1", "orders-2"), first.topics().stream()
                .map(UnregisterMirrorSyncTopicRequestData.TopicState::topicName).toList());
            final UnregisterMirrorSyncTopicRequestData second = (UnregisterMirrorSyncTopicRequestData)source
                .requests().get(1);
            assertTrue(second.release());
            assertTrue(second.topics().isEmpty());
            assertTrue(some.out().contains("Released the sync registration of topic(s) orders-1, orders-2 of mirror "
                + "'east'"), some.out());
            assertTrue(all.out().contains("Released the sync registration of every topic of mirror 'east'"),
                all.out());
            assertEquals(0, source.apiVersionsRequests());
        }
    }

    @Test
    @DisplayName("--release-sync reports the source's error by name and exits 1")
    void shouldReportAReleaseError() throws Exception
    {
        try (FakeMirrorBroker source = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, new UnregisterMirrorSyncTopicResponseData()
                .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code()).setErrorMessage("needs ALTER"))))
        {
            final Result result = run("--bootstrap-server", address(source), "--release-sync", "--mirror", "east");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertTrue(result.err().contains("CLUSTER_AUTHORIZATION_FAILED: needs ALTER"), result.err());
        }
    }
}

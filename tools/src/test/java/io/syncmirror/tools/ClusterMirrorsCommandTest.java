package io.syncmirror.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DeleteClusterMirrorRequestData;
import io.syncmirror.protocol.DeleteClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.FakeMirrorBroker;
import io.syncmirror.protocol.MirrorApiKeys;
import io.syncmirror.protocol.RemoveTopicsFromMirrorRequestData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorResponseData;

@Timeout(30)
class ClusterMirrorsCommandTest
{
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

    /** A loopback port nothing listens on. */
    private static int closedPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    private static String bootstrap(final FakeMirrorBroker broker)
    {
        return "127.0.0.1:" + broker.port();
    }

    /** A broker that answers every request with {@code response}. */
    private static FakeMirrorBroker answering(final ApiMessage response) throws IOException
    {
        return new FakeMirrorBroker((header, request, socket, out) -> FakeMirrorBroker.reply(out, header, response));
    }

    private static void assertNoStackTrace(final Result result)
    {
        assertFalse(result.err().contains("\tat "), result.err());
        assertFalse(result.err().contains("Exception:") && result.err().contains("\n\t"), result.err());
    }

    private static void assertOneLine(final String text)
    {
        assertEquals(1, text.strip().lines().count(), text);
    }

    @Test
    @DisplayName("AM-18 --help lists every option with a description and exits 0 without a bootstrap server")
    void shouldListEveryOptionInHelp()
    {
        final Result result = run("--help");
        assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit());
        assertEquals("", result.err());
        for (final ClusterMirrorsCommand.Option option : ClusterMirrorsCommand.Option.values())
        {
            final String line = result.out().lines().filter(l -> l.trim().startsWith(option.flag + " ")
                || l.trim().equals(option.flag)).findFirst().orElse(null);
            assertTrue(line != null && line.contains(option.description), option.flag + " missing from\n"
                + result.out());
        }
        for (final String flag : new String[] {"--bootstrap-server", "--create", "--add", "--remove", "--stop",
            "--describe", "--list", "--delete", "--help", "--mirror", "--source-bootstrap-server", "--source-config",
            "--source-config-file", "--include", "--exclude", "--topics", "--topic-regex", "--command-timeout-ms"})
        {
            assertTrue(result.out().contains("  " + flag + " "), flag);
        }
    }

    static Stream<Arguments> badArguments()
    {
        return Stream.of(
            Arguments.of(new String[] {}, "exactly one action"),
            Arguments.of(new String[] {"--list"}, "--bootstrap-server HOST:PORT is required"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--delete", "--mirror", "m"},
                "only one action at a time"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--remove", "--stop", "--mirror", "m"},
                "only one action at a time"),
            Arguments.of(new String[] {"--bootstrap-server", "broker", "--list"}, "expected HOST:PORT"),
            Arguments.of(new String[] {"--bootstrap-server", "b:99999", "--list"}, "1 to 65535"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--bogus"}, "unknown option --bogus"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--list", "--command-config", "/no/such/file"},
                "cannot read --command-config '/no/such/file'"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--list", "--source-command-config", "f"},
                "--source-command-config does not apply to --list"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--list", "extra"}, "unexpected argument 'extra'"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--list=yes"}, "--list takes no value"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--delete", "--mirror"}, "--mirror needs a value"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--delete", "--mirror", "a", "--mirror", "b"},
                "--mirror was given more than once"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--list", "--command-timeout-ms", "0"},
                "--command-timeout-ms must be a positive number"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--list", "--command-timeout-ms", "soon"},
                "--command-timeout-ms must be a positive number"),
            // --create
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--source-bootstrap-server", "s:1"},
                "--mirror NAME is required"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--mirror", "m"},
                "--source-bootstrap-server HOST:PORT is required"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--mirror", "m",
                "--source-bootstrap-server", "s"}, "--source-bootstrap-server: expected HOST:PORT"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--mirror", " ",
                "--source-bootstrap-server", "s:1"}, "--mirror must not be empty"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--mirror", "m",
                "--source-bootstrap-server", "s:1", "--include", "orders-("}, "not a valid regular expression"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--mirror", "m",
                "--source-bootstrap-server", "s:1", "--exclude", "["}, "--exclude '[' is not a valid regular"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--mirror", "m",
                "--source-bootstrap-server", "s:1", "--source-config", "novalue"}, "must be KEY=VALUE"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--mirror", "m",
                "--source-bootstrap-server", "s:1", "--source-config-file", "/nonexistent/source.properties"},
                "cannot read --source-config-file '/nonexistent/source.properties'"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--create", "--mirror", "m",
                "--source-bootstrap-server", "s:1", "--topics", "a"}, "--topics does not apply to --create"),
            // --add
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--add", "--mirror", "m"},
                "--add needs exactly one of --topics and --topic-regex"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--add", "--mirror", "m", "--topics", "a",
                "--topic-regex", "a.*"}, "--add needs exactly one of --topics and --topic-regex"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--add", "--topics", "a"},
                "--mirror NAME is required"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--add", "--mirror", "m", "--topics", "a,,b"},
                "'' is not a valid topic name"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--add", "--mirror", "m", "--topics", "a b"},
                "'a b' is not a valid topic name"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--add", "--mirror", "m", "--topic-regex", "*"},
                "--topic-regex '*' is not a valid regular expression"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--add", "--mirror", "m", "--topics", "a",
                "--include", "x"}, "--include does not apply to --add"),
            // --remove / --stop
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--remove", "--mirror", "m"},
                "--topics T1,T2 is required"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--stop", "--topics", "a"},
                "--mirror NAME is required"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--stop", "--mirror", "m", "--topics", "a",
                "--topic-regex", "a"}, "--topic-regex does not apply to --remove"),
            // --describe, --list, --delete
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--describe", "--topics", "a"},
                "--topics does not apply to --describe"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--list", "--mirror", "m"},
                "--mirror does not apply to --list"),
            Arguments.of(new String[] {"--bootstrap-server", "b:1", "--delete"}, "--mirror NAME is required"));
    }

    @ParameterizedTest
    @MethodSource("badArguments")
    @DisplayName("AM-18 bad, missing or conflicting arguments print one line naming the problem and exit 2")
    void shouldRejectBadArgumentsWithOneLineAndExitTwo(final String[] args, final String expected)
    {
        final Result result = run(args);
        assertEquals(ClusterMirrorsCommand.EXIT_USAGE, result.exit(), result.err());
        assertEquals("", result.out());
        assertOneLine(result.err());
        assertTrue(result.err().startsWith("Error: "), result.err());
        assertTrue(result.err().contains(expected), "expected '" + expected + "' in: " + result.err());
        assertTrue(result.err().strip().endsWith("(see --help)"), result.err());
    }

    @Test
    @DisplayName("AM-18 a --command-config the command cannot honour is refused before anything is sent: an "
        + "unknown security.protocol or an unreadable truststore exits 2, a SASL mechanism it does not serve (GSSAPI) "
        + "exits 1 unsent")
    void shouldRefuseCommandConfigsItCannotHonour(@TempDir final Path dir) throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults()))
        {
            final Path bogus = Files.writeString(dir.resolve("bogus.properties"), "security.protocol=TLS\n");
            Result result = run("--bootstrap-server", bootstrap(broker), "--list", "--command-config",
                bogus.toString());
            assertEquals(ClusterMirrorsCommand.EXIT_USAGE, result.exit(), result.err());
            assertTrue(result.err().contains("security.protocol"), result.err());

            final Path noStore = Files.writeString(dir.resolve("ssl.properties"),
                "security.protocol=SSL\nssl.truststore.location=/no/such/store.p12\nssl.truststore.password=x\n");
            result = run("--bootstrap-server", bootstrap(broker), "--list", "--command-config", noStore.toString());
            assertEquals(ClusterMirrorsCommand.EXIT_USAGE, result.exit(), result.err());
            assertOneLine(result.err());

            final Path sasl = Files.writeString(dir.resolve("sasl.properties"), "security.protocol=SASL_SSL\n");
            result = run("--bootstrap-server", bootstrap(broker), "--list", "--command-config", sasl.toString());
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit(), result.err());
            assertTrue(result.err().contains("sasl.mechanism=GSSAPI is not served"), result.err());
            assertTrue(broker.requests().isEmpty(), "nothing sent in plaintext");
        }
    }

    @Test
    @DisplayName("AM-18 bad arguments are rejected before anything is sent")
    void shouldSendNothingForBadArguments() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker(FakeMirrorBroker.answeringDefaults()))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--add", "--mirror", "m",
                "--topic-regex", "(");
            assertEquals(ClusterMirrorsCommand.EXIT_USAGE, result.exit());
            assertTrue(broker.requests().isEmpty());
        }
    }

    @Test
    @DisplayName("AM-18 an unreachable bootstrap server gives a clear one-line error, exit 1 and no stack trace")
    void shouldReportAnUnreachableServerClearly() throws Exception
    {
        final int port = closedPort();
        final long startNs = System.nanoTime();
        final Result result = run("--bootstrap-server", "127.0.0.1:" + port, "--list");
        assertTrue(System.nanoTime() - startNs < TimeUnit.SECONDS.toNanos(10));
        assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
        assertEquals("", result.out());
        assertOneLine(result.err());
        assertTrue(result.err().startsWith("Error: Cannot connect to 127.0.0.1:" + port), result.err());
        assertNoStackTrace(result);
    }

    @Test
    @DisplayName("AM-18 the command tries each bootstrap server in turn and uses the first that answers")
    void shouldFallBackToTheNextBootstrapServer() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new DescribeClusterMirrorsResponseData()))
        {
            final Result result = run("--bootstrap-server", "127.0.0.1:" + closedPort() + "," + bootstrap(broker),
                "--list");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertEquals(1, broker.requests().size());
        }
    }

    @Test
    @DisplayName("AM-18 a broker that drops the connection gives a clear error naming it, exit 1")
    void shouldReportADroppedConnectionClearly() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) -> socket.close()))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--delete", "--mirror", "m");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertOneLine(result.err());
            assertTrue(result.err().contains(bootstrap(broker)), result.err());
            assertTrue(result.err().contains("DeleteClusterMirror"), result.err());
            assertNoStackTrace(result);
        }
    }

    @Test
    @DisplayName("AM-18 --create sends the mirror, its source, configs from the file and the command line, and "
        + "its filters")
    void shouldCreateAMirror(@TempDir final Path dir) throws Exception
    {
        final Path file = dir.resolve("source.properties");
        Files.writeString(file, "security.protocol=SASL_SSL\nrequest.timeout.ms=1000\n");
        try (FakeMirrorBroker broker = answering(new CreateClusterMirrorResponseData()))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--create", "--mirror", "east",
                "--source-bootstrap-server", "src-1:9092,src-2:9092", "--source-config-file", file.toString(),
                "--source-config", "request.timeout.ms=5000", "--source-config", "client.id=", "--include",
                "orders-.*", "--include", "payments", "--exclude", "orders-tmp-.*");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertEquals("Created cluster mirror 'east' from src-1:9092,src-2:9092.\n", result.out());
            assertEquals("", result.err());

            assertEquals(MirrorApiKeys.CREATE_CLUSTER_MIRROR, broker.headers().get(0).apiKey());
            assertEquals(ClusterMirrorsCommand.CLIENT_ID, broker.headers().get(0).clientId());
            final CreateClusterMirrorRequestData sent = (CreateClusterMirrorRequestData)broker.requests().get(0);
            assertEquals("east", sent.mirrorName());
            assertEquals("src-1:9092,src-2:9092", sent.sourceBootstrapServers());
            final List<String> configs = new ArrayList<>();
            sent.sourceConfigs().forEach(c -> configs.add(c.name() + "=" + c.value()));
            assertEquals(List.of("client.id=", "request.timeout.ms=5000", "security.protocol=SASL_SSL"), configs);
            assertEquals(List.of("orders-.*", "payments"), sent.includeTopics());
            assertEquals(List.of("orders-tmp-.*"), sent.excludeTopics());
        }
    }

    @Test
    @DisplayName("AM-18 --create reports the broker's error by name with its message and exits 1")
    void shouldReportACreateError() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new CreateClusterMirrorResponseData()
            .setErrorCode(Errors.INVALID_CONFIG.code()).setErrorMessage("unknown source config 'bogus'")))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--create", "--mirror", "east",
                "--source-bootstrap-server", "src:9092");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertEquals("", result.out());
            assertEquals("Error: Failed to create cluster mirror 'east': INVALID_CONFIG: unknown source config "
                + "'bogus'\n", result.err());
        }
    }

    @Test
    @DisplayName("AM-18 --add --topics sends one topic entry per topic and reports each topic's result")
    void shouldAddTopicsAndReportEachResult() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new AddTopicsToMirrorResponseData().setTopics(List.of(
            new AddTopicsToMirrorResponseData.TopicResult().setTopicName("orders"),
            new AddTopicsToMirrorResponseData.TopicResult().setTopicName("payments")
                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                .setErrorMessage("payments does not exist on the source")))))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--add", "--mirror", "east",
                "--topics", "orders, payments,orders");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertEquals("Added topic 'orders' to mirror 'east'.\n", result.out());
            assertEquals("Error: topic 'payments': UNKNOWN_TOPIC_OR_PARTITION: payments does not exist on the "
                + "source\n", result.err());

            final AddTopicsToMirrorRequestData sent = (AddTopicsToMirrorRequestData)broker.requests().get(0);
            assertEquals(2, sent.topics().size(), "duplicates dropped");
            assertEquals("orders", sent.topics().get(0).topicName());
            assertEquals("payments", sent.topics().get(1).topicName());
            for (final AddTopicsToMirrorRequestData.TopicState topic : sent.topics())
            {
                assertEquals("east", topic.mirrorName());
                assertEquals(Uuid.ZERO_UUID, topic.topicId());
                assertEquals(0, topic.mirrorType());
            }
            assertTrue(sent.topicPatterns().isEmpty());
        }
    }

    @Test
    @DisplayName("AM-18 --add --topic-regex sends the regex as a TopicPattern and no topic entries")
    void shouldAddTopicsByRegex() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new AddTopicsToMirrorResponseData()))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--add", "--mirror", "east",
                "--topic-regex", "orders-.*");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertTrue(result.out().startsWith("Added topic pattern 'orders-.*' to mirror 'east'"), result.out());

            final AddTopicsToMirrorRequestData sent = (AddTopicsToMirrorRequestData)broker.requests().get(0);
            assertTrue(sent.topics().isEmpty());
            assertEquals(1, sent.topicPatterns().size());
            assertEquals("orders-.*", sent.topicPatterns().get(0).pattern());
            assertEquals("east", sent.topicPatterns().get(0).mirrorName());
        }
    }

    @Test
    @DisplayName("AM-18 --add --topic-regex reports the topics the broker matched, one line each")
    void shouldReportTheTopicsARegexMatched() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new AddTopicsToMirrorResponseData().setTopics(List.of(
            new AddTopicsToMirrorResponseData.TopicResult().setTopicName("orders-1"),
            new AddTopicsToMirrorResponseData.TopicResult().setTopicName("orders-2")))))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--add", "--mirror", "east",
                "--topic-regex", "orders-.*");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertEquals("Added topic 'orders-1' to mirror 'east'.\nAdded topic 'orders-2' to mirror 'east'.\n",
                result.out());
        }
    }

    @Test
    @DisplayName("AM-18 --add --topic-regex reports an error for the regex itself as a topic pattern error, exit 1")
    void shouldReportARegexError() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new AddTopicsToMirrorResponseData().setTopics(List.of(
            new AddTopicsToMirrorResponseData.TopicResult().setTopicName("orders-.*")
                .setErrorCode(Errors.NOT_CONTROLLER.code()).setErrorMessage("moved")))))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--add", "--mirror", "east",
                "--topic-regex", "orders-.*");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertEquals("Error: topic pattern 'orders-.*': NOT_CONTROLLER: moved\n", result.err());
        }
    }

    @Test
    @DisplayName("AM-18 --remove and its alias --stop send RemoveTopicsFromMirror for the named topics")
    void shouldRemoveTopics() throws Exception
    {
        for (final String flag : new String[] {"--remove", "--stop"})
        {
            try (FakeMirrorBroker broker = answering(new RemoveTopicsFromMirrorResponseData().setTopics(List.of(
                new RemoveTopicsFromMirrorResponseData.TopicResult().setTopicName("orders")))))
            {
                final Result result = run("--bootstrap-server", bootstrap(broker), flag, "--mirror", "east",
                    "--topics", "orders");
                assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
                assertTrue(result.out().startsWith("Removed topic 'orders' from mirror 'east'"), result.out());
                assertEquals(MirrorApiKeys.REMOVE_TOPICS_FROM_MIRROR, broker.headers().get(0).apiKey());
                final RemoveTopicsFromMirrorRequestData sent =
                    (RemoveTopicsFromMirrorRequestData)broker.requests().get(0);
                assertEquals(1, sent.topics().size());
                assertEquals("orders", sent.topics().get(0).topicName());
                assertEquals("east", sent.topics().get(0).mirrorName());
            }
        }
    }

    @Test
    @DisplayName("AM-18 --remove reports a per-topic error by name, including a mirroring error code, exit 1")
    void shouldReportARemoveErrorWithAMirroringCode() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new RemoveTopicsFromMirrorResponseData().setTopics(List.of(
            new RemoveTopicsFromMirrorResponseData.TopicResult().setTopicName("orders")
                .setErrorCode(MirrorError.INVALID_SYNC_REGISTRATION.code())))))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--remove", "--mirror", "east",
                "--topics", "orders");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertEquals("Error: topic 'orders': INVALID_SYNC_REGISTRATION: "
                + MirrorError.INVALID_SYNC_REGISTRATION.message() + "\n", result.err());
        }
    }

    private static DescribeClusterMirrorsResponseData.MirrorDescription eastMirror()
    {
        return new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("east")
            .setSourceBootstrapServers("src:9092").setIncludeTopics(List.of("orders-.*", "payments"))
            .setExcludeTopics(List.of()).setTopics(List.of(
                new DescribeClusterMirrorsResponseData.MirrorTopic().setTopicName("orders-1")
                    .setStatusMessage("released by source - recovery in flight").setPartitions(List.of(
                        new DescribeClusterMirrorsResponseData.MirrorPartition().setPartitionIndex(0)
                            .setState((byte)2).setSourceOffset(120).setDestinationOffset(100).setLag(20),
                        new DescribeClusterMirrorsResponseData.MirrorPartition().setPartitionIndex(1)
                            .setState((byte)5).setLastErrorCode(Errors.REQUEST_TIMED_OUT.code())
                            .setLastErrorMessage("source fetch timed out"),
                        new DescribeClusterMirrorsResponseData.MirrorPartition().setPartitionIndex(2)
                            .setState((byte)9)))));
    }

    @Test
    @DisplayName("AM-18 --describe --mirror prints the mirror's source and filters, then a row per partition")
    void shouldDescribeOneMirror() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new DescribeClusterMirrorsResponseData().setMirrors(
            List.of(eastMirror()))))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--describe", "--mirror", "east");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertEquals("", result.err());
            final List<String> lines = result.out().lines().toList();
            assertEquals("Mirror: east\tSource: src:9092\tInclude: orders-.*,payments\tExclude: (none)", lines.get(0));
            assertEquals(List.of("MIRROR", "TOPIC", "PARTITION", "STATE", "SOURCE-OFFSET", "DESTINATION-OFFSET", "LAG",
                "LAST-ERROR"), List.of(lines.get(1).split(" +")));
            assertEquals(List.of("east", "orders-1", "0", "MIRRORING", "120", "100", "20", "-"),
                List.of(lines.get(2).split(" +")));
            assertTrue(lines.get(3).matches("east +orders-1 +1 +FAILED +- +- +- +REQUEST_TIMED_OUT: source fetch "
                + "timed out"), lines.get(3));
            assertTrue(lines.get(4).matches("east +orders-1 +2 +STATE_9 +- +- +- +-"), lines.get(4));
            assertEquals("Topic orders-1: released by source - recovery in flight", lines.get(5));
            assertEquals(6, lines.size(), result.out());
            // The columns line up: each header starts where its values start.
            assertEquals(lines.get(1).indexOf("STATE"), lines.get(3).indexOf("FAILED"));

            final DescribeClusterMirrorsRequestData sent = (DescribeClusterMirrorsRequestData)broker.requests().get(0);
            assertEquals(List.of("east"), sent.mirrorNames());
            assertFalse(sent.localPartitionsOnly());
        }
    }

    @Test
    @DisplayName("AM-18 --describe --failed prints only the partitions that are FAILED or carry an error")
    void shouldDescribeOnlyFailingPartitions() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new DescribeClusterMirrorsResponseData().setMirrors(
            List.of(eastMirror()))))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--describe", "--mirror", "east",
                "--failed");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            final List<String> lines = result.out().lines().toList();
            assertEquals("Mirror: east\tSource: src:9092\tInclude: orders-.*,payments\tExclude: (none)", lines.get(0));
            assertTrue(lines.get(2).matches("east +orders-1 +1 +FAILED +- +- +- +REQUEST_TIMED_OUT: source fetch "
                + "timed out"), lines.get(2));
            assertEquals("Topic orders-1: released by source - recovery in flight", lines.get(3));
            assertEquals(4, lines.size(), result.out());
        }
    }

    @Test
    @DisplayName("AM-18 --describe --json prints one JSON document with every field, names for codes and states, "
        + "null for what is unknown; with --failed only the failing partitions")
    void shouldDescribeAsJson() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new DescribeClusterMirrorsResponseData().setMirrors(
            List.of(eastMirror().setMirrorConfigs(List.of("acl.sync.enable=true"))))))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--describe", "--json");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            final String json = result.out().trim();
            assertTrue(json.startsWith("{\"mirrors\":[{\"name\":\"east\",\"error\":null,\"message\":null,"
                + "\"sourceBootstrapServers\":\"src:9092\",\"include\":[\"orders-.*\",\"payments\"],\"exclude\":[],"
                + "\"configs\":[\"acl.sync.enable=true\"],\"topics\":[{\"name\":\"orders-1\""), json);
            assertTrue(json.contains("{\"partition\":0,\"state\":\"MIRRORING\",\"sourceOffset\":120,"
                + "\"destinationOffset\":100,\"lag\":20,"), json);
            assertTrue(json.contains("{\"partition\":1,\"state\":\"FAILED\",\"sourceOffset\":null,"
                + "\"destinationOffset\":null,\"lag\":null,"), json);
            assertTrue(json.contains("\"lastError\":\"REQUEST_TIMED_OUT\",\"lastErrorMessage\":\"source fetch timed "
                + "out\""), json);
            assertTrue(json.contains("\"state\":\"STATE_9\""), json);
            assertTrue(json.endsWith("]}]}]}"), json);
            assertEquals(json.chars().filter(c -> c == '{').count(), json.chars().filter(c -> c == '}').count());

            final String failed = run("--bootstrap-server", bootstrap(broker), "--describe", "--json", "--failed")
                .out();
            assertTrue(failed.contains("\"partition\":1,") && !failed.contains("\"partition\":0,")
                && !failed.contains("\"partition\":2,"), failed);
        }
    }

    @Test
    @DisplayName("AM-18 --describe without --mirror asks for every mirror and reports a mirror's error with exit 1")
    void shouldDescribeAllMirrorsAndReportAMirrorError() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new DescribeClusterMirrorsResponseData().setMirrors(List.of(
            eastMirror(),
            new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("west")
                .setErrorCode(Errors.UNKNOWN_SERVER_ERROR.code()).setErrorMessage("state store unavailable")))))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--describe");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertTrue(result.out().startsWith("Mirror: east"), result.out());
            assertEquals("Error: cluster mirror 'west': UNKNOWN_SERVER_ERROR: state store unavailable\n",
                result.err());
            assertNull(((DescribeClusterMirrorsRequestData)broker.requests().get(0)).mirrorNames());
        }
    }

    @Test
    @DisplayName("AM-18 --describe of a mirror the cluster does not report exits 1 saying it was not found")
    void shouldReportAMissingMirror() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new DescribeClusterMirrorsResponseData()))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--describe", "--mirror", "nope");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertEquals("Error: cluster mirror 'nope' was not found.\n", result.err());
        }
    }

    @Test
    @DisplayName("AM-18 --list prints one line per mirror with its source bootstrap servers")
    void shouldListMirrors() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new DescribeClusterMirrorsResponseData().setMirrors(List.of(
            eastMirror(),
            new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("west-long-name")
                .setSourceBootstrapServers("w1:9092,w2:9092")))))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--list");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertEquals("east            src:9092\nwest-long-name  w1:9092,w2:9092\n", result.out());
            final DescribeClusterMirrorsRequestData sent = (DescribeClusterMirrorsRequestData)broker.requests().get(0);
            assertNull(sent.mirrorNames());
        }
    }

    @Test
    @DisplayName("AM-18 --list reports a top-level describe error by name and exits 1")
    void shouldReportAListError() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new DescribeClusterMirrorsResponseData()
            .setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--list");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertEquals("Error: CLUSTER_AUTHORIZATION_FAILED: " + Errors.CLUSTER_AUTHORIZATION_FAILED.message()
                + "\n", result.err());
        }
    }

    @Test
    @DisplayName("AM-18 --delete sends DeleteClusterMirror for the mirror and reports success or the error")
    void shouldDeleteAMirror() throws Exception
    {
        try (FakeMirrorBroker broker = answering(new DeleteClusterMirrorResponseData()))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--delete", "--mirror", "east",
                "--command-timeout-ms", "5000");
            assertEquals(ClusterMirrorsCommand.EXIT_OK, result.exit(), result.err());
            assertEquals("Deleted cluster mirror 'east'.\n", result.out());
            assertEquals("east", ((DeleteClusterMirrorRequestData)broker.requests().get(0)).mirrorName());
        }
        try (FakeMirrorBroker broker = answering(new DeleteClusterMirrorResponseData().setErrorCode((short)999)
            .setErrorMessage("no such mirror")))
        {
            final Result result = run("--bootstrap-server=" + bootstrap(broker), "--delete", "--mirror=east");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertEquals("Error: Failed to delete cluster mirror 'east': ERROR_999: no such mirror\n", result.err());
        }
    }

    @Test
    @DisplayName("AM-18 a broker that never answers times out after --command-timeout-ms with exit 1")
    void shouldTimeOutOnASilentBroker() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) -> { }))
        {
            final Result result = run("--bootstrap-server", bootstrap(broker), "--list", "--command-timeout-ms",
                "300");
            assertEquals(ClusterMirrorsCommand.EXIT_FAILED, result.exit());
            assertTrue(result.err().contains("Timed out after 300 ms"), result.err());
            assertNoStackTrace(result);
        }
    }

    @Test
    void shouldNameEveryPartitionStateAndErrorCode()
    {
        assertEquals(List.of("UNKNOWN", "PREPARING", "MIRRORING", "STOPPING", "STOPPED", "FAILED"),
            List.of(ClusterMirrorsCommand.stateName((byte)0), ClusterMirrorsCommand.stateName((byte)1),
                ClusterMirrorsCommand.stateName((byte)2), ClusterMirrorsCommand.stateName((byte)3),
                ClusterMirrorsCommand.stateName((byte)4), ClusterMirrorsCommand.stateName((byte)5)));
        assertEquals("STATE_-1", ClusterMirrorsCommand.stateName((byte)-1));
        assertEquals("NOT_CONTROLLER", ClusterMirrorsCommand.errorName(Errors.NOT_CONTROLLER.code()));
        assertEquals("MIRROR_SYNC_VERSION_MISMATCH", ClusterMirrorsCommand.errorName((short)142));
        assertEquals("ERROR_-42", ClusterMirrorsCommand.errorName((short)-42));
    }
}

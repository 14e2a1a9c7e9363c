package io.syncmirror.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.AddTopicsToMirrorRequestData;
import io.syncmirror.protocol.AddTopicsToMirrorResponseData;
import io.syncmirror.protocol.AlterMirrorTopicTypeRequestData;
import io.syncmirror.protocol.AlterMirrorTopicTypeResponseData;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DeleteClusterMirrorRequestData;
import io.syncmirror.protocol.DeleteClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.FakeMirrorBroker;
import io.syncmirror.protocol.MirrorTopicResult;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorRequestData;
import io.syncmirror.protocol.RemoveTopicsFromMirrorResponseData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.WireSecurity;

/** MirrorAdmin against a broker stand-in answering canned responses. */
@Timeout(30)
class MirrorAdminTest
{
    private static String address(final FakeMirrorBroker broker)
    {
        return "127.0.0.1:" + broker.port();
    }

    private static int closedPort() throws IOException
    {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress()))
        {
            return socket.getLocalPort();
        }
    }

    private static Throwable failure(final CompletableFuture<?> future) throws Exception
    {
        final ExecutionException e = assertThrows(ExecutionException.class, () -> future.get(10, TimeUnit.SECONDS));
        return e.getCause();
    }

    private static AlterMirrorTopicTypeResponseData.TopicResult result(final String topic, final short code,
        final String message)
    {
        return new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName(topic).setErrorCode(code)
            .setErrorMessage(message);
    }

    @Test
    @DisplayName("alterMirrorTopicType sends each topic's type and completes each topic's future from its result: "
        + "success with a pending note, a Kafka ApiException, a MirrorSyncException for a mirroring code")
    void shouldMapEachTopicsResult() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, new AlterMirrorTopicTypeResponseData().setTopics(List.of(
                result("promoted", (short)0, null),
                result("lagging", (short)0, "promotion pending lag drain"),
                result("missing", Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), null),
                result("released", MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), "released"),
                result("odd", (short)250, null)))));
             MirrorAdmin admin = MirrorAdmin.create(address(broker), 5_000))
        {
            final Map<String, MirrorType> types = new LinkedHashMap<>();
            types.put("promoted", MirrorType.SYNC);
            types.put("lagging", MirrorType.SYNC);
            types.put("missing", MirrorType.ASYNC);
            types.put("released", MirrorType.SYNC);
            types.put("odd", MirrorType.SYNC);
            final MirrorAdmin.TopicsResult result = admin.alterMirrorTopicType("east", types);
            assertEquals(List.copyOf(types.keySet()), List.copyOf(result.values().keySet()));

            final MirrorAdmin.TopicOutcome promoted = result.values().get("promoted").get(10, TimeUnit.SECONDS);
            assertFalse(promoted.hasNote());
            final MirrorAdmin.TopicOutcome lagging = result.values().get("lagging").get(10, TimeUnit.SECONDS);
            assertTrue(lagging.hasNote());
            assertEquals("promotion pending lag drain", lagging.note());
            assertInstanceOf(UnknownTopicOrPartitionException.class, failure(result.values().get("missing")));
            final MirrorSyncException released = assertInstanceOf(MirrorSyncException.class,
                failure(result.values().get("released")));
            assertEquals(MirrorError.MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION.code(), released.code());
            assertEquals("MIRROR_SYNC_RELEASED_REQUIRES_FRESH_PROMOTION", released.errorName());
            assertTrue(released.getMessage().contains("released"), released.getMessage());
            final MirrorSyncException odd = assertInstanceOf(MirrorSyncException.class,
                failure(result.values().get("odd")));
            assertEquals("ERROR_250", odd.errorName());
            assertInstanceOf(UnknownTopicOrPartitionException.class, failure(result.all()));

            final AlterMirrorTopicTypeRequestData sent = (AlterMirrorTopicTypeRequestData)broker.requests().get(0);
            assertEquals("east", sent.mirrorName());
            assertEquals(List.of((byte)1, (byte)1, (byte)0, (byte)1, (byte)1), sent.topics().stream()
                .map(AlterMirrorTopicTypeRequestData.AlterMirrorTopic::mirrorType).toList());
        }
    }

    @Test
    @DisplayName("registerMirrorSyncTopics sends RecoveryPromotion as asked; a topic the response omits fails")
    void shouldRegisterWithRecoveryPromotion() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, new RegisterMirrorSyncTopicResponseData().setTopics(List.of(
                new RegisterMirrorSyncTopicResponseData.TopicResult().setTopicName("a")))));
             MirrorAdmin admin = MirrorAdmin.create(address(broker), 5_000))
        {
            final MirrorAdmin.TopicsResult recovery = admin.registerMirrorSyncTopics("east", List.of("a", "b"), true);
            assertEquals("a", recovery.values().get("a").get(10, TimeUnit.SECONDS).topicName());
            final Throwable omitted = failure(recovery.values().get("b"));
            assertInstanceOf(KafkaException.class, omitted);
            assertTrue(omitted.getMessage().contains("no result for topic 'b'"), omitted.getMessage());
            admin.registerMirrorSyncTopics("east", List.of("a")).all().get(10, TimeUnit.SECONDS);

            final RegisterMirrorSyncTopicRequestData first = (RegisterMirrorSyncTopicRequestData)broker.requests()
                .get(0);
            assertEquals("east", first.mirrorName());
            assertTrue(first.topics().stream()
                .allMatch(RegisterMirrorSyncTopicRequestData.TopicState::recoveryPromotion));
            final RegisterMirrorSyncTopicRequestData second = (RegisterMirrorSyncTopicRequestData)broker.requests()
                .get(1);
            assertFalse(second.topics().get(0).recoveryPromotion());
            assertEquals(1, broker.connections(), "one connection serves every call");
        }
    }

    @Test
    @DisplayName("unregister sends a clean unregister and release sets Release; the request's error fails every "
        + "topic, an empty release has only the all() future")
    void shouldUnregisterAndRelease() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, ((UnregisterMirrorSyncTopicRequestData)request).release()
                ? new UnregisterMirrorSyncTopicResponseData()
                : new UnregisterMirrorSyncTopicResponseData().setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code())));
             MirrorAdmin admin = MirrorAdmin.create(address(broker), 5_000))
        {
            final MirrorAdmin.TopicsResult clean = admin.unregisterMirrorSyncTopics("east", List.of("a", "b"));
            assertInstanceOf(TopicAuthorizationException.class, failure(clean.values().get("a")));
            assertInstanceOf(TopicAuthorizationException.class, failure(clean.values().get("b")));
            final MirrorAdmin.TopicsResult all = admin.releaseMirrorSyncTopics("east", List.of());
            assertTrue(all.values().isEmpty());
            assertNull(all.all().get(10, TimeUnit.SECONDS));
            final MirrorAdmin.TopicsResult some = admin.releaseMirrorSyncTopics("east", List.of("a"));
            assertEquals("a", some.values().get("a").get(10, TimeUnit.SECONDS).topicName());

            final UnregisterMirrorSyncTopicRequestData first = (UnregisterMirrorSyncTopicRequestData)broker
                .requests().get(0);
            assertFalse(first.release());
            assertEquals(2, first.topics().size());
            final UnregisterMirrorSyncTopicRequestData second = (UnregisterMirrorSyncTopicRequestData)broker
                .requests().get(1);
            assertTrue(second.release());
            assertTrue(second.topics().isEmpty());
        }
    }

    @Test
    @DisplayName("addTopicsToMirror sends the topics with the mirror and type")
    void shouldAddTopics() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, new AddTopicsToMirrorResponseData().setTopics(List.of(
                new AddTopicsToMirrorResponseData.TopicResult().setTopicName("a")))));
             MirrorAdmin admin = MirrorAdmin.create(address(broker), 5_000))
        {
            admin.addTopicsToMirror("east", List.of("a"), MirrorType.SYNC).all().get(10, TimeUnit.SECONDS);
            final AddTopicsToMirrorRequestData sent = (AddTopicsToMirrorRequestData)broker.requests().get(0);
            assertEquals("east", sent.topics().get(0).mirrorName());
            assertEquals(MirrorType.SYNC.id(), sent.topics().get(0).mirrorType());
        }
    }

    @Test
    @DisplayName("an unreachable cluster fails every future with an exception naming the servers; the call returns "
        + "at once")
    void shouldFailClearlyWhenUnreachable() throws Exception
    {
        final String servers = "127.0.0.1:" + closedPort() + ",127.0.0.1:" + closedPort();
        try (MirrorAdmin admin = MirrorAdmin.create(servers, 2_000))
        {
            final MirrorAdmin.TopicsResult result = admin.alterMirrorTopicType("east", Map.of("a", MirrorType.SYNC));
            final Throwable e = failure(result.values().get("a"));
            assertInstanceOf(KafkaException.class, e);
            assertTrue(e.getMessage().contains(servers), e.getMessage());
            assertTrue(e.getMessage().contains("AlterMirrorTopicType"), e.getMessage());
            assertInstanceOf(KafkaException.class, failure(result.all()));
        }
    }

    @Test
    @DisplayName("a call after close fails its futures instead of hanging; bad arguments are refused at once")
    void shouldFailAfterCloseAndRefuseBadArguments() throws Exception
    {
        final MirrorAdmin admin = MirrorAdmin.create("127.0.0.1:9", 1_000);
        admin.close();
        admin.close();
        final MirrorAdmin.TopicsResult result = admin.unregisterMirrorSyncTopics("east", List.of("a"));
        assertInstanceOf(IllegalStateException.class, failure(result.values().get("a")));
        assertThrows(IllegalArgumentException.class, () -> MirrorAdmin.create("nohost", 1_000));
        assertThrows(IllegalArgumentException.class, () -> MirrorAdmin.create("127.0.0.1:9", 0));
        assertThrows(NullPointerException.class, () -> admin.registerMirrorSyncTopics(null, List.of("a")));
    }

    @Test
    @DisplayName("close fails the calls still waiting for an answer without waiting for the request in flight")
    void shouldFailPendingCallsOnClose() throws Exception
    {
        // A broker that never answers.
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) -> { }))
        {
            // Not a resource: closing it while calls wait is what this test does.
            final MirrorAdmin admin = MirrorAdmin.create(address(broker), 20_000);
            final MirrorAdmin.TopicsResult first = admin.registerMirrorSyncTopics("east", List.of("a"));
            final MirrorAdmin.TopicsResult queued = admin.registerMirrorSyncTopics("east", List.of("b"));
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (broker.requests().isEmpty() && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(10);
            }
            final long closeStartNs = System.nanoTime();
            admin.close();
            assertTrue(System.nanoTime() - closeStartNs < TimeUnit.SECONDS.toNanos(5),
                "close waited for the request in flight");
            assertTrue(failure(first.values().get("a")) instanceof RuntimeException);
            assertInstanceOf(IllegalStateException.class, failure(queued.values().get("b")));
        }
    }

    @Test
    @DisplayName("createClusterMirror sends the mirror, its source, configs in the order given and its filters, "
        + "with the client id asked for; the answer carries the request's error as sent")
    void shouldCreateAMirrorWithTheGivenClientId() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, new CreateClusterMirrorResponseData()
                .setErrorCode(Errors.INVALID_CONFIG.code()).setErrorMessage("bad")));
             MirrorAdmin admin = MirrorAdmin.create(address(broker), 5_000, WireSecurity.PLAINTEXT, "a-tool"))
        {
            final Map<String, String> sourceConfigs = new LinkedHashMap<>();
            sourceConfigs.put("z", "1");
            sourceConfigs.put("a", "2");
            final MirrorAdmin.CallResult result = admin.createClusterMirror(new MirrorAdmin.NewClusterMirror("east",
                "src:9092", sourceConfigs, Map.of("acl.sync.enable", "true"), List.of("orders-.*"), List.of("tmp")));
            final MirrorAdmin.Answer answer = result.answer().get(10, TimeUnit.SECONDS);
            assertEquals(Errors.INVALID_CONFIG.code(), answer.errorCode());
            assertEquals("bad", answer.errorMessage());
            assertInstanceOf(InvalidConfigurationException.class, answer.exception());
            assertInstanceOf(InvalidConfigurationException.class, failure(result.all()));

            assertEquals("a-tool", broker.headers().get(0).clientId());
            final CreateClusterMirrorRequestData sent = (CreateClusterMirrorRequestData)broker.requests().get(0);
            assertEquals("east", sent.mirrorName());
            assertEquals("src:9092", sent.sourceBootstrapServers());
            assertEquals(List.of("z=1", "a=2"), sent.sourceConfigs().stream().map(c -> c.name() + "=" + c.value())
                .toList());
            assertEquals(List.of("acl.sync.enable=true"), sent.mirrorConfigs().stream()
                .map(c -> c.name() + "=" + c.value()).toList());
            assertEquals(List.of("orders-.*"), sent.includeTopics());
            assertEquals(List.of("tmp"), sent.excludeTopics());
        }
    }

    @Test
    @DisplayName("deleteClusterMirror and describeClusterMirrors send the mirror names; describe hands back the "
        + "whole response and null names ask for every mirror")
    void shouldDeleteAndDescribe() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, request instanceof DeleteClusterMirrorRequestData
                ? new DeleteClusterMirrorResponseData()
                : new DescribeClusterMirrorsResponseData().setMirrors(List.of(
                    new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("east")))));
             MirrorAdmin admin = MirrorAdmin.create(address(broker), 5_000))
        {
            assertNull(admin.deleteClusterMirror("east").all().get(10, TimeUnit.SECONDS));
            final MirrorAdmin.DescribeResult one = admin.describeClusterMirrors(List.of("east"));
            assertEquals("east", one.response().get(10, TimeUnit.SECONDS).mirrors().get(0).mirrorName());
            assertNull(one.all().get(10, TimeUnit.SECONDS));
            admin.describeClusterMirrors(null).all().get(10, TimeUnit.SECONDS);

            assertEquals("east", ((DeleteClusterMirrorRequestData)broker.requests().get(0)).mirrorName());
            assertEquals(List.of("east"), ((DescribeClusterMirrorsRequestData)broker.requests().get(1)).mirrorNames());
            assertNull(((DescribeClusterMirrorsRequestData)broker.requests().get(2)).mirrorNames());
            assertEquals("mirror-admin", broker.headers().get(0).clientId());
        }
    }

    @Test
    @DisplayName("addTopicPatternToMirror sends one TopicPattern; the answer holds the matched topics and the "
        + "pattern's own result in response order, and all() fails with the first error")
    void shouldAddATopicPattern() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, new AddTopicsToMirrorResponseData().setTopics(List.of(
                new AddTopicsToMirrorResponseData.TopicResult().setTopicName("orders-1"),
                new AddTopicsToMirrorResponseData.TopicResult().setTopicName("orders-.*")
                    .setErrorCode(Errors.NOT_CONTROLLER.code())))));
             MirrorAdmin admin = MirrorAdmin.create(address(broker), 5_000))
        {
            final MirrorAdmin.PatternResult result = admin.addTopicPatternToMirror("east", "orders-.*",
                MirrorType.SYNC);
            final List<MirrorTopicResult> topics = result.answer().get(10, TimeUnit.SECONDS).topics();
            assertEquals(List.of("orders-1", "orders-.*"), topics.stream().map(MirrorTopicResult::topicName).toList());
            assertFalse(result.isPatternResult(topics.get(0)));
            assertTrue(result.isPatternResult(topics.get(1)));
            assertInstanceOf(NotControllerException.class, failure(result.all()));

            final AddTopicsToMirrorRequestData sent = (AddTopicsToMirrorRequestData)broker.requests().get(0);
            assertTrue(sent.topics().isEmpty());
            assertEquals("orders-.*", sent.topicPatterns().get(0).pattern());
            assertEquals("east", sent.topicPatterns().get(0).mirrorName());
            assertEquals(MirrorType.SYNC.id(), sent.topicPatterns().get(0).mirrorType());
        }
    }

    @Test
    @DisplayName("removeTopicsFromMirror sends each topic with the mirror; per-topic futures and the answer agree")
    void shouldRemoveTopics() throws Exception
    {
        try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            FakeMirrorBroker.reply(out, header, new RemoveTopicsFromMirrorResponseData().setTopics(List.of(
                new RemoveTopicsFromMirrorResponseData.TopicResult().setTopicName("a")))));
             MirrorAdmin admin = MirrorAdmin.create(address(broker), 5_000))
        {
            final MirrorAdmin.TopicsResult result = admin.removeTopicsFromMirror("east", List.of("a"));
            assertEquals("a", result.values().get("a").get(10, TimeUnit.SECONDS).topicName());
            assertEquals(List.of(new MirrorTopicResult("a", (short)0, null)),
                result.answer().get(10, TimeUnit.SECONDS).topics());
            final RemoveTopicsFromMirrorRequestData sent = (RemoveTopicsFromMirrorRequestData)broker.requests().get(0);
            assertEquals("a", sent.topics().get(0).topicName());
            assertEquals("east", sent.topics().get(0).mirrorName());
        }
    }

    @Test
    @DisplayName("when no bootstrap server answers, the failure's cause lists each server's connect failure in turn")
    void shouldExposeEachServersConnectFailure() throws Exception
    {
        final int first = closedPort();
        final int second = closedPort();
        try (MirrorAdmin admin = MirrorAdmin.create("127.0.0.1:" + first + ",127.0.0.1:" + second, 2_000))
        {
            final Throwable e = failure(admin.deleteClusterMirror("east").answer());
            final MirrorAdmin.BootstrapException cause = assertInstanceOf(MirrorAdmin.BootstrapException.class,
                e.getCause());
            assertEquals(2, cause.failures().size());
            assertTrue(cause.failures().get(0).getMessage().startsWith("Cannot connect to 127.0.0.1:" + first),
                cause.failures().get(0).getMessage());
            assertTrue(cause.failures().get(1).getMessage().startsWith("Cannot connect to 127.0.0.1:" + second),
                cause.failures().get(1).getMessage());
            assertTrue(e.getMessage().contains("no bootstrap server answered"), e.getMessage());
        }
    }

    @Test
    @DisplayName("close after the last call was answered closes the connection at once, as a tool that exits "
        + "right after printing the answer needs")
    void shouldCloseTheConnectionAfterTheLastAnswer() throws Exception
    {
        for (int round = 0; round < 20; round++)
        {
            final CompletableFuture<Integer> afterAnswer = new CompletableFuture<>();
            try (FakeMirrorBroker broker = new FakeMirrorBroker((header, request, socket, out) ->
            {
                FakeMirrorBroker.reply(out, header, new DeleteClusterMirrorResponseData());
                // The next byte from the client, or -1 once it closed the connection.
                socket.setSoTimeout(5_000);
                afterAnswer.complete(socket.getInputStream().read());
            }))
            {
                final MirrorAdmin admin = MirrorAdmin.create(address(broker), 5_000);
                admin.deleteClusterMirror("east").all().get(10, TimeUnit.SECONDS);
                admin.close();
                assertEquals(-1, afterAnswer.get(10, TimeUnit.SECONDS), "round " + round);
            }
        }
    }
}

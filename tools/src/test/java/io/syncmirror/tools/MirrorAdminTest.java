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
import io.syncmirror.protocol.FakeMirrorBroker;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.protocol.RegisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.RegisterMirrorSyncTopicResponseData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicRequestData;
import io.syncmirror.protocol.UnregisterMirrorSyncTopicResponseData;

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
}

package io.syncmirror.broker.controller;

import static io.syncmirror.broker.controller.ControllerFixture.createTopic;
import static io.syncmirror.broker.controller.ControllerFixture.registerAndUnfence;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.MirrorDefinition;

/** The mirror metadata manager over a real controller (memory log, own event thread) and a fake source. */
@Timeout(30)
class MirrorMetadataManagerTest
{
    private static final String MIRROR = "east";
    private static final Uuid ORDERS_ID = Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAQ");
    private static final Uuid PAY_ID = Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAg");
    private static final Uuid TMP_ID = Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAw");

    private final ManualClock clock = new ManualClock(1_000);
    private final Controller controller = new Controller(new MemoryMetadataLog(), clock,
        Map.of("default.replication.factor", "2"), Controller.seededTopicIds(3));
    private final ControllerApis apis;
    private final MirrorController mirrors;
    private final FakeSourceClusterClient source = new FakeSourceClusterClient();
    private final AtomicInteger clientsOpened = new AtomicInteger();
    private final List<Commit> commits = new CopyOnWriteArrayList<>();
    /** Groups that have members on the destination: the writer refuses them as Kafka's coordinator does. */
    private final java.util.Set<String> activeHere = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private MirrorMetadataManager manager;

    private record Commit(String group, Map<TopicPartition, OffsetAndMetadata> offsets)
    {
    }

    MirrorMetadataManagerTest()
    {
        registerAndUnfence(controller, 1);
        registerAndUnfence(controller, 2);
        apis = new ControllerApis(controller);
        mirrors = new MirrorController(apis);
    }

    private MirrorMetadataManager manager(final long intervalMs)
    {
        final Function<MirrorDefinition, SourceClusterClient> factory = d ->
        {
            clientsOpened.incrementAndGet();
            return source;
        };
        manager = new MirrorMetadataManager(mirrors, factory, new MirrorMetadataManager.GroupOffsetWriter()
        {
            @Override
            public void commit(final String groupId, final Map<TopicPartition, OffsetAndMetadata> offsets)
                throws Exception
            {
                if (activeHere.contains(groupId))
                {
                    throw new java.util.concurrent.ExecutionException(
                        new org.apache.kafka.common.errors.UnknownMemberIdException("the group has members"));
                }
                commits.add(new Commit(groupId, Map.copyOf(offsets)));
            }

            @Override
            public void close()
            {
            }
        }, intervalMs, clock);
        return manager;
    }

    @AfterEach
    void tearDown()
    {
        if (manager != null)
        {
            manager.close();
        }
        apis.close();
    }

    private void createMirror(final List<String> include, final List<String> exclude) throws Exception
    {
        assertEquals(MirrorOpResult.OK, mirrors.createMirror(new MirrorDefinition(MIRROR, "fake:9092",
            Map.of(), include, exclude)).get(5, TimeUnit.SECONDS));
    }

    private <T> T onController(final Function<Controller, T> read) throws Exception
    {
        return apis.onEventThread(read).get(5, TimeUnit.SECONDS);
    }

    private void sync() throws Exception
    {
        manager.syncNow().get(10, TimeUnit.SECONDS);
    }

    @Test
    @DisplayName("AM-01 a matching source topic is created with the source's id, partition count and configs")
    void shouldCreateMatchingSourceTopicsWithTheSourceIdPartitionsAndConfigs() throws Exception
    {
        createMirror(List.of("orders.*"), List.of());
        source.putTopic("orders", ORDERS_ID, 3, Map.of("retention.ms", "60000"));
        source.putTopic("payments", PAY_ID, 1, Map.of());
        manager(60_000);
        sync();
        assertEquals(Optional.of(ORDERS_ID), onController(c -> c.topicId("orders")));
        assertEquals(3, (int) onController(c -> c.partitionCount("orders")));
        assertEquals(Map.of("retention.ms", "60000", "mirror.name", MIRROR), onController(c -> c.topicConfig("orders")));
        assertEquals(Optional.empty(), onController(c -> c.topicId("payments")));
        assertEquals(Optional.empty(), manager.lastError(MIRROR));
        assertEquals(1_000, manager.lastSyncMs(MIRROR));
    }

    @Test
    void shouldLetAnExcludePatternWinOverAnInclude() throws Exception
    {
        createMirror(List.of("orders.*"), List.of("orders\\.tmp.*"));
        source.putTopic("orders", ORDERS_ID, 1, Map.of());
        source.putTopic("orders.tmp1", TMP_ID, 1, Map.of());
        manager(60_000);
        sync();
        assertTrue(onController(c -> c.topicId("orders")).isPresent());
        assertTrue(onController(c -> c.topicId("orders.tmp1")).isEmpty());
    }

    @Test
    void shouldAddANamedTopicNowAndAnswerPerTopic() throws Exception
    {
        createMirror(List.of(), List.of());
        source.putTopic("orders", ORDERS_ID, 2, Map.of("cleanup.policy", "compact"));
        source.putTopic("clash", TMP_ID, 1, Map.of());
        assertEquals(Errors.NONE.code(), (int) onController(c -> createTopic(c, "clash", 1, 1, Map.of()).errorCode()));
        manager(60_000);
        final Map<String, MirrorOpResult> results = manager.addTopicsToMirror(MIRROR,
            List.of("orders", "missing", "clash"), List.of()).get(10, TimeUnit.SECONDS);
        assertEquals(MirrorOpResult.OK, results.get("orders"));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, results.get("missing").error());
        assertTrue(results.get("missing").message().contains("fake:9092"), results.get("missing").message());
        assertEquals(Errors.TOPIC_ALREADY_EXISTS, results.get("clash").error());
        assertEquals(Optional.of(ORDERS_ID), onController(c -> c.topicId("orders")));
        assertEquals("compact", onController(c -> c.topicConfig("orders")).get("cleanup.policy"));

        final Map<String, MirrorOpResult> unknownMirror = manager.addTopicsToMirror("west", List.of("orders"),
            List.of("x.*")).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.RESOURCE_NOT_FOUND, unknownMirror.get("orders").error());
        assertTrue(unknownMirror.get("x.*").message().contains("west"));

        source.reachable = false;
        final MirrorOpResult unreachable = manager.addTopicsToMirror(MIRROR, List.of("orders"), List.of())
            .get(10, TimeUnit.SECONDS).get("orders");
        assertEquals(Errors.NETWORK_EXCEPTION, unreachable.error());
        assertTrue(unreachable.message().contains("fake:9092"), unreachable.message());
    }

    @Test
    void shouldApplyAnAddedPatternAtOnceAndToTopicsCreatedLater() throws Exception
    {
        createMirror(List.of(), List.of());
        source.putTopic("pay1", PAY_ID, 1, Map.of());
        manager(60_000);
        final Map<String, MirrorOpResult> results = manager.addTopicsToMirror(MIRROR, List.of(), List.of("pay.*",
            "(")).get(10, TimeUnit.SECONDS);
        assertEquals(MirrorOpResult.OK, results.get("pay.*"));
        assertEquals(Errors.INVALID_REQUEST, results.get("(").error());
        assertEquals(List.of("pay.*"), onController(c -> c.mirror(MIRROR).orElseThrow().includeTopics()));
        assertEquals(Optional.of(PAY_ID), onController(c -> c.topicId("pay1")), "applied at once");

        source.putTopic("pay2", TMP_ID, 4, Map.of());
        sync();
        assertEquals(Optional.of(TMP_ID), onController(c -> c.topicId("pay2")));
        assertEquals(4, (int) onController(c -> c.partitionCount("pay2")));
    }

    @Test
    @DisplayName("AM-12 a source topic config change reaches the destination at the next sync cycle")
    void shouldSyncSourceConfigChanges() throws Exception
    {
        createMirror(List.of("orders"), List.of());
        source.putTopic("orders", ORDERS_ID, 1, Map.of("retention.ms", "1000"));
        manager(60_000);
        sync();
        source.putTopic("orders", ORDERS_ID, 1, Map.of("retention.ms", "2000", "max.message.bytes", "4096"));
        sync();
        assertEquals(Map.of("retention.ms", "2000", "max.message.bytes", "4096", "mirror.name", MIRROR),
            onController(c -> c.topicConfig("orders")));
    }

    @Test
    void shouldGrowPartitionsWhenTheSourceDoes() throws Exception
    {
        createMirror(List.of("orders"), List.of());
        source.putTopic("orders", ORDERS_ID, 2, Map.of());
        manager(60_000);
        sync();
        source.putTopic("orders", ORDERS_ID, 6, Map.of());
        sync();
        assertEquals(6, (int) onController(c -> c.partitionCount("orders")));
        assertTrue(onController(c -> c.partition("orders", 5)).isPresent());
    }

    @Test
    @DisplayName("AM-15 unclean leader election enabled on a source topic logs a warning at each sync")
    void shouldWarnEachCycleWhenTheSourceTopicAllowsUncleanElection() throws Exception
    {
        createMirror(List.of("orders", "payments"), List.of());
        source.putTopic(new SourceClusterClient.SourceTopic("orders", ORDERS_ID, 1,
            Map.of("unclean.leader.election.enable", "true"), true));
        source.putTopic("payments", PAY_ID, 1, Map.of());
        manager(60_000);
        sync();
        assertEquals(1, manager.uncleanLeaderElectionWarnings(MIRROR));
        sync();
        assertEquals(2, manager.uncleanLeaderElectionWarnings(MIRROR));
        assertEquals("true", onController(c -> c.topicConfig("orders")).get("unclean.leader.election.enable"));
    }

    @Test
    @DisplayName("AM-11 committed offsets of mirror topics are copied, also above the destination log end")
    void shouldCopyCommittedOffsetsOfMirrorTopicsOnly() throws Exception
    {
        createMirror(List.of("orders"), List.of());
        source.putTopic("orders", ORDERS_ID, 2, Map.of());
        source.putTopic("other", PAY_ID, 1, Map.of());
        final TopicPartition orders0 = new TopicPartition("orders", 0);
        source.groups.put("g1", Map.of(orders0, new OffsetAndMetadata(1_000_000, "m"),
            new TopicPartition("other", 0), new OffsetAndMetadata(5), new TopicPartition("orders", 7),
            new OffsetAndMetadata(9)));
        manager(60_000);
        sync();
        assertEquals(List.of(new Commit("g1", Map.of(orders0, new OffsetAndMetadata(1_000_000, "m")))), commits);
        sync();
        assertEquals(1, commits.size(), "an unchanged offset is not copied again");
        source.groups.put("g1", Map.of(orders0, new OffsetAndMetadata(1_000_001)));
        sync();
        assertEquals(new Commit("g1", Map.of(orders0, new OffsetAndMetadata(1_000_001))), commits.get(1));
    }

    @Test
    @DisplayName("AM-11 a group with members on the destination is skipped and counted, without an error, and the "
        + "other groups are still copied")
    void shouldSkipAndCountAGroupActiveOnTheDestination() throws Exception
    {
        createMirror(List.of("orders"), List.of());
        source.putTopic("orders", ORDERS_ID, 1, Map.of());
        final TopicPartition orders0 = new TopicPartition("orders", 0);
        source.groups.put("busy", Map.of(orders0, new OffsetAndMetadata(10)));
        source.groups.put("idle", Map.of(orders0, new OffsetAndMetadata(20)));
        activeHere.add("busy");
        manager(60_000);
        sync();
        assertEquals(List.of(new Commit("idle", Map.of(orders0, new OffsetAndMetadata(20)))), commits);
        assertEquals(1, manager.activeGroupOffsetSyncsSkipped(MIRROR));
        assertEquals(Optional.empty(), manager.lastError(MIRROR));
        activeHere.clear();
        sync();
        assertEquals(new Commit("busy", Map.of(orders0, new OffsetAndMetadata(10))), commits.get(1),
            "copied once the group has no members here");
        assertEquals(1, manager.activeGroupOffsetSyncsSkipped(MIRROR));
    }

    @Test
    void shouldKeepAnUnreachableSourceAsTheLastErrorAndRetryNextCycle() throws Exception
    {
        createMirror(List.of("orders"), List.of());
        source.putTopic("orders", ORDERS_ID, 1, Map.of());
        source.reachable = false;
        manager(60_000);
        sync();
        assertTrue(manager.lastError(MIRROR).orElseThrow().contains("fake:9092"), manager.lastError(MIRROR)::get);
        assertTrue(onController(c -> c.topicId("orders")).isEmpty());
        source.reachable = true;
        sync();
        assertEquals(Optional.empty(), manager.lastError(MIRROR));
        assertTrue(onController(c -> c.topicId("orders")).isPresent());
        assertEquals(2, clientsOpened.get(), "the failed client is replaced");
    }

    @Test
    @DisplayName("AM-10 a topic removed from the mirror (failed over) is not re-attached by the include pattern")
    void shouldNotReattachAFailedOverTopic() throws Exception
    {
        createMirror(List.of("orders"), List.of());
        source.putTopic("orders", ORDERS_ID, 1, Map.of("retention.ms", "1"));
        manager(60_000);
        sync();
        assertEquals(MirrorOpResult.OK, mirrors.removeTopicFromMirror("orders", MIRROR).get(5, TimeUnit.SECONDS));
        source.putTopic("orders", ORDERS_ID, 3, Map.of("retention.ms", "2"));
        sync();
        assertEquals(Map.of("retention.ms", "1", "mirror.name", "east.removed"),
            onController(c -> c.topicConfig("orders")));
        assertEquals(1, (int) onController(c -> c.partitionCount("orders")));
        final MirrorOpResult readded = manager.addTopicsToMirror(MIRROR, List.of("orders"), List.of())
            .get(10, TimeUnit.SECONDS).get("orders");
        assertEquals(MirrorOpResult.OK, readded);
        sync();
        assertEquals(Map.of("retention.ms", "2", "mirror.name", MIRROR), onController(c -> c.topicConfig("orders")));
        assertEquals(3, (int) onController(c -> c.partitionCount("orders")));
    }

    @Test
    void shouldSyncPeriodicallyOnItsOwnThreadAndStopOnClose() throws Exception
    {
        createMirror(List.of("orders.*"), List.of());
        manager(100).start();
        source.putTopic("orders.late", ORDERS_ID, 1, Map.of());
        final long deadlineMs = System.currentTimeMillis() + 10_000;
        while (onController(c -> c.topicId("orders.late")).isEmpty())
        {
            assertTrue(System.currentTimeMillis() < deadlineMs, "created by a periodic cycle");
            Thread.sleep(20);
        }
        manager.close();
        assertTrue(source.closes.get() >= 1, "the source client is closed");
        final ExecutionException e = assertThrows(ExecutionException.class,
            () -> manager.syncNow().get(5, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof IllegalStateException);
        final List<String> threads = new ArrayList<>();
        Thread.getAllStackTraces().keySet().forEach(t -> threads.add(t.getName()));
        Thread.sleep(50);
        assertFalse(Thread.getAllStackTraces().keySet().stream()
            .anyMatch(t -> t.getName().equals("mirror-metadata-manager") && t.isAlive()), threads::toString);
    }
}

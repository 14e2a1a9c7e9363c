package io.syncmirror.broker.controller;

import static io.syncmirror.broker.controller.ControllerFixture.alterConfig;
import static io.syncmirror.broker.controller.ControllerFixture.createTopic;
import static io.syncmirror.broker.controller.ControllerFixture.registerAndUnfence;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.adapter.MirrorLinks;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.storage.DurableLogStore;
import io.syncmirror.broker.storage.PartitionLog;

/** The controller's mirror operations: definitions, mirror topics, failover epochs and the producer id floor. */
@Timeout(30)
class ControllerMirrorTest
{
    private static final Uuid SOURCE_ID = Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAQ");
    private static final Uuid OTHER_ID = Uuid.fromString("c0ffeeBBBBBBBBBBBBBBBQ");
    private static final String MIRROR = "east";

    private final ManualClock clock = new ManualClock(1_000);
    private final MemoryMetadataLog log = new MemoryMetadataLog();

    @TempDir
    Path dir;

    private Controller newController()
    {
        return new Controller(log, clock, Map.of("cluster.id", "test-cluster", "default.replication.factor", "3"),
            Controller.seededTopicIds(7));
    }

    /** Two live brokers (so a default RF of 3 is capped at 2) and mirror {@value #MIRROR}. */
    private Controller withMirror()
    {
        final Controller c = newController();
        registerAndUnfence(c, 1);
        registerAndUnfence(c, 2);
        assertEquals(MirrorOpResult.OK, c.createMirror(definition(MIRROR)));
        return c;
    }

    private static MirrorDefinition definition(final String name)
    {
        return new MirrorDefinition(name, "source:9092", Map.of("client.id", "x"), List.of("orders.*"), List.of());
    }

    @Test
    void shouldRefuseBadMirrorNamesBadPatternsAndDuplicates()
    {
        final Controller c = withMirror();
        for (final String bad : List.of("", "a/b", "x.removed", "n".repeat(250)))
        {
            final MirrorOpResult r = c.createMirror(definition(bad));
            assertEquals(Errors.INVALID_REQUEST, r.error(), bad);
            assertTrue(r.message() != null && !r.message().isEmpty());
        }
        assertEquals(Errors.NONE, c.createMirror(definition("n".repeat(249))).error());
        assertEquals(Errors.INVALID_REQUEST, c.createMirror(new MirrorDefinition("p", "s:1", Map.of(),
            List.of("("), List.of())).error());
        assertEquals(Errors.INVALID_REQUEST, c.createMirror(new MirrorDefinition("p", " ", Map.of(),
            List.of(), List.of())).error());
        final MirrorOpResult duplicate = c.createMirror(definition(MIRROR));
        assertEquals(Errors.DUPLICATE_RESOURCE, duplicate.error());
        assertTrue(duplicate.message().contains(MIRROR));
        assertEquals(Set.of(MIRROR, "n".repeat(249)), c.mirrors().keySet());
    }

    @Test
    @DisplayName("AM-01 a mirror topic gets the source topic id, partition count and the configs LogConfig accepts")
    void shouldCreateAMirrorTopicWithTheSourceIdPartitionsAndConfigs()
    {
        final Controller c = withMirror();
        final MirrorOpResult r = c.createMirrorTopic("orders", SOURCE_ID, 3,
            Map.of("retention.ms", "60000", "cleanup.policy", "compact", "no.such.key", "1",
                "mirror.name", "spoofed", "segment.bytes", "not-a-number"), MIRROR);
        assertEquals(MirrorOpResult.OK, r);
        assertEquals(SOURCE_ID, c.topicId("orders").orElseThrow());
        assertEquals(3, c.partitionCount("orders"));
        assertEquals(Map.of("retention.ms", "60000", "cleanup.policy", "compact", "mirror.name", MIRROR),
            c.topicConfig("orders"));
        for (int p = 0; p < 3; p++)
        {
            final PartitionState s = c.partition("orders", p).orElseThrow();
            assertEquals(2, s.replicas().size(), "default RF 3 capped by the 2 live brokers");
            assertEquals(s.replicas().get(0), s.leader());
        }
        assertEquals(List.of("orders"), c.mirrorTopicNames(MIRROR));
    }

    @Test
    void shouldRefuseAMirrorTopicForAnUnknownMirrorOrAnUnusableId()
    {
        final Controller c = withMirror();
        assertEquals(Errors.RESOURCE_NOT_FOUND, c.createMirrorTopic("t", SOURCE_ID, 1, Map.of(), "west").error());
        assertEquals(Errors.INVALID_REQUEST, c.createMirrorTopic("t", Uuid.ZERO_UUID, 1, Map.of(), MIRROR).error());
        assertEquals(Errors.INVALID_PARTITIONS, c.createMirrorTopic("t", SOURCE_ID, 0, Map.of(), MIRROR).error());
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, c.createMirrorTopic("bad topic", SOURCE_ID, 1, Map.of(),
            MIRROR).error());
        assertTrue(c.topicId("t").isEmpty());
    }

    @Test
    @DisplayName("an add's mirror topics are created in one metadata append, each with its own result in order, a "
        + "refused topic not stopping the others")
    void shouldCreateAnAddsMirrorTopicsInOneAppend()
    {
        final int[] appends = {0};
        final MetadataLog counting = new MetadataLog()
        {
            @Override
            public long append(final List<MetadataRecord> records, final long timeMs)
            {
                appends[0]++;
                return log.append(records, timeMs);
            }

            @Override
            public org.apache.kafka.common.record.internal.Records read(final long offset, final int maxBytes)
            {
                return log.read(offset, maxBytes);
            }

            @Override
            public long endOffset()
            {
                return log.endOffset();
            }

            @Override
            public long highWatermark()
            {
                return log.highWatermark();
            }

            @Override
            public void close()
            {
            }
        };
        final Controller c = new Controller(counting, clock, Map.of("cluster.id", "test-cluster",
            "default.replication.factor", "3"), Controller.seededTopicIds(7));
        registerAndUnfence(c, 1);
        registerAndUnfence(c, 2);
        assertEquals(MirrorOpResult.OK, c.createMirror(definition(MIRROR)));
        final int before = appends[0];
        final Uuid secondId = Uuid.fromString("c0ffeeCCCCCCCCCCCCCCCQ");
        final Map<String, MirrorOpResult> results = c.createMirrorTopics(MIRROR, List.of(
            new SourceClusterClient.SourceTopic("orders", SOURCE_ID, 3, Map.of("retention.ms", "60000"), false),
            new SourceClusterClient.SourceTopic("bad topic", OTHER_ID, 1, Map.of(), false),
            new SourceClusterClient.SourceTopic("orders.eu", secondId, 2, Map.of(), false),
            new SourceClusterClient.SourceTopic("orders_eu", Uuid.fromString("c0ffeeDDDDDDDDDDDDDDDQ"), 1, Map.of(),
                false)));
        assertEquals(1, appends[0] - before, "one append for the whole add");
        assertEquals(List.of("orders", "bad topic", "orders.eu", "orders_eu"), List.copyOf(results.keySet()));
        assertEquals(MirrorOpResult.OK, results.get("orders"));
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, results.get("bad topic").error());
        assertEquals(MirrorOpResult.OK, results.get("orders.eu"));
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION, results.get("orders_eu").error(),
            "a collision with a topic created earlier in the same add");
        assertEquals(SOURCE_ID, c.topicId("orders").orElseThrow());
        assertEquals(3, c.partitionCount("orders"));
        assertEquals(Map.of("retention.ms", "60000", "mirror.name", MIRROR), c.topicConfig("orders"));
        assertEquals(secondId, c.topicId("orders.eu").orElseThrow());
        assertEquals(List.of("orders", "orders.eu"), c.mirrorTopicNames(MIRROR));

        // A restarted controller replays the one append to the same topics.
        final Controller replayed = new Controller(log, clock, Map.of("cluster.id", "test-cluster"),
            Controller.seededTopicIds(7));
        assertEquals(2, replayed.partitionCount("orders.eu"));
        assertEquals(List.of("orders", "orders.eu"), replayed.mirrorTopicNames(MIRROR));

        final Map<String, MirrorOpResult> unknown = c.createMirrorTopics("west", List.of(
            new SourceClusterClient.SourceTopic("t", OTHER_ID, 1, Map.of(), false)));
        assertEquals(Errors.RESOURCE_NOT_FOUND, unknown.get("t").error());
        assertTrue(c.topicId("t").isEmpty());
    }

    @Test
    void shouldRefuseAMirrorTopicWhoseNameExistsWithAnotherId()
    {
        final Controller c = withMirror();
        assertEquals(Errors.NONE.code(), createTopic(c, "orders", 1, 1, Map.of()).errorCode());
        final MirrorOpResult r = c.createMirrorTopic("orders", SOURCE_ID, 1, Map.of(), MIRROR);
        assertEquals(Errors.TOPIC_ALREADY_EXISTS, r.error());
        assertTrue(r.message().contains("orders") && r.message().contains(SOURCE_ID.toString()), r.message());
        assertFalse(c.topicConfig("orders").containsKey(MirrorDefinition.MIRROR_NAME_CONFIG));

        assertEquals(MirrorOpResult.OK, c.createMirrorTopic("other", Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAg"), 1,
            Map.of(), MIRROR));
        final MirrorOpResult sameId = c.createMirrorTopic("third", Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAg"), 1,
            Map.of(), MIRROR);
        assertEquals(Errors.TOPIC_ALREADY_EXISTS, sameId.error());
    }

    @Test
    @DisplayName("AM-10 failback: removing sets mirror.name to M.removed, re-adding the same topic id sets M again")
    void shouldRemoveATopicFromItsMirrorAndReAddItWithTheSameId()
    {
        final Controller c = withMirror();
        c.createMirrorTopic("orders", SOURCE_ID, 2, Map.of("retention.ms", "5000"), MIRROR);
        assertEquals(Errors.INVALID_REQUEST, c.removeTopicFromMirror("orders", "west").error());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, c.removeTopicFromMirror("nope", MIRROR).error());
        assertEquals(Errors.NONE, c.removeTopicFromMirror("orders", MIRROR).error());
        assertEquals("east.removed", c.topicConfig("orders").get(MirrorDefinition.MIRROR_NAME_CONFIG));
        assertEquals(Errors.NONE, c.removeTopicFromMirror("orders", MIRROR).error(), "a retry is fine");
        assertTrue(c.mirrorTopicNames(MIRROR).isEmpty());

        assertEquals(MirrorOpResult.OK, c.createMirror(definition("west")));
        assertEquals(MirrorOpResult.OK, c.createMirrorTopic("owned", Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAw"), 1,
            Map.of(), "west"));
        assertEquals(Errors.INVALID_REQUEST, c.createMirrorTopic("owned", Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAw"),
            1, Map.of(), MIRROR).error(), "a topic in another mirror is not taken over");

        final long end = log.endOffset();
        assertEquals(MirrorOpResult.OK, c.createMirrorTopic("orders", SOURCE_ID, 2, Map.of(), MIRROR));
        assertEquals(MIRROR, c.topicConfig("orders").get(MirrorDefinition.MIRROR_NAME_CONFIG));
        assertEquals("5000", c.topicConfig("orders").get("retention.ms"), "re-adding changes nothing else");
        assertEquals(end + 1, log.endOffset(), "one Config record");
    }

    @Test
    void shouldGrowPartitionsAndNeverShrink()
    {
        final Controller c = withMirror();
        c.createMirrorTopic("orders", SOURCE_ID, 2, Map.of(), MIRROR);
        assertEquals(MirrorOpResult.OK, c.addPartitions("orders", 5));
        assertEquals(5, c.partitionCount("orders"));
        for (int p = 0; p < 5; p++)
        {
            final PartitionState s = c.partition("orders", p).orElseThrow();
            assertEquals(2, s.replicas().size());
            assertEquals(SOURCE_ID, s.topicId());
            assertTrue(s.leader() >= 0);
        }
        assertEquals(Errors.INVALID_PARTITIONS, c.addPartitions("orders", 4).error());
        assertEquals(MirrorOpResult.OK, c.addPartitions("orders", 5));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, c.addPartitions("nope", 5).error());
    }

    @Test
    @DisplayName("AM-12 config sync replaces the topic's configs with the source's and keeps mirror.name")
    void shouldReplaceTopicConfigsWithTheSourcesKeepingMirrorName()
    {
        final Controller c = withMirror();
        c.createMirrorTopic("orders", SOURCE_ID, 1, Map.of("retention.ms", "1000", "segment.ms", "99999"), MIRROR);
        assertEquals(Errors.NONE.code(), alterConfig(c, "orders", "max.message.bytes", "2000",
            AlterConfigOp.OpType.SET).errorCode(), "users may still change a mirror topic's log configs");
        final MirrorOpResult r = c.syncTopicConfigs("orders", Map.of("retention.ms", "2000", "unknown.key", "x"));
        assertTrue(r.isOk());
        assertEquals(Map.of("retention.ms", "2000", "mirror.name", MIRROR), c.topicConfig("orders"));
        final long end = log.endOffset();
        assertEquals("0 config(s) changed", c.syncTopicConfigs("orders", Map.of("retention.ms", "2000")).message());
        assertEquals(end, log.endOffset(), "nothing appended when in step");
    }

    @Test
    @DisplayName("AM-09 failover bumps leader epochs above the source's, keeping leader and ISR, and raises the pid floor")
    void shouldBumpLeaderEpochsAboveAMinimumAndRaiseTheProducerIdFloor()
    {
        final Controller c = withMirror();
        c.createMirrorTopic("orders", SOURCE_ID, 3, Map.of(), MIRROR);
        final PartitionState p0 = c.partition("orders", 0).orElseThrow();
        final PartitionState p1 = c.partition("orders", 1).orElseThrow();
        final EpochBumpResult r = c.bumpLeaderEpochs(SOURCE_ID, Map.of(0, 17, 1, -1, 9, 3), 5_000_000L);
        assertTrue(r.isOk());
        assertEquals(new EpochBumpResult.PartitionEpoch(Errors.NONE, 17), r.partitions().get(0));
        assertEquals(new EpochBumpResult.PartitionEpoch(Errors.NONE, p1.leaderEpoch() + 1), r.partitions().get(1));
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, r.partitions().get(9).error());
        final PartitionState after = c.partition("orders", 0).orElseThrow();
        assertEquals(p0.leader(), after.leader());
        assertEquals(p0.isr(), after.isr());
        assertEquals(17, after.leaderEpoch());
        assertEquals(p0.partitionEpoch() + 1, after.partitionEpoch());
        assertEquals(0, c.partition("orders", 2).orElseThrow().leaderEpoch(), "unlisted partitions are untouched");

        final long start = c.allocateProducerIds(new AllocateProducerIdsRequestData().setBrokerId(1)
            .setBrokerEpoch(c.brokerEpoch(1))).producerIdStart();
        assertTrue(start >= 5_000_000L, "block at " + start);
        assertEquals(Errors.UNKNOWN_TOPIC_ID, c.bumpLeaderEpochs(Uuid.randomUuid(), Map.of(0, 1), -1).error());
    }

    @Test
    @DisplayName("AM-09 the producer id floor, mirrors and mirror topics survive a controller restart (replay)")
    void shouldKeepTheFloorAndMirrorsAcrossAReplay()
    {
        final Controller before = withMirror();
        before.createMirrorTopic("orders", SOURCE_ID, 2, Map.of("retention.ms", "7"), MIRROR);
        before.raiseProducerIdFloor(9_000_000L);
        before.raiseProducerIdFloor(10L);
        final Controller after = newController();
        assertEquals(before.mirrors(), after.mirrors());
        assertEquals(9_000_000L, after.nextProducerIdBlockStart());
        assertEquals(Map.of("retention.ms", "7", "mirror.name", MIRROR), after.topicConfig("orders"));
        assertEquals(SOURCE_ID, after.topicId("orders").orElseThrow());
    }

    @Test
    @DisplayName("AM-09 the producer id floor survives a crash of the controller's durable metadata log")
    void shouldKeepTheFloorOnKafkasLogEngineAcrossACrash()
    {
        final TopicPartition metadata = new TopicPartition("__cluster_metadata", 0);
        final DurableLogStore store = new DurableLogStore(List.of(dir), Map.of(), Time.SYSTEM, 0, 0);
        final Controller before = new Controller(new PartitionLogMetadataLog(store.getOrCreate(metadata,
            Uuid.METADATA_TOPIC_ID, PartitionLogMetadataLog.TOPIC_CONFIG)), clock, Map.of());
        registerAndUnfence(before, 1);
        before.createMirror(definition(MIRROR));
        before.raiseProducerIdFloor(123_456L);
        store.crash();
        final DurableLogStore reopened = new DurableLogStore(List.of(dir), Map.of(), Time.SYSTEM, 0, 0);
        try
        {
            final PartitionLog log = reopened.getOrCreate(metadata, Uuid.METADATA_TOPIC_ID,
                PartitionLogMetadataLog.TOPIC_CONFIG);
            final Controller after = new Controller(new PartitionLogMetadataLog(log), clock, Map.of());
            assertEquals(123_456L, after.nextProducerIdBlockStart());
            assertTrue(after.allocateProducerIds(new AllocateProducerIdsRequestData().setBrokerId(1)
                .setBrokerEpoch(after.brokerEpoch(1))).producerIdStart() >= 123_456L);
            assertTrue(after.mirror(MIRROR).isPresent());
        }
        finally
        {
            reopened.close();
        }
    }

    @Test
    void shouldNotLetUsersSetOrDeleteMirrorName()
    {
        final Controller c = withMirror();
        c.createMirrorTopic("orders", SOURCE_ID, 1, Map.of(), MIRROR);
        for (final AlterConfigOp.OpType op : List.of(AlterConfigOp.OpType.SET, AlterConfigOp.OpType.DELETE))
        {
            final var r = alterConfig(c, "orders", MirrorDefinition.MIRROR_NAME_CONFIG, "other", op);
            assertEquals(Errors.INVALID_CONFIG.code(), r.errorCode(), op.toString());
            assertTrue(r.errorMessage().contains("mirror.name") && r.errorMessage().contains("mirror"),
                r.errorMessage());
        }
        assertEquals(MIRROR, c.topicConfig("orders").get(MirrorDefinition.MIRROR_NAME_CONFIG));
        final var created = createTopic(c, "plain", 1, 1, Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR));
        assertEquals(Errors.INVALID_CONFIG.code(), created.errorCode());
        assertTrue(created.errorMessage().contains("mirror.name"), created.errorMessage());
        assertEquals(Errors.NONE.code(), alterConfig(c, "orders", "retention.ms", "5",
            AlterConfigOp.OpType.SET).errorCode(), "other keys of a mirror topic validate with mirror.name present");
    }

    @Test
    void shouldRefuseToDeleteAMirrorWhileTopicsAreAttached()
    {
        final Controller c = withMirror();
        c.createMirrorTopic("orders", SOURCE_ID, 1, Map.of(), MIRROR);
        final MirrorOpResult refused = c.deleteMirror(MIRROR);
        assertEquals(Errors.INVALID_REQUEST, refused.error());
        assertTrue(refused.message().contains("orders") && refused.message().contains("remove the topics"),
            refused.message());
        c.removeTopicFromMirror("orders", MIRROR);
        assertEquals(MirrorOpResult.OK, c.deleteMirror(MIRROR));
        assertTrue(c.mirror(MIRROR).isEmpty());
        assertEquals(Errors.RESOURCE_NOT_FOUND, c.deleteMirror(MIRROR).error());
        assertTrue(newController().mirrors().isEmpty(), "the removal is in the log");
    }

    @Test
    void shouldAppendIncludePatternsOnceEach()
    {
        final Controller c = withMirror();
        assertEquals(MirrorOpResult.OK, c.addMirrorIncludes(MIRROR, List.of("pay.*", "orders.*", "pay.*")));
        assertEquals(List.of("orders.*", "pay.*"), c.mirror(MIRROR).orElseThrow().includeTopics());
        assertEquals(Errors.RESOURCE_NOT_FOUND, c.addMirrorIncludes("west", List.of("x")).error());
    }

    @Test
    void shouldLetKafkasLogConfigIgnoreMirrorNameWhereBrokersBuildLogs()
    {
        final Map<String, String> config = new TreeMap<>(Map.of("retention.ms", "100",
            MirrorDefinition.MIRROR_NAME_CONFIG, MIRROR));
        final LogConfig logConfig = new LogConfig(config, Set.copyOf(config.keySet()));
        assertEquals(100L, logConfig.retentionMs);
    }

    @Test
    @DisplayName("SU-07 a source topic's sync registration set changes through the metadata log, survives replay, "
        + "and a change already in force writes nothing")
    void shouldKeepTheSyncRegistrationSetInTheMetadataLog()
    {
        final Controller c = withMirror();
        assertEquals(MirrorOpResult.OK, c.createMirrorTopic("orders", SOURCE_ID, 1, Map.of(), MIRROR));
        assertEquals(Errors.UNKNOWN_TOPIC_ID, c.changeSyncRegistration(Uuid.randomUuid(), "dr", true).error());
        assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "dr", true));
        assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "dr2", true));
        final long end = log.endOffset();
        assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "dr", true));
        assertEquals(end, log.endOffset(), "no record for a change already in force");
        assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "dr2", false));
        assertEquals(Set.of("dr"), c.registeredMirrors(SOURCE_ID));
        assertEquals(MirrorOpResult.OK, c.setMirrorTopicType(SOURCE_ID, (byte)1));
        assertEquals(Errors.INVALID_REQUEST, c.setMirrorTopicType(SOURCE_ID, (byte)7).error());

        final Controller replayed = newController();
        assertEquals(Set.of("dr"), replayed.registeredMirrors(SOURCE_ID));
    }

    @Test
    @DisplayName("SU-01 effective-type commits numbered by the sync driver: one below the highest applied is "
        + "refused FENCED_LEADER_EPOCH (a late SYNC commit cannot follow the ASYNC one), an unnumbered one always "
        + "applies, the number survives replay, and SYNC is refused for a topic its mirror no longer mirrors")
    void shouldOrderTheDriversTypeCommits()
    {
        final Controller c = withMirror();
        assertEquals(MirrorOpResult.OK, c.createMirrorTopic("orders", SOURCE_ID, 1, Map.of(), MIRROR));
        final long sync = (3L << 32) | 1;
        final long async = (3L << 32) | 2;
        assertEquals(MirrorOpResult.OK, c.setMirrorTopicType(SOURCE_ID, (byte)1, sync));
        assertEquals(MirrorOpResult.OK, c.setMirrorTopicType(SOURCE_ID, (byte)0, async));
        final MirrorOpResult late = c.setMirrorTopicType(SOURCE_ID, (byte)1, sync);
        assertEquals(Errors.FENCED_LEADER_EPOCH, late.error(), late.message());
        assertEquals(Errors.FENCED_LEADER_EPOCH, newController().setMirrorTopicType(SOURCE_ID, (byte)1, sync)
            .error(), "the number is in the metadata log");
        assertEquals(MirrorOpResult.OK, c.setMirrorTopicType(SOURCE_ID, (byte)1, (4L << 32) | 1),
            "a new driver's number ranks above");
        assertEquals(MirrorOpResult.OK, c.setMirrorTopicType(SOURCE_ID, (byte)0), "an operator's ASYNC applies");
        final long end = log.endOffset();
        assertEquals(MirrorOpResult.OK, c.setMirrorTopicType(SOURCE_ID, (byte)0, (4L << 32) | 1));
        assertEquals(end, log.endOffset(), "nothing moved: no record");

        assertEquals(MirrorOpResult.OK, c.removeTopicFromMirror("orders", MIRROR));
        final MirrorOpResult failedOver = c.setMirrorTopicType(SOURCE_ID, (byte)1, (4L << 32) | 9);
        assertEquals(Errors.INVALID_REQUEST, failedOver.error(), failedOver.message());
    }

    @Test
    @DisplayName("SU-07 (admission) a registration that would make the source's registered sync mirrors more than "
        + "its brokers have links for is refused with POLICY_VIOLATION; a link freed by an unregister or a topic "
        + "deletion is admitted")
    void shouldRefuseMoreSyncMirrorsThanLinks()
    {
        final Controller c = withMirror();
        assertEquals(MirrorOpResult.OK, c.createMirrorTopic("orders", SOURCE_ID, 1, Map.of(), MIRROR));
        for (int i = 0; i < MirrorLinks.LINKS_DEFAULT; i++)
        {
            assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "dr-" + i, true));
        }
        final MirrorOpResult refused = c.changeSyncRegistration(SOURCE_ID, "one-too-many", true);
        assertEquals(Errors.POLICY_VIOLATION, refused.error(), refused.message());
        assertTrue(refused.message().contains("dr-0"), refused.message());
        assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "dr-3", true), "already registered");
        assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "dr-3", false));
        assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "one-too-many", true),
            "dr-3's link is free");
        final Controller replayed = newController();
        assertEquals(Errors.POLICY_VIOLATION, replayed.changeSyncRegistration(SOURCE_ID, "dr-3", true).error(),
            "the count survives replay");
        replayed.deleteTopics(new org.apache.kafka.common.message.DeleteTopicsRequestData().setTopicNames(
            List.of("orders")));
        assertEquals(MirrorOpResult.OK, replayed.createMirrorTopic("payments", OTHER_ID, 1, Map.of(), MIRROR));
        assertEquals(MirrorOpResult.OK, replayed.changeSyncRegistration(OTHER_ID, "dr-3", true),
            "the deleted topic took its registrations with it");
    }

    @Test
    @DisplayName("SU-07 (admission) the limit is syncmirror.sync.mirror.links of the controller; a bad value is "
        + "refused when the controller opens")
    void shouldTakeTheSyncMirrorLimitFromConfig()
    {
        final Controller c = new Controller(log, clock, Map.of("cluster.id", "test-cluster",
            MirrorLinks.LINKS_CONFIG, "2"), Controller.seededTopicIds(7));
        registerAndUnfence(c, 1);
        assertEquals(MirrorOpResult.OK, c.createMirror(definition(MIRROR)));
        assertEquals(MirrorOpResult.OK, c.createMirrorTopic("orders", SOURCE_ID, 1, Map.of(), MIRROR));
        assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "dr-0", true));
        assertEquals(MirrorOpResult.OK, c.changeSyncRegistration(SOURCE_ID, "dr-1", true));
        final MirrorOpResult refused = c.changeSyncRegistration(SOURCE_ID, "dr-2", true);
        assertEquals(Errors.POLICY_VIOLATION, refused.error(), refused.message());
        assertTrue(refused.message().contains(MirrorLinks.LINKS_CONFIG), refused.message());
        for (final String bad : List.of("0", "32", "eight"))
        {
            final IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> new Controller(new MemoryMetadataLog(), clock,
                    Map.of(MirrorLinks.LINKS_CONFIG, bad)));
            assertTrue(e.getMessage().contains(MirrorLinks.LINKS_CONFIG), e.getMessage());
        }
    }
}

package io.syncmirror.broker.controller;

import static io.syncmirror.broker.controller.ControllerFixture.alterIsr;
import static io.syncmirror.broker.controller.ControllerFixture.createTopic;
import static io.syncmirror.broker.controller.ControllerFixture.heartbeat;
import static io.syncmirror.broker.controller.ControllerFixture.registerAndUnfence;
import static io.syncmirror.broker.controller.ControllerFixture.registration;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.message.AllocateProducerIdsResponseData;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.PartitionState;

@Timeout(30)
class ControllerTest
{
    private final ManualClock clock = new ManualClock(1_000);
    private final MemoryMetadataLog log = new MemoryMetadataLog();

    private Controller newController(final Map<String, String> config)
    {
        return new Controller(log, clock, config, Controller.seededTopicIds(42));
    }

    private Controller threeBrokers()
    {
        final Controller c = newController(Map.of("cluster.id", "test-cluster"));
        registerAndUnfence(c, 1);
        registerAndUnfence(c, 2);
        registerAndUnfence(c, 3);
        return c;
    }

    @Test
    void shouldStartRegisteredBrokersFencedAndUnfenceThemOnceCaughtUp()
    {
        final Controller c = newController(Map.of());
        final long epoch = c.registerBroker(registration(1, Uuid.randomUuid())).brokerEpoch();
        assertTrue(c.isFenced(1));
        final var lagging = c.heartbeat(new BrokerHeartbeatRequestData().setBrokerId(1).setBrokerEpoch(epoch)
            .setCurrentMetadataOffset(epoch - 1));
        assertTrue(lagging.isFenced());
        assertFalse(lagging.isCaughtUp());
        final var caughtUp = heartbeat(c, 1, epoch);
        assertFalse(caughtUp.isFenced());
        assertTrue(caughtUp.isCaughtUp());
        assertFalse(c.isFenced(1));
    }

    @Test
    void shouldAnswerStaleBrokerEpochAndUnknownBroker()
    {
        final Controller c = threeBrokers();
        assertEquals(Errors.STALE_BROKER_EPOCH.code(), heartbeat(c, 1, c.brokerEpoch(1) + 100).errorCode());
        assertEquals(Errors.BROKER_ID_NOT_REGISTERED.code(), heartbeat(c, 9, 0).errorCode());
    }

    @Test
    void shouldRejectAnotherIncarnationWhileTheSessionIsAliveAndAcceptARetry()
    {
        final Controller c = threeBrokers();
        final Uuid incarnation = Uuid.randomUuid();
        assertEquals(Errors.DUPLICATE_BROKER_REGISTRATION.code(),
            c.registerBroker(registration(1, incarnation)).errorCode());
        clock.advance(9_001);
        final long epoch = c.registerBroker(registration(1, incarnation)).brokerEpoch();
        assertTrue(epoch > 0);
        assertEquals(epoch, c.registerBroker(registration(1, incarnation)).brokerEpoch());
        assertTrue(c.isFenced(1));
    }

    @Test
    void shouldAssignRoundRobinWithTheFirstReplicaLeadingAndDefaultsForMinusOne()
    {
        final Controller c = newController(Map.of("num.partitions", "3", "default.replication.factor", "2"));
        registerAndUnfence(c, 1);
        registerAndUnfence(c, 2);
        registerAndUnfence(c, 3);
        final CreateTopicsResponseData.CreatableTopicResult r = createTopic(c, "t", -1, -1, Map.of());
        assertEquals(Errors.NONE.code(), r.errorCode());
        assertEquals(3, r.numPartitions());
        assertEquals(2, r.replicationFactor());
        final Set<Integer> leaders = new HashSet<>();
        for (int p = 0; p < 3; p++)
        {
            final PartitionState s = c.partition("t", p).orElseThrow();
            assertEquals(2, s.replicas().size());
            assertEquals(s.replicas(), s.isr());
            assertEquals(s.replicas().get(0), s.leader());
            leaders.add(s.leader());
        }
        assertEquals(Set.of(1, 2, 3), leaders, "leadership spreads over the brokers");
        assertEquals(r.topicId(), c.topicId("t").orElseThrow());
    }

    @Test
    void shouldRejectBadTopicsWithKafkasErrors()
    {
        final Controller c = threeBrokers();
        assertEquals(Errors.NONE.code(), createTopic(c, "dup", 1, 1, Map.of()).errorCode());
        assertEquals(Errors.TOPIC_ALREADY_EXISTS.code(), createTopic(c, "dup", 1, 1, Map.of()).errorCode());
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), createTopic(c, "rf", 1, 4, Map.of()).errorCode());
        assertEquals(Errors.INVALID_TOPIC_EXCEPTION.code(), createTopic(c, "bad/name", 1, 1, Map.of()).errorCode());
        assertEquals(Errors.INVALID_PARTITIONS.code(), createTopic(c, "p0", 0, 1, Map.of()).errorCode());
        assertEquals(Errors.INVALID_CONFIG.code(), createTopic(c, "cfg", 1, 1, Map.of("no.such", "1")).errorCode());
        assertEquals(Errors.INVALID_CONFIG.code(),
            createTopic(c, "cfg2", 1, 1, Map.of("retention.ms", "abc")).errorCode());
        assertFalse(c.topicId("rf").isPresent());
    }

    @Test
    void shouldHonourValidateOnly()
    {
        final Controller c = threeBrokers();
        final long end = c.log().endOffset();
        final CreateTopicsRequestData.CreatableTopicCollection topics =
            new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName("v").setNumPartitions(2)
            .setReplicationFactor((short) 3));
        final var result = c.createTopics(new CreateTopicsRequestData().setTopics(topics).setValidateOnly(true))
            .topics().find("v");
        assertEquals(Errors.NONE.code(), result.errorCode());
        assertEquals(2, result.numPartitions());
        assertEquals(end, c.log().endOffset());
        assertFalse(c.topicId("v").isPresent());
    }

    @Test
    void shouldFenceASilentBrokerShrinkIsrsAndMoveLeadership()
    {
        final Controller c = threeBrokers();
        createTopic(c, "t", 6, 3, Map.of());
        clock.advance(5_000);
        heartbeat(c, 2, c.brokerEpoch(2));
        heartbeat(c, 3, c.brokerEpoch(3));
        clock.advance(4_500);
        assertTrue(c.tick());
        assertTrue(c.isFenced(1));
        for (int p = 0; p < 6; p++)
        {
            final PartitionState s = c.partition("t", p).orElseThrow();
            assertFalse(s.isr().contains(1), "ISR " + s.isr());
            assertNotEquals(1, s.leader());
        }
    }

    @Test
    void shouldKeepTheLastIsrMemberAndLeaveNoLeaderUntilItReturns()
    {
        final Controller c = threeBrokers();
        createTopic(c, "solo", 1, 1, Map.of());
        final PartitionState before = c.partition("solo", 0).orElseThrow();
        final int leader = before.leader();
        c.heartbeat(new BrokerHeartbeatRequestData().setBrokerId(leader).setBrokerEpoch(c.brokerEpoch(leader))
            .setCurrentMetadataOffset(c.log().endOffset()).setWantFence(true));
        final PartitionState fenced = c.partition("solo", 0).orElseThrow();
        assertEquals(-1, fenced.leader());
        assertEquals(List.of(leader), fenced.isr());
        assertEquals(before.leaderEpoch() + 1, fenced.leaderEpoch());

        heartbeat(c, leader, c.brokerEpoch(leader));
        final PartitionState back = c.partition("solo", 0).orElseThrow();
        assertEquals(leader, back.leader());
        assertEquals(before.leaderEpoch() + 2, back.leaderEpoch());
    }

    @Test
    void shouldElectAnyLiveReplicaOnlyWithUncleanLeaderElection()
    {
        final Controller c = threeBrokers();
        createTopic(c, "u", 1, 2, Map.of("unclean.leader.election.enable", "true"));
        final PartitionState s = c.partition("u", 0).orElseThrow();
        final int leader = s.leader();
        final int follower = s.replicas().get(1);
        // The leader drops the follower from the ISR, then dies.
        assertEquals(Errors.NONE.code(),
            alterIsr(c, leader, s, List.of(leader), s.leaderEpoch(), s.partitionEpoch()).errorCode());
        fence(c, leader);
        final PartitionState after = c.partition("u", 0).orElseThrow();
        assertEquals(follower, after.leader());
        assertEquals(List.of(follower), after.isr());
    }

    @Test
    void shouldLeaveNoLeaderWithoutUncleanLeaderElection()
    {
        final Controller c = threeBrokers();
        createTopic(c, "clean", 1, 2, Map.of());
        final PartitionState s = c.partition("clean", 0).orElseThrow();
        final int leader = s.leader();
        alterIsr(c, leader, s, List.of(leader), s.leaderEpoch(), s.partitionEpoch());
        fence(c, leader);
        final PartitionState after = c.partition("clean", 0).orElseThrow();
        assertEquals(-1, after.leader());
        assertEquals(List.of(leader), after.isr());
    }

    private void fence(final Controller c, final int brokerId)
    {
        c.heartbeat(new BrokerHeartbeatRequestData().setBrokerId(brokerId).setBrokerEpoch(c.brokerEpoch(brokerId))
            .setCurrentMetadataOffset(c.log().endOffset()).setWantFence(true));
    }

    @Test
    void shouldFenceAlterPartitionByLeaderAndPartitionEpochAsKafkaDoes()
    {
        final Controller c = threeBrokers();
        createTopic(c, "a", 1, 3, Map.of());
        final PartitionState s = c.partition("a", 0).orElseThrow();
        final int leader = s.leader();
        final int follower = s.replicas().get(1);
        final List<Integer> shrunk = new ArrayList<>(s.isr());
        shrunk.remove(Integer.valueOf(follower));

        assertEquals(Errors.FENCED_LEADER_EPOCH.code(),
            alterIsr(c, leader, s, shrunk, s.leaderEpoch() - 1, s.partitionEpoch()).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(),
            alterIsr(c, follower, s, shrunk, s.leaderEpoch(), s.partitionEpoch()).errorCode());
        assertEquals(Errors.INVALID_REQUEST.code(),
            alterIsr(c, leader, s, List.of(follower), s.leaderEpoch(), s.partitionEpoch()).errorCode(),
            "the ISR must keep the leader");

        final var ok = alterIsr(c, leader, s, shrunk, s.leaderEpoch(), s.partitionEpoch());
        assertEquals(Errors.NONE.code(), ok.errorCode());
        assertEquals(shrunk, ok.isr());
        assertEquals(s.partitionEpoch() + 1, ok.partitionEpoch());
        assertEquals(Errors.INVALID_UPDATE_VERSION.code(),
            alterIsr(c, leader, s, s.isr(), s.leaderEpoch(), s.partitionEpoch()).errorCode());

        fence(c, follower);
        final PartitionState now = c.partition("a", 0).orElseThrow();
        assertEquals(Errors.INELIGIBLE_REPLICA.code(),
            alterIsr(c, leader, now, s.isr(), now.leaderEpoch(), now.partitionEpoch()).errorCode());
    }

    @Test
    void shouldAlterAndDeleteTopicConfigsAndRejectUnknownKeys()
    {
        final Controller c = threeBrokers();
        createTopic(c, "cfg", 1, 1, Map.of("retention.ms", "1000"));
        assertEquals(Map.of("retention.ms", "1000"), c.topicConfig("cfg"));
        assertEquals(Errors.NONE.code(), alter(c, "cfg", "retention.ms", null, (byte) 1).errorCode());
        assertEquals(Errors.NONE.code(), alter(c, "cfg", "cleanup.policy", "compact", (byte) 0).errorCode());
        assertEquals(Map.of("cleanup.policy", "compact"), c.topicConfig("cfg"));
        assertEquals(Errors.NONE.code(), alter(c, "cfg", "cleanup.policy", "delete", (byte) 2).errorCode());
        assertEquals(Map.of("cleanup.policy", "compact,delete"), c.topicConfig("cfg"));
        assertEquals(Errors.INVALID_CONFIG.code(), alter(c, "cfg", "bogus.key", "1", (byte) 0).errorCode());
        assertEquals(Errors.INVALID_CONFIG.code(), alter(c, "cfg", "min.insync.replicas", "0", (byte) 0).errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), alter(c, "nope", "retention.ms", "1", (byte) 0)
            .errorCode());
    }

    private static IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse alter(final Controller c,
        final String topic, final String key, final String value, final byte op)
    {
        final IncrementalAlterConfigsRequestData.AlterableConfigCollection configs =
            new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
        configs.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName(key).setValue(value)
            .setConfigOperation(op));
        final IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
            new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
            .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName(topic).setConfigs(configs));
        return c.incrementalAlterConfigs(new IncrementalAlterConfigsRequestData().setResources(resources))
            .responses().get(0);
    }

    @Test
    void shouldDeleteTopicsByNameAndById()
    {
        final Controller c = threeBrokers();
        createTopic(c, "a", 1, 1, Map.of("retention.ms", "5"));
        final Uuid b = createTopic(c, "b", 1, 1, Map.of()).topicId();
        final DeleteTopicsResponseData response = c.deleteTopics(new DeleteTopicsRequestData().setTopics(List.of(
            new DeleteTopicsRequestData.DeleteTopicState().setName("a"),
            new DeleteTopicsRequestData.DeleteTopicState().setTopicId(b),
            new DeleteTopicsRequestData.DeleteTopicState().setName("missing"),
            new DeleteTopicsRequestData.DeleteTopicState().setTopicId(Uuid.randomUuid()))));
        final List<Short> codes = new ArrayList<>();
        response.responses().forEach(r -> codes.add(r.errorCode()));
        assertEquals(List.of(Errors.NONE.code(), Errors.NONE.code(), Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
            Errors.UNKNOWN_TOPIC_ID.code()), codes);
        assertFalse(c.topicId("a").isPresent());
        assertFalse(c.topicId("b").isPresent());
        assertEquals(Map.of(), c.topicConfig("a"));
        assertEquals(Errors.NONE.code(), createTopic(c, "a", 1, 1, Map.of()).errorCode());
    }

    @Test
    void shouldNeverRepeatProducerIdsAcrossARestart()
    {
        Controller c = threeBrokers();
        final Set<Long> starts = new HashSet<>();
        for (int i = 0; i < 3; i++)
        {
            starts.add(allocate(c, 1).producerIdStart());
        }
        c = new Controller(log, clock, Map.of());
        for (int i = 0; i < 3; i++)
        {
            final AllocateProducerIdsResponseData r = allocate(c, 2);
            assertEquals(Errors.NONE.code(), r.errorCode());
            assertEquals(Controller.PRODUCER_ID_BLOCK_SIZE, r.producerIdLen());
            assertTrue(starts.add(r.producerIdStart()), "block " + r.producerIdStart() + " handed out twice");
        }
        assertEquals(Errors.STALE_BROKER_EPOCH.code(), c.allocateProducerIds(new AllocateProducerIdsRequestData()
            .setBrokerId(1).setBrokerEpoch(-5)).errorCode());
    }

    private static AllocateProducerIdsResponseData allocate(final Controller c, final int brokerId)
    {
        return c.allocateProducerIds(new AllocateProducerIdsRequestData().setBrokerId(brokerId)
            .setBrokerEpoch(c.brokerEpoch(brokerId)));
    }

    @Test
    void shouldRebuildTheSameStateByReplayingTheLog()
    {
        final Controller c = threeBrokers();
        createTopic(c, "r", 4, 2, Map.of("retention.ms", "77"));
        final PartitionState s = c.partition("r", 0).orElseThrow();
        alterIsr(c, s.leader(), s, List.of(s.leader()), s.leaderEpoch(), s.partitionEpoch());
        fence(c, 3);
        final Controller replayed = new Controller(log, clock, Map.of());
        for (int p = 0; p < 4; p++)
        {
            assertEquals(c.partition("r", p), replayed.partition("r", p));
        }
        assertEquals(c.topicId("r"), replayed.topicId("r"));
        assertEquals(c.topicConfig("r"), replayed.topicConfig("r"));
        for (int b = 1; b <= 3; b++)
        {
            assertEquals(c.isFenced(b), replayed.isFenced(b));
            assertEquals(c.brokerEpoch(b), replayed.brokerEpoch(b));
        }
    }

    /**
     * Random heartbeats, silences, restarts of brokers, ISR shrinks and controller restarts; after each step
     * the invariants Kafka's controller keeps must hold. A failing seed reproduces.
     */
    @Test
    void shouldKeepElectionInvariantsUnderASeededRandomSchedule()
    {
        for (long seed = 1; seed <= 20; seed++)
        {
            runSimulation(seed);
        }
    }

    private void runSimulation(final long seed)
    {
        final Random random = new Random(seed);
        final MemoryMetadataLog simLog = new MemoryMetadataLog();
        final ManualClock simClock = new ManualClock(0);
        final boolean unclean = random.nextBoolean();
        final Map<String, String> config = Map.of("unclean.leader.election.enable", String.valueOf(unclean));
        Controller c = new Controller(simLog, simClock, config, Controller.seededTopicIds(seed));
        final int brokers = 4;
        final boolean[] alive = new boolean[brokers + 1];
        for (int b = 1; b <= brokers; b++)
        {
            registerAndUnfence(c, b);
            alive[b] = true;
        }
        createTopic(c, "sim", 8, 3, Map.of());
        for (int step = 0; step < 300; step++)
        {
            final int action = random.nextInt(10);
            final int broker = 1 + random.nextInt(brokers);
            if (action < 4)
            {
                for (int b = 1; b <= brokers; b++)
                {
                    if (alive[b])
                    {
                        heartbeat(c, b, c.brokerEpoch(b));
                    }
                }
                simClock.advance(2_000);
            }
            else if (action == 4)
            {
                alive[broker] = false;
            }
            else if (action == 5 && !alive[broker])
            {
                alive[broker] = true;
                simClock.advance(10_000);
                c.tick();
                c.registerBroker(registration(broker, Uuid.randomUuid()));
                heartbeat(c, broker, c.brokerEpoch(broker));
            }
            else if (action == 6)
            {
                final PartitionState s = c.partition("sim", random.nextInt(8)).orElseThrow();
                if (s.leader() != -1 && s.isr().size() > 1)
                {
                    final List<Integer> shrunk = new ArrayList<>(s.isr());
                    shrunk.remove(Integer.valueOf(shrunk.get(shrunk.size() - 1) == s.leader()
                        ? shrunk.get(0) : shrunk.get(shrunk.size() - 1)));
                    assertEquals(Errors.NONE.code(),
                        alterIsr(c, s.leader(), s, shrunk, s.leaderEpoch(), s.partitionEpoch()).errorCode(),
                        "seed " + seed);
                }
            }
            else if (action == 7)
            {
                final PartitionState s = c.partition("sim", random.nextInt(8)).orElseThrow();
                if (s.leader() != -1)
                {
                    final List<Integer> grown = new ArrayList<>(s.isr());
                    for (final int r : s.replicas())
                    {
                        if (!grown.contains(r) && !c.isFenced(r))
                        {
                            grown.add(r);
                        }
                    }
                    assertEquals(Errors.NONE.code(),
                        alterIsr(c, s.leader(), s, grown, s.leaderEpoch(), s.partitionEpoch()).errorCode(),
                        "seed " + seed);
                }
            }
            else if (action == 8)
            {
                c = new Controller(simLog, simClock, config, Controller.seededTopicIds(seed));
            }
            else
            {
                simClock.advance(3_000);
            }
            c.tick();
            checkInvariants(c, seed, unclean);
        }
    }

    private static void checkInvariants(final Controller c, final long seed, final boolean unclean)
    {
        for (int p = 0; p < 8; p++)
        {
            final PartitionState s = c.partition("sim", p).orElseThrow();
            final String where = "seed " + seed + " " + s;
            assertFalse(s.isr().isEmpty(), where);
            assertTrue(s.replicas().containsAll(s.isr()), where);
            if (s.leader() != -1)
            {
                assertFalse(c.isFenced(s.leader()), "a fenced broker leads: " + where);
                assertTrue(s.isr().contains(s.leader()), "the leader is outside the ISR: " + where);
            }
            else
            {
                for (final int member : s.isr())
                {
                    assertTrue(c.isFenced(member), "no leader although ISR member " + member + " is live: " + where);
                }
                if (unclean)
                {
                    for (final int replica : s.replicas())
                    {
                        assertTrue(c.isFenced(replica), "unclean election missed live " + replica + ": " + where);
                    }
                }
            }
            if (s.isr().size() > 1)
            {
                for (final int member : s.isr())
                {
                    assertFalse(c.isFenced(member), "fenced broker in a multi-member ISR: " + where);
                }
            }
        }
    }
}

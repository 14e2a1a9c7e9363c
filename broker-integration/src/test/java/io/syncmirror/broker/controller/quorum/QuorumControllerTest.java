package io.syncmirror.broker.controller.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.message.BrokerHeartbeatRequestData;
import org.apache.kafka.common.message.BrokerRegistrationRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.BrokerHeartbeatRequest;
import org.apache.kafka.common.requests.BrokerHeartbeatResponse;
import org.apache.kafka.common.requests.BrokerRegistrationRequest;
import org.apache.kafka.common.requests.BrokerRegistrationResponse;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.controller.Controller;
import io.syncmirror.broker.controller.ControllerApis;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.network.NodeClient;

/**
 * The controller on the metadata quorum: three voters on loopback, each a {@link Controller} behind
 * {@link ControllerApis} fed by {@link ControllerRaftListener}. Only the Raft leader's controller takes changes,
 * it answers once a majority holds them, every voter's controller applies them, a new leader holds every
 * acknowledged change, and a change a majority never held fails with NOT_CONTROLLER and leaves no trace in the
 * state of the controller that lost leadership.
 */
@Timeout(120)
class QuorumControllerTest
{
    private static final long SESSION_TIMEOUT_MS = 1_500;
    private static final Map<String, String> CONFIG = Map.of("cluster.id", LoopbackVoters.CLUSTER_ID,
        Controller.BROKER_SESSION_TIMEOUT_MS_CONFIG, String.valueOf(SESSION_TIMEOUT_MS));

    private LoopbackVoters voters;
    private final Map<Integer, ControllerVoter> controllers = new HashMap<>();

    /** One voter's controller: its log on the quorum, its APIs and the listener that feeds them. */
    private record ControllerVoter(MetadataQuorum quorum, RaftMetadataLog log, ControllerApis apis)
    {
        NodeClient client()
        {
            return apis.localClient();
        }

        <T> T read(final Function<Controller, T> query) throws Exception
        {
            return apis.onEventThread(query).get(10, TimeUnit.SECONDS);
        }
    }

    @BeforeEach
    void startVoters() throws IOException
    {
        voters = new LoopbackVoters(3);
        voters.ids().forEach(this::startController);
    }

    private void startController(final int id)
    {
        final MetadataQuorum quorum = voters.open(id);
        final RaftMetadataLog log = new RaftMetadataLog(quorum.client(), quorum.raftLog());
        final ControllerApis apis = new ControllerApis(new Controller(log, System::currentTimeMillis, CONFIG));
        quorum.register(new ControllerRaftListener(id, quorum.client(), log, apis,
            committed -> new Controller(committed, System::currentTimeMillis, CONFIG)));
        apis.start();
        quorum.start();
        controllers.put(id, new ControllerVoter(quorum, log, apis));
    }

    private void stopController(final int id)
    {
        voters.stop(id);
        controllers.remove(id).apis().close();
    }

    @AfterEach
    void stopVoters() throws IOException
    {
        voters.close();
        controllers.values().forEach(c -> c.apis().close());
    }

    @Test
    @DisplayName("the Raft leader's controller is the active one: it answers once a majority holds the change, "
        + "every voter's controller applies it, and standbys refuse brokers' RPCs with NOT_CONTROLLER")
    void shouldServeChangesFromTheLeaderOnly() throws Exception
    {
        final ControllerVoter leader = awaitActive(voters.ids());
        final long epoch = registerAndUnfence(leader, 1);
        assertEquals(Errors.NONE, createTopic(leader, "orders", 3));
        // Answered on commit: the change is in the committed log, on a majority, when the answer comes.
        assertTrue(leader.quorum().client().highWatermark().getAsLong() >= leader.log().highWatermark());

        final Map<Integer, PartitionState> expected = partitions(leader, "orders");
        assertEquals(3, expected.size());
        for (final int id : voters.ids())
        {
            final ControllerVoter voter = controllers.get(id);
            LoopbackVoters.waitFor(() -> partitionsQuietly(voter, "orders").equals(expected),
                "voter " + id + " applies the topic");
            assertEquals(epoch, (long) voter.<Long>read(c -> c.brokerEpoch(1)), "voter " + id + "'s broker epoch");
        }

        for (final int id : standbys(leader))
        {
            final ControllerVoter standby = controllers.get(id);
            assertNotController(standby.client().send(createTopicsRequest("refused", 1)));
            assertNotController(standby.client().send(heartbeatRequest(1, epoch, 0)));
            assertEquals(Optional.empty(), standby.read(c -> c.topicId("refused")));
        }
    }

    @Test
    @DisplayName("when the active controller leaves, the new leader holds every acknowledged change, keeps the "
        + "brokers' sessions and takes changes; the old one rejoins as a standby with the same state")
    void shouldFailOverToTheNextLeaderWithEveryAcknowledgedChange() throws Exception
    {
        final ControllerVoter first = awaitActive(voters.ids());
        final long brokerEpoch = registerAndUnfence(first, 1);
        for (int i = 0; i < 10; i++)
        {
            assertEquals(Errors.NONE, createTopic(first, "before-" + i, 2));
        }
        // The broker heartbeats the active controller for longer than a session: a standby that kept the replay
        // time of the broker's registration as its last heartbeat would fence it at once on taking over.
        final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SESSION_TIMEOUT_MS + 500);
        while (System.nanoTime() < until)
        {
            heartbeat(first, 1, brokerEpoch);
            Thread.sleep(SESSION_TIMEOUT_MS / 5);
        }
        assertFalse(first.<Boolean>read(c -> c.isFenced(1)));
        final int firstId = idOf(first);
        final Map<String, Map<Integer, PartitionState>> acknowledged = new TreeMap<>();
        for (int i = 0; i < 10; i++)
        {
            acknowledged.put("before-" + i, partitions(first, "before-" + i));
        }

        stopController(firstId);
        final List<Integer> rest = voters.ids().stream().filter(id -> id != firstId).toList();
        final ControllerVoter second = awaitActive(rest);
        for (final Map.Entry<String, Map<Integer, PartitionState>> topic : acknowledged.entrySet())
        {
            assertEquals(topic.getValue(), partitions(second, topic.getKey()), topic.getKey());
        }
        // Brokers take a while to find the new controller: two of its session ticks pass before a heartbeat.
        Thread.sleep(SESSION_TIMEOUT_MS / 2);
        assertFalse(second.<Boolean>read(c -> c.isFenced(1)), "the broker keeps its session across the failover");
        heartbeat(second, 1, brokerEpoch);
        for (int i = 0; i < 5; i++)
        {
            assertEquals(Errors.NONE, createTopic(second, "after-" + i, 1));
            acknowledged.put("after-" + i, partitions(second, "after-" + i));
        }

        startController(firstId);
        final ControllerVoter rejoined = controllers.get(firstId);
        LoopbackVoters.waitFor(() -> topicNamesQuietly(rejoined).containsAll(acknowledged.keySet()),
            "the rejoined voter applies every change");
        for (final Map.Entry<String, Map<Integer, PartitionState>> topic : acknowledged.entrySet())
        {
            assertEquals(topic.getValue(), partitions(rejoined, topic.getKey()), "rejoined: " + topic.getKey());
        }
        assertFalse(rejoined.log().writable(), "the rejoined voter is a standby");
        assertNotController(rejoined.client().send(createTopicsRequest("refused", 1)));
    }

    @Test
    @DisplayName("a change a majority never held fails with NOT_CONTROLLER when the leader loses the quorum, and "
        + "the state of the controller that lost it no longer holds the change")
    void shouldFailAnUncommittedChangeWhenLeadershipIsLost() throws Exception
    {
        final ControllerVoter leader = awaitActive(voters.ids());
        registerAndUnfence(leader, 1);
        assertEquals(Errors.NONE, createTopic(leader, "kept", 1));
        final List<Integer> followers = standbys(leader);
        followers.parallelStream().forEach(this::stopController);

        final CompletableFuture<CreateTopicsResponse> lost = leader.client().send(createTopicsRequest("lost", 1));
        final ExecutionException failed = assertThrows(ExecutionException.class, () -> lost.get(30, TimeUnit.SECONDS));
        assertInstanceOf(NotControllerException.class, failed.getCause());
        assertEquals(Optional.empty(), leader.read(c -> c.topicId("lost")), "rebuilt from the committed log");
        assertTrue(leader.read(c -> c.topicId("kept")).isPresent());

        followers.forEach(this::startController);
        final ControllerVoter next = awaitActive(voters.ids());
        final List<String> names = next.read(c -> new ArrayList<>(new java.util.TreeSet<>(c.topicNames())));
        for (final int id : voters.ids())
        {
            final ControllerVoter voter = controllers.get(id);
            LoopbackVoters.waitFor(() -> names.equals(topicNamesQuietly(voter)), "voter " + id + " converges");
        }
        assertTrue(names.contains("kept"), names.toString());
    }

    // ------------------------------------------------------------------------------------------------ helpers

    /** The voter whose controller has claimed the leadership every voter in {@code ids} agrees on. */
    private ControllerVoter awaitActive(final List<Integer> ids) throws InterruptedException
    {
        final int leaderId = voters.awaitLeader(ids).id;
        final ControllerVoter leader = controllers.get(leaderId);
        LoopbackVoters.waitFor(() -> leader.log().writable(), "controller " + leaderId + " claims leadership");
        return leader;
    }

    private int idOf(final ControllerVoter voter)
    {
        return controllers.entrySet().stream().filter(e -> e.getValue() == voter).findFirst().orElseThrow().getKey();
    }

    private List<Integer> standbys(final ControllerVoter leader)
    {
        final int leaderId = idOf(leader);
        return voters.ids().stream().filter(id -> id != leaderId).toList();
    }

    private static long registerAndUnfence(final ControllerVoter controller, final int brokerId) throws Exception
    {
        final BrokerRegistrationRequestData.ListenerCollection listeners =
            new BrokerRegistrationRequestData.ListenerCollection();
        listeners.add(new BrokerRegistrationRequestData.Listener().setName("PLAINTEXT").setHost("127.0.0.1")
            .setPort(9000 + brokerId).setSecurityProtocol((short) 0));
        final BrokerRegistrationResponse registered = controller.client().<BrokerRegistrationResponse>send(
            new BrokerRegistrationRequest.Builder(new BrokerRegistrationRequestData().setBrokerId(brokerId)
                .setClusterId(LoopbackVoters.CLUSTER_ID).setIncarnationId(Uuid.randomUuid()).setListeners(listeners)
                .setPreviousBrokerEpoch(-1))).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), registered.data().errorCode());
        final long epoch = registered.data().brokerEpoch();
        heartbeat(controller, brokerId, epoch);
        assertFalse(controller.<Boolean>read(c -> c.isFenced(brokerId)), "unfenced once caught up");
        return epoch;
    }

    private static void heartbeat(final ControllerVoter controller, final int brokerId, final long epoch)
        throws Exception
    {
        final BrokerHeartbeatResponse answer = controller.client().<BrokerHeartbeatResponse>send(
            heartbeatRequest(brokerId, epoch, epoch)).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), answer.data().errorCode());
    }

    private static BrokerHeartbeatRequest.Builder heartbeatRequest(final int brokerId, final long epoch,
        final long appliedOffset)
    {
        return new BrokerHeartbeatRequest.Builder(new BrokerHeartbeatRequestData().setBrokerId(brokerId)
            .setBrokerEpoch(epoch).setCurrentMetadataOffset(appliedOffset));
    }

    private static CreateTopicsRequest.Builder createTopicsRequest(final String name, final int partitions)
    {
        final CreateTopicsRequestData.CreatableTopicCollection topics =
            new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(partitions)
            .setReplicationFactor((short) 1));
        return new CreateTopicsRequest.Builder(new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(10_000));
    }

    private static Errors createTopic(final ControllerVoter controller, final String name, final int partitions)
        throws Exception
    {
        final CreateTopicsResponse answer = controller.client().<CreateTopicsResponse>send(
            createTopicsRequest(name, partitions)).get(10, TimeUnit.SECONDS);
        return Errors.forCode(answer.data().topics().find(name).errorCode());
    }

    private static Map<Integer, PartitionState> partitions(final ControllerVoter controller, final String topic)
        throws Exception
    {
        return controller.read(c ->
        {
            final Map<Integer, PartitionState> out = new TreeMap<>();
            for (int p = 0; p < c.partitionCount(topic); p++)
            {
                final int partition = p;
                c.partition(topic, p).ifPresent(state -> out.put(partition, state));
            }
            return out;
        });
    }

    private static Map<Integer, PartitionState> partitionsQuietly(final ControllerVoter controller,
        final String topic)
    {
        try
        {
            return partitions(controller, topic);
        }
        catch (final Exception e)
        {
            return Map.of();
        }
    }

    private static List<String> topicNamesQuietly(final ControllerVoter controller)
    {
        try
        {
            return controller.read(c -> new ArrayList<>(new java.util.TreeSet<>(c.topicNames())));
        }
        catch (final Exception e)
        {
            return List.of();
        }
    }

    private static void assertNotController(final CompletableFuture<?> answer)
    {
        final ExecutionException failed = assertThrows(ExecutionException.class,
            () -> answer.get(10, TimeUnit.SECONDS));
        assertInstanceOf(NotControllerException.class, failed.getCause(), failed.toString());
    }
}

package io.syncmirror.broker.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.FencedLeaderEpochException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.DeleteTopicsRequestData;
import org.apache.kafka.common.message.DescribeClusterRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.controller.Controller;
import io.syncmirror.broker.controller.ControllerApis;
import io.syncmirror.broker.controller.MemoryMetadataLog;
import io.syncmirror.broker.controller.MirrorController;

/**
 * A controller and three brokers in one JVM, wired as a broker process wires them, with requests and responses
 * passing through their wire formats ({@link WireClient}).
 */
@Timeout(60)
class MetadataClusterTest
{
    private static final String CLUSTER_ID = "test-cluster";
    private static final long SESSION_TIMEOUT_MS = 1_000;
    private static final long HEARTBEAT_INTERVAL_MS = 100;

    private final MemoryMetadataLog log = new MemoryMetadataLog();
    private final Controller controller = new Controller(log, System::currentTimeMillis, Map.of(
        "cluster.id", CLUSTER_ID, "broker.session.timeout.ms", String.valueOf(SESSION_TIMEOUT_MS),
        "default.replication.factor", "1", "num.partitions", "2"));
    private final ControllerApis controllerApis = new ControllerApis(controller);
    private final List<Node> nodes = new ArrayList<>();

    MetadataClusterTest()
    {
        controllerApis.start();
    }

    private final class Node
    {
        final int id;
        final RecordingListener listener = new RecordingListener();
        final BrokerMetadataApplier applier;
        final WireClient toController = new WireClient(controllerApis);
        final BrokerLifecycleManager lifecycle;
        final MetadataApis apis;
        final WireClient client;

        Node(final int id, final Map<String, String> config)
        {
            this.id = id;
            this.applier = new BrokerMetadataApplier(id, 0, listener);
            this.lifecycle = new BrokerLifecycleManager(new BrokerEndpoint(id, "127.0.0.1", 9100 + id, null),
                "PLAINTEXT", CLUSTER_ID, toController, applier, HEARTBEAT_INTERVAL_MS, -1);
            this.apis = new MetadataApis(id, CLUSTER_ID, applier, toController, config);
            this.client = new WireClient(apis);
        }

        void close()
        {
            lifecycle.close();
            toController.disconnect();
        }
    }

    private Node start(final int id, final Map<String, String> config) throws Exception
    {
        final Node node = new Node(id, config);
        nodes.add(node);
        node.lifecycle.start();
        node.lifecycle.awaitRegisteredAndCaughtUp(10_000);
        return node;
    }

    @AfterEach
    void closeAll()
    {
        for (final Node node : nodes)
        {
            node.close();
        }
        controllerApis.close();
    }

    private static void waitFor(final BooleanSupplier condition, final String what) throws InterruptedException
    {
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadlineNs)
            {
                throw new AssertionError("timed out waiting for " + what);
            }
            Thread.sleep(20);
        }
    }

    private static MetadataResponseData metadata(final Node node, final List<String> topics, final boolean autoCreate)
        throws Exception
    {
        final MetadataResponse response = node.client.<MetadataResponse>send(
            new MetadataRequest.Builder(topics, autoCreate)).get(10, TimeUnit.SECONDS);
        return response.data();
    }

    private static CreateTopicsResponse create(final Node node, final String name, final int partitions,
        final int replicationFactor) throws Exception
    {
        final CreateTopicsRequestData.CreatableTopicCollection topics =
            new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(partitions)
            .setReplicationFactor((short) replicationFactor));
        return node.client.<CreateTopicsResponse>send(new CreateTopicsRequest.Builder(
            new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(10_000))).get(10, TimeUnit.SECONDS);
    }

    @Test
    void shouldRegisterCatchUpAndSeeEachOther() throws Exception
    {
        final Node b1 = start(1, Map.of());
        start(2, Map.of());
        start(3, Map.of());
        waitFor(() -> b1.applier.image().liveBrokers().size() == 3, "three live brokers in broker 1's image");
        final DescribeClusterResponse cluster = b1.client.<DescribeClusterResponse>send(
            new DescribeClusterRequest.Builder(new DescribeClusterRequestData())).get(5, TimeUnit.SECONDS);
        assertEquals(CLUSTER_ID, cluster.data().clusterId());
        assertEquals(3, cluster.data().brokers().size());
        assertTrue(b1.lifecycle.brokerEpoch() >= 0);
        assertFalse(b1.lifecycle.isFenced());
    }

    @Test
    void shouldShowACreatedTopicInTheNextMetadataOfTheForwardingBroker() throws Exception
    {
        start(1, Map.of());
        final Node b2 = start(2, Map.of());
        start(3, Map.of());
        waitFor(() -> b2.applier.image().liveBrokers().size() == 3, "three live brokers");
        final CreateTopicsResponse created = create(b2, "orders", 3, 2);
        final var result = created.data().topics().find("orders");
        assertEquals(Errors.NONE.code(), result.errorCode());
        assertNotEquals(Uuid.ZERO_UUID, result.topicId());

        final MetadataResponseData md = metadata(b2, List.of("orders"), false);
        final MetadataResponseData.MetadataResponseTopic topic = md.topics().find("orders");
        assertEquals(Errors.NONE.code(), topic.errorCode());
        assertEquals(result.topicId(), topic.topicId());
        assertEquals(3, topic.partitions().size());
        for (final MetadataResponseData.MetadataResponsePartition p : topic.partitions())
        {
            assertEquals(2, p.replicaNodes().size());
            assertEquals(p.replicaNodes().get(0), p.leaderId());
            assertEquals(0, p.leaderEpoch());
        }
        assertEquals(3, md.brokers().size());
        assertEquals(2, md.controllerId());

        final MetadataResponse all = b2.client.<MetadataResponse>send(MetadataRequest.Builder.allTopics())
            .get(10, TimeUnit.SECONDS);
        assertEquals(1, all.data().topics().size());

        assertEquals(Errors.TOPIC_ALREADY_EXISTS.code(), create(b2, "orders", 1, 1).data().topics().find("orders")
            .errorCode());
        assertEquals(Errors.INVALID_REPLICATION_FACTOR.code(), create(b2, "big", 1, 4).data().topics().find("big")
            .errorCode());
    }

    @Test
    void shouldAutoCreateOnMetadataOnlyWhenAllowed() throws Exception
    {
        final Node b1 = start(1, Map.of());
        final Node b2 = start(2, Map.of("auto.create.topics.enable", "false"));
        final MetadataResponseData refused = metadata(b2, List.of("auto"), true);
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), refused.topics().find("auto").errorCode());
        final MetadataResponseData notAsked = metadata(b1, List.of("auto"), false);
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(), notAsked.topics().find("auto").errorCode());

        final MetadataResponseData created = metadata(b1, List.of("auto"), true);
        final MetadataResponseData.MetadataResponseTopic topic = created.topics().find("auto");
        assertEquals(Errors.NONE.code(), topic.errorCode());
        assertEquals(2, topic.partitions().size(), "num.partitions of the controller");
        assertEquals(1, topic.partitions().get(0).replicaNodes().size());
    }

    @Test
    void shouldMoveLeadershipAwayFromABrokerThatStopsHeartbeating() throws Exception
    {
        final Node b1 = start(1, Map.of());
        final Node b2 = start(2, Map.of());
        waitFor(() -> b1.applier.image().liveBrokers().size() == 2, "two live brokers");
        create(b1, "ha", 4, 2);
        final TopicMetadata before = b1.applier.image().topic("ha").orElseThrow();
        assertTrue(before.partitions().stream().anyMatch(p -> p.leader() == 2));
        b2.close();
        waitFor(() -> b1.applier.image().topic("ha").orElseThrow().partitions().stream()
            .allMatch(p -> p.leader() == 1 && p.isr().equals(List.of(1))), "broker 1 leading everything alone");
        final TopicMetadata after = b1.applier.image().topic("ha").orElseThrow();
        for (int p = 0; p < 4; p++)
        {
            if (before.partitions().get(p).leader() == 2)
            {
                assertEquals(before.partitions().get(p).leaderEpoch() + 1, after.partitions().get(p).leaderEpoch());
            }
        }
        assertTrue(b1.listener.drain().stream().anyMatch(e -> e.startsWith("changed ha-") && e.contains("leader=1")));
        final MetadataResponseData md = metadata(b1, List.of("ha"), false);
        assertEquals(1, md.brokers().size());
        assertFalse(md.topics().find("ha").partitions().get(0).offlineReplicas().isEmpty()
            && md.topics().find("ha").partitions().get(1).offlineReplicas().isEmpty());
    }

    /** Creates topic "slow" on both brokers, which {@code second} takes {@code applyMs} to apply. */
    private static void createSlowOnSecond(final Node first, final Node second, final long applyMs) throws Exception
    {
        waitFor(() -> first.applier.image().liveBrokers().size() == 2, "two live brokers");
        second.listener.slowMs = applyMs;
        second.listener.slowTopic = "slow";
        create(first, "slow", 1, 2);
        waitFor(() -> first.applier.image().topic("slow").isPresent(), "the topic in the first broker's image");
    }

    @Test
    @DisplayName("a metadata batch that takes longer than the session timeout to apply does not fence its broker: "
        + "heartbeats do not wait behind the metadata thread")
    void shouldKeepHeartbeatingWhileAMetadataBatchIsApplied() throws Exception
    {
        final Node b1 = start(1, Map.of());
        final Node b2 = start(2, Map.of());
        createSlowOnSecond(b1, b2, 3 * SESSION_TIMEOUT_MS);
        final long appliedUntilMs = System.currentTimeMillis() + b2.listener.slowMs + SESSION_TIMEOUT_MS;
        while (System.currentTimeMillis() < appliedUntilMs)
        {
            assertFalse(b1.applier.image().registration(2).orElseThrow().fenced(),
                "broker 2 fenced while its metadata thread applied a batch");
            Thread.sleep(50);
        }
        waitFor(() -> b2.applier.image().topic("slow").isPresent(), "broker 2 applied the batch");
        assertFalse(b2.lifecycle.isFenced());
    }

    @Test
    @DisplayName("close returns only once a metadata batch being applied is done: the replicas close next, and "
        + "their rows take one writer at a time")
    void shouldFinishTheBatchBeingAppliedBeforeCloseReturns() throws Exception
    {
        final Node b1 = start(1, Map.of());
        final Node b2 = start(2, Map.of());
        createSlowOnSecond(b1, b2, 1_500);
        assertTrue(b2.listener.slowStarted.await(10, TimeUnit.SECONDS), "broker 2 started applying the topic");
        b2.lifecycle.close();
        assertTrue(b2.listener.drain().stream().anyMatch(e -> e.startsWith("changed slow-0")),
            "close returned while broker 2 was still applying the batch");
    }

    @Test
    void shouldMoveLeadershipBeforeAcknowledgingAControlledShutdown() throws Exception
    {
        final Node b1 = start(1, Map.of());
        final Node b2 = start(2, Map.of());
        waitFor(() -> b1.applier.image().liveBrokers().size() == 2, "two live brokers");
        create(b1, "cs", 4, 2);
        b2.lifecycle.controlledShutdown().get(5, TimeUnit.SECONDS);
        waitFor(() -> b1.applier.image().topic("cs").orElseThrow().partitions().stream()
            .allMatch(p -> p.leader() == 1), "leadership on broker 1");
        assertTrue(b1.applier.image().registration(2).orElseThrow().fenced());
    }

    @Test
    void shouldEnsureAnInternalTopicOnceAndReportCreationErrors() throws Exception
    {
        final Node b1 = start(1, Map.of());
        final TopicMetadata offsets = b1.apis.ensureTopic("__consumer_offsets", 5, (short) 1,
            Map.of("cleanup.policy", "compact")).get(10, TimeUnit.SECONDS);
        assertEquals(5, offsets.partitions().size());
        assertEquals(Map.of("cleanup.policy", "compact"), offsets.config());
        assertEquals(offsets.id(), b1.apis.ensureTopic("__consumer_offsets", 5, (short) 1, Map.of())
            .get(10, TimeUnit.SECONDS).id());
        final Throwable error = org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class, () -> b1.apis.ensureTopic("__transaction_state", 1,
                (short) 3, Map.of()).get(10, TimeUnit.SECONDS)).getCause();
        assertTrue(error instanceof org.apache.kafka.common.errors.InvalidReplicationFactorException,
            error.toString());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
            metadata(b1, List.of("__transaction_state"), true).topics().find("__transaction_state").errorCode(),
            "internal topics are never auto-created by Metadata");
    }

    @Test
    void shouldAlterIsrThroughTheControllerAndFenceAStaleLeaderEpoch() throws Exception
    {
        final Node b1 = start(1, Map.of());
        start(2, Map.of());
        waitFor(() -> b1.applier.image().liveBrokers().size() == 2, "two live brokers");
        create(b1, "isr", 1, 2);
        final PartitionState s = b1.applier.image().topic("isr").orElseThrow().partitions().get(0);
        final Node leader = nodes.get(s.leader() - 1);
        final ControllerIsrChannel channel = new ControllerIsrChannel(leader.id, leader.lifecycle::brokerEpoch,
            leader.toController, leader.applier);
        final PartitionState shrunk = channel.alterIsr(new TopicPartition("isr", 0), s.topicId(), s.leaderEpoch(),
            s.partitionEpoch(), List.of(leader.id)).get(5, TimeUnit.SECONDS);
        assertEquals(List.of(leader.id), shrunk.isr());
        assertEquals(s.partitionEpoch() + 1, shrunk.partitionEpoch());
        assertEquals(s.replicas(), shrunk.replicas());
        final var stale = channel.alterIsr(new TopicPartition("isr", 0), s.topicId(), s.leaderEpoch() - 1,
            shrunk.partitionEpoch(), s.isr());
        final Throwable error = org.junit.jupiter.api.Assertions.assertThrows(
            java.util.concurrent.ExecutionException.class, () -> stale.get(5, TimeUnit.SECONDS)).getCause();
        assertTrue(error instanceof FencedLeaderEpochException, error.toString());
        waitFor(() -> leader.applier.image().topic("isr").orElseThrow().partitions().get(0).isr()
            .equals(List.of(leader.id)), "the shrink in the leader's image");
    }

    @Test
    void shouldAlterAndDescribeTopicConfigsAndDeleteTopics() throws Exception
    {
        final Map<String, String> brokerConfig = new HashMap<>();
        brokerConfig.put("log.retention.hours", "24");
        brokerConfig.put("broker.id", "1");
        final Node b1 = start(1, brokerConfig);
        create(b1, "cfg", 1, 1);

        final IncrementalAlterConfigsRequestData.AlterableConfigCollection ops =
            new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
        ops.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("cleanup.policy")
            .setValue("compact").setConfigOperation((byte) 0));
        final IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
            new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
            .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("cfg").setConfigs(ops));
        final IncrementalAlterConfigsResponse altered = b1.client.<IncrementalAlterConfigsResponse>send(
            new IncrementalAlterConfigsRequest.Builder(new IncrementalAlterConfigsRequestData()
                .setResources(resources))).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), altered.data().responses().get(0).errorCode());
        assertEquals("compact", b1.applier.image().topicConfig("cfg").get("cleanup.policy"),
            "applied before the answer");

        final DescribeConfigsResponse described = b1.client.<DescribeConfigsResponse>send(
            new DescribeConfigsRequest.Builder(new DescribeConfigsRequestData().setIncludeSynonyms(true)
                .setResources(List.of(
                    new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("cfg"),
                    new DescribeConfigsRequestData.DescribeConfigsResource()
                        .setResourceType(ConfigResource.Type.BROKER.id()).setResourceName("1")))))
            .get(10, TimeUnit.SECONDS);
        final DescribeConfigsResponseData.DescribeConfigsResult topic = described.data().results().get(0);
        assertEquals(Errors.NONE.code(), topic.errorCode());
        final DescribeConfigsResponseData.DescribeConfigsResourceResult policy = entry(topic, "cleanup.policy");
        assertEquals("compact", policy.value());
        assertEquals(DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG.id(), policy.configSource());
        final DescribeConfigsResponseData.DescribeConfigsResourceResult retention = entry(topic, "retention.ms");
        assertEquals(String.valueOf(24 * 3600 * 1000L), retention.value());
        assertEquals(DescribeConfigsResponse.ConfigSource.STATIC_BROKER_CONFIG.id(), retention.configSource());
        final DescribeConfigsResponseData.DescribeConfigsResourceResult segment = entry(topic, "segment.bytes");
        assertEquals(DescribeConfigsResponse.ConfigSource.DEFAULT_CONFIG.id(), segment.configSource());

        final DescribeConfigsResponseData.DescribeConfigsResult broker = described.data().results().get(1);
        final DescribeConfigsResponseData.DescribeConfigsResourceResult hours = entry(broker, "log.retention.hours");
        assertEquals("24", hours.value());
        assertTrue(hours.readOnly());

        final DeleteTopicsResponse deleted = b1.client.<DeleteTopicsResponse>send(new DeleteTopicsRequest.Builder(
            new DeleteTopicsRequestData().setTopicNames(List.of("cfg")).setTimeoutMs(10_000)))
            .get(10, TimeUnit.SECONDS);
        assertEquals(Errors.NONE.code(), deleted.data().responses().find("cfg").errorCode());
        assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
            metadata(b1, List.of("cfg"), false).topics().find("cfg").errorCode());
        assertTrue(b1.listener.drain().contains("removed cfg-0"));
    }

    @Test
    void shouldShowMirrorNameReadOnlyAndRefuseItInUserConfigChanges() throws Exception
    {
        final Node b1 = start(1, Map.of());
        final MirrorController mirrors = new MirrorController(controllerApis);
        assertTrue(mirrors.createMirror(new MirrorDefinition("east", "src:9092", Map.of(), List.of("m.*"),
            List.of())).get(10, TimeUnit.SECONDS).isOk());
        final Uuid sourceId = Uuid.fromString("c0ffeeAAAAAAAAAAAAAAAQ");
        assertTrue(mirrors.createMirrorTopic("mt", sourceId, 2, Map.of("retention.ms", "1000"), "east")
            .get(10, TimeUnit.SECONDS).isOk());
        waitFor(() -> b1.applier.image().topic("mt").isPresent() && b1.applier.image().mirror("east").isPresent(),
            "the mirror and its topic in broker 1's image");
        assertEquals(sourceId, b1.applier.image().topic("mt").orElseThrow().id());
        assertEquals(List.of("mt"), b1.applier.image().mirrorTopics("east").stream().map(TopicMetadata::name)
            .toList());

        final DescribeConfigsResponse described = b1.client.<DescribeConfigsResponse>send(
            new DescribeConfigsRequest.Builder(new DescribeConfigsRequestData().setResources(List.of(
                new DescribeConfigsRequestData.DescribeConfigsResource()
                    .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("mt")))))
            .get(10, TimeUnit.SECONDS);
        final DescribeConfigsResponseData.DescribeConfigsResourceResult mirrorName =
            entry(described.data().results().get(0), "mirror.name");
        assertEquals("east", mirrorName.value());
        assertTrue(mirrorName.readOnly());
        assertEquals(DescribeConfigsResponse.ConfigSource.TOPIC_CONFIG.id(), mirrorName.configSource());
        assertEquals("1000", entry(described.data().results().get(0), "retention.ms").value());

        final IncrementalAlterConfigsRequestData.AlterableConfigCollection ops =
            new IncrementalAlterConfigsRequestData.AlterableConfigCollection();
        ops.add(new IncrementalAlterConfigsRequestData.AlterableConfig().setName("mirror.name")
            .setValue("west").setConfigOperation((byte) 0));
        final IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection resources =
            new IncrementalAlterConfigsRequestData.AlterConfigsResourceCollection();
        resources.add(new IncrementalAlterConfigsRequestData.AlterConfigsResource()
            .setResourceType(ConfigResource.Type.TOPIC.id()).setResourceName("mt").setConfigs(ops));
        final IncrementalAlterConfigsResponse altered = b1.client.<IncrementalAlterConfigsResponse>send(
            new IncrementalAlterConfigsRequest.Builder(new IncrementalAlterConfigsRequestData()
                .setResources(resources))).get(10, TimeUnit.SECONDS);
        assertEquals(Errors.INVALID_CONFIG.code(), altered.data().responses().get(0).errorCode());
        assertTrue(altered.data().responses().get(0).errorMessage().contains("mirror.name"));
        assertEquals("east", b1.applier.image().mirrorName("mt").orElseThrow());
    }

    private static DescribeConfigsResponseData.DescribeConfigsResourceResult entry(
        final DescribeConfigsResponseData.DescribeConfigsResult result, final String name)
    {
        for (final DescribeConfigsResponseData.DescribeConfigsResourceResult entry : result.configs())
        {
            if (entry.name().equals(name))
            {
                return entry;
            }
        }
        assertNotNull(null, name + " missing");
        return null;
    }
}

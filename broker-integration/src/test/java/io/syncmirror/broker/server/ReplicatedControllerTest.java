package io.syncmirror.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.network.KafkaNodeClient;
import io.syncmirror.broker.network.NodeClientConfig;
import io.syncmirror.protocol.CreateClusterMirrorRequestData;
import io.syncmirror.protocol.CreateClusterMirrorResponseData;
import io.syncmirror.protocol.DescribeClusterMirrorsRequestData;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorWireClient;

/**
 * Three combined nodes whose controller is replicated on Kafka's Raft (controller.quorum.voters): the cluster
 * outlives the node that runs the active controller. Real Kafka clients throughout.
 */
@Timeout(180)
class ReplicatedControllerTest
{
    private EmbeddedCluster cluster;

    @AfterEach
    void close()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    @Test
    @DisplayName("when the node of the active controller stops, another voter takes over within seconds: topics "
        + "are created again, acknowledged records stay readable, and the node rejoins with every change")
    void shouldOutliveTheActiveControllersNode() throws Exception
    {
        cluster = EmbeddedCluster.startWithQuorum(3, 3, Map.of(BrokerConfig.DEFAULT_REPLICATION_FACTOR_CONFIG, "3",
            BrokerConfig.MIN_INSYNC_REPLICAS_CONFIG, "2"));
        try (Admin admin = admin(cluster.bootstrapServers()))
        {
            admin.createTopics(List.of(new NewTopic("before", 3, (short) 3))).all().get(30, TimeUnit.SECONDS);
        }
        final List<String> written = produce("before", 0, 100);

        final int active = cluster.awaitActiveController(30_000);
        cluster.stopBroker(active);
        final String survivors = String.join(",", IntStream.rangeClosed(1, 3).filter(n -> n != active)
            .mapToObj(n -> "127.0.0.1:" + cluster.port(n)).toList());
        final long stoppedNs = System.nanoTime();
        try (Admin admin = admin(survivors))
        {
            admin.createTopics(List.of(new NewTopic("after", 2, (short) 2))).all().get(60, TimeUnit.SECONDS);
            final long failoverMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - stoppedNs);
            System.out.println("topic created " + failoverMs + " ms after the active controller's node stopped");
            assertTrue(failoverMs < 15_000, "a topic created " + failoverMs + " ms after the failover");
            assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).containsAll(Set.of("before", "after")));
        }
        assertEquals(written, consume("before", survivors, written.size()), "every acknowledged record");
        final List<String> more = produce("before", 100, 50);

        cluster.startBroker(active);
        cluster.awaitBrokersRegistered();
        assertTrue(cluster.broker(active).metadata().image().topic("after").isPresent(),
            "the rejoined node applied the change made while it was away");
        try (Admin admin = admin("127.0.0.1:" + cluster.port(active)))
        {
            admin.createTopics(List.of(new NewTopic("rejoined", 1, (short) 3))).all().get(30, TimeUnit.SECONDS);
        }
        final List<String> all = new ArrayList<>(written);
        all.addAll(more);
        assertEquals(all, consume("before", cluster.bootstrapServers(), all.size()));
    }

    @Test
    @DisplayName("a voter whose log dir was wiped refuses to start under the static quorum, with the reason, and the "
        + "quorum goes on; restored, it rejoins")
    void shouldRefuseAVoterThatLostItsLog() throws Exception
    {
        cluster = EmbeddedCluster.startWithQuorum(3, 3, Map.of());
        try (Admin admin = admin(cluster.bootstrapServers()))
        {
            admin.createTopics(List.of(new NewTopic("before-the-wipe", 1, (short) 3))).all().get(30, TimeUnit.SECONDS);
        }
        final int active = cluster.awaitActiveController(30_000);
        final int victim = active == 3 ? 2 : 3;
        cluster.stopBroker(victim);
        final java.nio.file.Path saved = java.nio.file.Files.createTempDirectory("saved-log-dir");
        final java.nio.file.Path logDir = cluster.logDir(victim);
        java.nio.file.Files.move(logDir, saved.resolve("dir"));

        final org.apache.kafka.common.config.ConfigException refused = org.junit.jupiter.api.Assertions.assertThrows(
            org.apache.kafka.common.config.ConfigException.class, () -> cluster.startBroker(victim));
        assertTrue(refused.getMessage().contains("its log was lost"), refused.getMessage());
        assertTrue(!java.nio.file.Files.exists(logDir.resolve(MetaDirectory.FILE_NAME)),
            "the refused start formatted the empty dir");
        try (Admin admin = admin(cluster.bootstrapServers()))
        {
            admin.createTopics(List.of(new NewTopic("while-refused", 1, (short) 2))).all().get(30, TimeUnit.SECONDS);
        }

        org.apache.kafka.common.utils.Utils.delete(logDir.toFile());
        java.nio.file.Files.move(saved.resolve("dir"), logDir);
        cluster.startBroker(victim);
        cluster.awaitBrokersRegistered();
        try (Admin admin = admin(cluster.bootstrapServers()))
        {
            assertTrue(admin.listTopics().names().get(30, TimeUnit.SECONDS).containsAll(Set.of("before-the-wipe",
                "while-refused")));
        }
        org.apache.kafka.common.utils.Utils.delete(saved.toFile());
    }

    @Test
    @DisplayName("a voter's controller listener serves only the controller's RPCs: a standby answers a forwarded "
        + "CreateTopics with NOT_CONTROLLER at once instead of forwarding it again, the active voter creates the "
        + "topic, client APIs such as Metadata are not served there, and a client bootstrapped with "
        + "bootstrap.controllers finds the voters and the leader")
    void shouldServeOnlyTheControllersApisOnTheControllerListener() throws Exception
    {
        final int active = startThreeVoters();
        final int standby = active == 1 ? 2 : 1;
        try (KafkaNodeClient toStandby = controllerListener(standby);
            KafkaNodeClient toActive = controllerListener(active))
        {
            final CreateTopicsResponse refused = toStandby.<CreateTopicsResponse>send(createTopic("forwarded"))
                .get(10, TimeUnit.SECONDS);
            assertEquals(Errors.NOT_CONTROLLER.code(), refused.data().topics().find("forwarded").errorCode(),
                "a standby's answer to a forwarded CreateTopics");

            final CreateTopicsResponse created = toActive.<CreateTopicsResponse>send(createTopic("forwarded"))
                .get(10, TimeUnit.SECONDS);
            assertEquals(Errors.NONE.code(), created.data().topics().find("forwarded").errorCode());

            final java.util.concurrent.ExecutionException notServed = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class, () -> toActive.send(
                    new MetadataRequest.Builder(new MetadataRequestData())).get(10, TimeUnit.SECONDS));
            assertTrue(notServed.getCause() instanceof UnsupportedVersionException, notServed.toString());
        }

        // A client bootstrapped with bootstrap.controllers (KIP-919), as kafka-metadata-quorum.sh
        // --bootstrap-controller is: DescribeCluster names the voters and the leader, DescribeQuorum reaches it.
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, "127.0.0.1:" + cluster.controllerPort(standby));
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        try (Admin controllers = Admin.create(props))
        {
            final org.apache.kafka.clients.admin.DescribeClusterResult described = controllers.describeCluster();
            assertEquals(active, described.controller().get(30, TimeUnit.SECONDS).id(), "the controller named");
            assertEquals(Set.of("1:" + cluster.controllerPort(1), "2:" + cluster.controllerPort(2),
                "3:" + cluster.controllerPort(3)), described.nodes().get(30, TimeUnit.SECONDS).stream()
                .map(node -> node.id() + ":" + node.port()).collect(java.util.stream.Collectors.toSet()));
            assertEquals(active, controllers.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS)
                .leaderId(), "the leader DescribeQuorum names");
        }
        // The same client pointed at a broker listener is told it reached the wrong kind of endpoint.
        props.put(AdminClientConfig.BOOTSTRAP_CONTROLLERS_CONFIG, "127.0.0.1:" + cluster.port(standby));
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
        try (Admin wrongListener = Admin.create(props))
        {
            final java.util.concurrent.ExecutionException mismatched = org.junit.jupiter.api.Assertions.assertThrows(
                java.util.concurrent.ExecutionException.class,
                () -> wrongListener.describeCluster().nodes().get(30, TimeUnit.SECONDS));
            assertTrue(mismatched.getCause() instanceof org.apache.kafka.common.errors.MismatchedEndpointTypeException,
                mismatched.toString());
        }
    }

    @Test
    @DisplayName("mirror operations find the active controller: a standby's controller listener answers a forwarded "
        + "CreateClusterMirror with NOT_CONTROLLER instead of forwarding it again, and a broker whose forwarder last "
        + "reached the voter that then stopped moves on across the voters until the new active one takes it")
    void shouldForwardMirrorOperationsToTheActiveController() throws Exception
    {
        final int active = startThreeVoters();
        final int standby = active == 1 ? 2 : 1;
        final String source = "127.0.0.1:" + cluster.port(standby);
        try (MirrorWireClient toStandby = MirrorWireClient.connect("127.0.0.1", cluster.controllerPort(standby),
            "controller-listener-test", 10_000, 30_000))
        {
            final CreateClusterMirrorResponseData refused = toStandby.send(new CreateClusterMirrorRequestData()
                .setMirrorName("refused").setSourceBootstrapServers(source), CreateClusterMirrorResponseData.class);
            assertEquals(Errors.NOT_CONTROLLER.code(), refused.errorCode(), refused.errorMessage());
        }

        // Each standby forwards one definition to the active voter, which its forwarder then tries first.
        final List<Integer> standbys = IntStream.rangeClosed(1, 3).filter(n -> n != active).boxed().toList();
        for (final int node : standbys)
        {
            assertEquals(Errors.NONE.code(), createMirror(node, "before-" + node, source).errorCode());
        }
        cluster.stopBroker(active);
        final int newActive = cluster.awaitActiveController(30_000);
        final int forwarding = standbys.get(0) == newActive ? standbys.get(1) : standbys.get(0);
        // Its first try finds nobody at the old active voter, and it must move on across the voters.
        final CreateClusterMirrorResponseData created = createMirror(forwarding, "dr", source);
        assertEquals(Errors.NONE.code(), created.errorCode(), created.errorMessage());

        // Describe answers from the broker's applied metadata, which follows the commit: wait for "dr" there.
        final List<String> expected = List.of("before-" + standbys.get(0), "before-" + standbys.get(1), "dr");
        List<String> described = List.of();
        final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (MirrorWireClient toSurvivor = MirrorWireClient.connect("127.0.0.1", cluster.port(forwarding),
            "mirror-forwarding-test", 10_000, 60_000))
        {
            while (!described.contains("dr") && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(50);
                described = toSurvivor.send(new DescribeClusterMirrorsRequestData(),
                    DescribeClusterMirrorsResponseData.class).mirrors().stream()
                    .map(DescribeClusterMirrorsResponseData.MirrorDescription::mirrorName).sorted().toList();
            }
        }
        assertEquals(expected, described,
            "the mirrors the active controllers committed, and not the one the standby refused");
    }

    private CreateClusterMirrorResponseData createMirror(final int node, final String name, final String source)
        throws java.io.IOException
    {
        try (MirrorWireClient toBroker = MirrorWireClient.connect("127.0.0.1", cluster.port(node),
            "mirror-forwarding-test", 10_000, 60_000))
        {
            return toBroker.send(new CreateClusterMirrorRequestData().setMirrorName(name)
                .setSourceBootstrapServers(source), CreateClusterMirrorResponseData.class);
        }
    }

    /** Three combined voters, every broker registered; returns the active controller's node. */
    private int startThreeVoters() throws InterruptedException
    {
        cluster = EmbeddedCluster.startWithQuorum(3, 3, Map.of());
        cluster.awaitBrokersRegistered();
        return cluster.awaitActiveController(30_000);
    }

    private KafkaNodeClient controllerListener(final int node)
    {
        return KafkaNodeClient.start(new Node(node, "127.0.0.1", cluster.controllerPort(node)),
            NodeClientConfig.defaults("controller-listener-test"));
    }

    private static CreateTopicsRequest.Builder createTopic(final String name)
    {
        final CreateTopicsRequestData.CreatableTopicCollection topics =
            new CreateTopicsRequestData.CreatableTopicCollection();
        topics.add(new CreateTopicsRequestData.CreatableTopic().setName(name).setNumPartitions(1)
            .setReplicationFactor((short) 3));
        return new CreateTopicsRequest.Builder(new CreateTopicsRequestData().setTopics(topics).setTimeoutMs(30_000));
    }

    private static Admin admin(final String bootstrap)
    {
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return Admin.create(props);
    }

    /** Values "v{from}".."v{from+count-1}" to partition 0 with acks=all, in order; returns them. */
    private List<String> produce(final String topic, final int from, final int count) throws Exception
    {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        final List<String> values = new ArrayList<>();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
            new StringSerializer()))
        {
            for (int i = from; i < from + count; i++)
            {
                final String value = "v" + i;
                producer.send(new ProducerRecord<>(topic, 0, null, value)).get(60, TimeUnit.SECONDS);
                values.add(value);
            }
        }
        return values;
    }

    private static List<String> consume(final String topic, final String bootstrap, final int count)
    {
        final Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        final List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
            new StringDeserializer()))
        {
            final TopicPartition partition = new TopicPartition(topic, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < count && System.nanoTime() < deadline)
            {
                for (final ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200)))
                {
                    values.add(record.value());
                }
            }
        }
        return values;
    }
}

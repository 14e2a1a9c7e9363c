package io.syncmirror.broker.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.FetchSnapshotRequestData;
import org.apache.kafka.common.message.FetchSnapshotResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchSnapshotRequest;
import org.apache.kafka.common.requests.FetchSnapshotResponse;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.raft.RaftLog;
import org.apache.kafka.server.common.OffsetAndEpoch;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.metadata.MetadataRecord;
import io.syncmirror.broker.network.KafkaNodeClient;
import io.syncmirror.broker.network.NodeClientConfig;

/**
 * Metadata snapshots on a 3-voter quorum with a broker-only fourth node: with Kafka's snapshot and retention keys
 * set small, voters write snapshots, Kafka's Raft log deletes what lies below them (its cleaner runs each minute),
 * a voter that was away past the leader's log start catches up from the leader's snapshot (FetchSnapshot), a
 * restarted broker loads one from the voter it fetches from, a restarted voter loads its own at start, and every
 * voter's controller ends in the same state. Real Kafka clients throughout.
 */
@Timeout(300)
class MetadataSnapshotTest
{
    private static final Map<String, String> SNAPSHOT_OFTEN = Map.of(
        BrokerConfig.METADATA_SNAPSHOT_MAX_NEW_RECORD_BYTES_CONFIG, "2048",
        "metadata.max.retention.bytes", "1",
        BrokerConfig.DEFAULT_REPLICATION_FACTOR_CONFIG, "3");
    /** Kafka's Raft client cleans its log once a minute (a constant of KafkaRaftClient), first a minute in. */
    private static final long CLEANER_WAIT_MS = 150_000;

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
    @DisplayName("a voter and a broker behind the log start catch up from a snapshot, a restarted voter loads its "
        + "own, and every voter's controller holds the same state")
    void shouldCatchUpFromSnapshots() throws Exception
    {
        cluster = EmbeddedCluster.startWithQuorum(4, 3, SNAPSHOT_OFTEN);
        createTopics("before", 0, 20);
        await(() -> snapshotOffset(1) > 0 && snapshotOffset(2) > 0 && snapshotOffset(3) > 0, 30_000,
            "every voter wrote a snapshot");

        final int active = cluster.awaitActiveController(30_000);
        final int away = active == 3 ? 2 : 3;
        final int other = 6 - active - away;
        final long awayEnd = raftLog(away).endOffset().offset();
        cluster.stopBroker(away);
        cluster.stopBroker(4);
        createTopics("while-away", 0, 20, 2);
        try (Admin admin = admin(cluster.bootstrapServers()))
        {
            admin.deleteTopics(List.of("before-0", "before-1", "before-2")).all().get(30, TimeUnit.SECONDS);
        }
        await(() -> raftLog(active).startOffset() > awayEnd && raftLog(other).startOffset() > awayEnd,
            CLEANER_WAIT_MS, "the survivors' logs start past the stopped voter's end " + awayEnd);

        cluster.startBroker(away);
        cluster.startBroker(4);
        cluster.awaitBrokersRegistered();
        await(() -> raftLog(away).startOffset() > awayEnd, 30_000,
            "the returning voter's log starts at the leader's snapshot, past its old end " + awayEnd);
        assertSameControllers("after a voter caught up from the leader's snapshot");
        final Set<String> expected = expectedTopics();
        for (int node = 1; node <= 4; node++)
        {
            final int n = node;
            await(() -> topicsOf(n).equals(expected), 30_000, "node " + n + " holds the topics " + expected);
        }
        produce("while-away-7", cluster.port(4));

        // A voter restarted with a snapshot and a log that starts at it loads the snapshot at start.
        cluster.stopBroker(active);
        cluster.startBroker(active);
        cluster.awaitBrokersRegistered();
        createTopics("after-restart", 0, 2);
        assertSameControllers("after a voter restarted from its own snapshot");
        produce("after-restart-1", cluster.port(active));
    }

    @Test
    @DisplayName("bad FetchSnapshot input from a broker gets Kafka's errors: unknown snapshot, position out of range, "
        + "wrong partition")
    void shouldRefuseBadFetchSnapshots() throws Exception
    {
        cluster = EmbeddedCluster.startWithQuorum(3, 3, SNAPSHOT_OFTEN);
        createTopics("t", 0, 20);
        await(() -> snapshotOffset(1) > 0, 30_000, "voter 1 wrote a snapshot");
        final OffsetAndEpoch id = raftLog(1).latestSnapshotId().orElseThrow();
        try (KafkaNodeClient client = KafkaNodeClient.start(new Node(1, "127.0.0.1", cluster.controllerPort(1)),
            NodeClientConfig.defaults("fetch-snapshot-test")))
        {
            assertEquals(Errors.NONE, fetchSnapshot(client, Topic.CLUSTER_METADATA_TOPIC_NAME, 0, id, 0));
            assertEquals(Errors.SNAPSHOT_NOT_FOUND, fetchSnapshot(client, Topic.CLUSTER_METADATA_TOPIC_NAME, 0,
                new OffsetAndEpoch(id.offset() + 1_000_000, id.epoch()), 0));
            assertEquals(Errors.POSITION_OUT_OF_RANGE, fetchSnapshot(client, Topic.CLUSTER_METADATA_TOPIC_NAME, 0, id,
                1L << 40));
            assertEquals(Errors.POSITION_OUT_OF_RANGE, fetchSnapshot(client, Topic.CLUSTER_METADATA_TOPIC_NAME, 0, id,
                -1));
            assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION, fetchSnapshot(client, "not-metadata", 0, id, 0));
        }
        createTopics("still-serving", 0, 1);
    }

    private Errors fetchSnapshot(final KafkaNodeClient client, final String topic, final int partition,
        final OffsetAndEpoch id, final long position) throws Exception
    {
        final FetchSnapshotRequestData data = new FetchSnapshotRequestData().setReplicaId(99).setMaxBytes(1 << 20)
            .setTopics(new ArrayList<>(List.of(new FetchSnapshotRequestData.TopicSnapshot().setName(topic)
                .setPartitions(new ArrayList<>(List.of(new FetchSnapshotRequestData.PartitionSnapshot()
                    .setPartition(partition).setCurrentLeaderEpoch(-1).setPosition(position)
                    .setSnapshotId(new FetchSnapshotRequestData.SnapshotId().setEndOffset(id.offset())
                        .setEpoch(id.epoch()))))))));
        final FetchSnapshotResponse response = client.<FetchSnapshotResponse>send(
            new FetchSnapshotRequest.Builder(data)).get(30, TimeUnit.SECONDS);
        assertEquals(1, response.data().topics().size(), response.data().toString());
        final FetchSnapshotResponseData.PartitionSnapshot answer = response.data().topics().get(0).partitions().get(0);
        if (answer.errorCode() == Errors.NONE.code())
        {
            assertTrue(answer.unalignedRecords().sizeInBytes() > 0, "a chunk of the snapshot");
            assertEquals(raftLog(1).readSnapshot(id).orElseThrow().sizeInBytes(), answer.size());
        }
        return Errors.forCode(answer.errorCode());
    }

    private void assertSameControllers(final String when) throws Exception
    {
        final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        List<MetadataRecord> first = List.of();
        List<MetadataRecord> mismatch = null;
        while (System.nanoTime() < deadline)
        {
            first = cluster.broker(1).controllerState();
            mismatch = null;
            for (int node = 2; node <= 3; node++)
            {
                final List<MetadataRecord> state = cluster.broker(node).controllerState();
                if (!state.equals(first))
                {
                    mismatch = state;
                }
            }
            if (mismatch == null)
            {
                return;
            }
            Thread.sleep(50);
        }
        assertEquals(first, mismatch, when + ": every voter's controller state");
    }

    private Set<String> expectedTopics() throws Exception
    {
        try (Admin admin = admin(cluster.bootstrapServers()))
        {
            final Set<String> names = new TreeSet<>(admin.listTopics().names().get(30, TimeUnit.SECONDS));
            assertTrue(names.contains("while-away-19") && !names.contains("before-0"), names.toString());
            return names;
        }
    }

    private Set<String> topicsOf(final int node)
    {
        final Set<String> names = new TreeSet<>();
        cluster.broker(node).metadata().image().topics().forEach(t ->
        {
            if (!t.name().startsWith("__"))
            {
                names.add(t.name());
            }
        });
        return names;
    }

    private void createTopics(final String prefix, final int from, final int count) throws Exception
    {
        createTopics(prefix, from, count, 3);
    }

    private void createTopics(final String prefix, final int from, final int count, final int replicationFactor)
        throws Exception
    {
        final List<NewTopic> topics = new ArrayList<>();
        for (int i = from; i < from + count; i++)
        {
            topics.add(new NewTopic(prefix + "-" + i, 1, (short) replicationFactor));
        }
        try (Admin admin = admin(cluster.bootstrapServers()))
        {
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
        }
    }

    private static void produce(final String topic, final int port) throws Exception
    {
        final Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:" + port);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
            new StringSerializer()))
        {
            producer.send(new ProducerRecord<>(topic, "k", "v")).get(60, TimeUnit.SECONDS);
        }
    }

    private RaftLog raftLog(final int node)
    {
        return cluster.broker(node).metadataQuorum().raftLog();
    }

    private long snapshotOffset(final int node)
    {
        return raftLog(node).latestSnapshotId().map(OffsetAndEpoch::offset).orElse(0L);
    }

    private static void await(final BooleanSupplier condition, final long timeoutMs, final String what)
        throws InterruptedException
    {
        final long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMs);
        while (!condition.getAsBoolean())
        {
            if (System.nanoTime() > deadline)
            {
                throw new AssertionError("not within " + timeoutMs + " ms: " + what);
            }
            Thread.sleep(50);
        }
    }

    private static Admin admin(final String bootstrap)
    {
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return Admin.create(props);
    }
}

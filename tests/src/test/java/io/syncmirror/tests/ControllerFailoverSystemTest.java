package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.NotControllerException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.MetadataRequestData;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.tools.MetadataQuorumCommand;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.CleanupMode;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The replicated controller under crashes, on the repo's 3-node example ({@link ProcessCluster}: every node a broker
 * and a controller voter, each its own process): the active controller's node SIGKILLed under an acks=all load, five
 * times at seeded points, and the loss of a majority. Failover time is measured from the kill to the first
 * CreateTopics that succeeds, and printed with its median.
 *
 * <p>The Raft settings are Kafka's defaults, and the bound on electing a new leader is built from them: the
 * followers notice the leader is gone when {@code controller.quorum.fetch.timeout.ms} passes without a fetch
 * answered, a candidate waits a random election timeout between {@code controller.quorum.election.timeout.ms} and
 * twice that, a split vote backs off up to {@code controller.quorum.election.backoff.max.ms}, and one second is
 * allowed for a loaded 2-core machine to schedule it all.
 */
@Tag("system")
class ControllerFailoverSystemTest
{
    private static final String TOPIC = "orders";
    private static final int PARTITIONS = 6;
    private static final int KILLS = 5;
    private static final long SEED = Long.getLong("syncmirror.controller.seed", 16);
    private static final long FETCH_TIMEOUT_MS = 2_000;
    private static final long ELECTION_TIMEOUT_MS = 1_000;
    private static final long ELECTION_BACKOFF_MAX_MS = 1_000;
    private static final long ELECTION_BOUND_MS = FETCH_TIMEOUT_MS + 2 * ELECTION_TIMEOUT_MS +
        ELECTION_BACKOFF_MAX_MS + 1_000;
    /**
     * Kill to the first topic created through the survivors: the election bound and a few of the test's own
     * CreateTopics retries. A forward bouncing between standbys until its 30 s timeout fails it (seen before the
     * controller listener got its own dispatcher).
     */
    private static final long CREATE_BOUND_MS = ELECTION_BOUND_MS + 9_000;
    private static final long WAIT_MS = 60_000;

    /** Kept when a test fails: the brokers' configs and logs explain it. */
    @TempDir(cleanup = CleanupMode.ON_SUCCESS)
    Path dir;

    private static Map<String, String> settings()
    {
        final Map<String, String> settings = new HashMap<>();
        settings.put("controller.quorum.fetch.timeout.ms", Long.toString(FETCH_TIMEOUT_MS));
        settings.put("controller.quorum.election.timeout.ms", Long.toString(ELECTION_TIMEOUT_MS));
        settings.put("controller.quorum.election.backoff.max.ms", Long.toString(ELECTION_BACKOFF_MAX_MS));
        settings.put("broker.heartbeat.interval.ms", "500");
        settings.put("broker.session.timeout.ms", "3000");
        settings.put("replica.lag.time.max.ms", "3000");
        return settings;
    }

    @Test
    @DisplayName("replicated controller: kafka-metadata-quorum describes it; 5 seeded SIGKILLs of the active "
        + "controller's node under acks=all load; a new leader within the Raft timeouts, topics created, dead "
        + "leaders replaced, one image, nothing lost")
    @Timeout(600)
    void shouldOutliveRepeatedCrashesOfTheActiveController() throws Exception
    {
        final Random random = new Random(SEED);
        try (ProcessCluster cluster = new ProcessCluster("quorum", dir, 3, settings(), ProcessCluster.DEFAULT_HEAP))
        {
            cluster.launch().awaitUp();
            try (Admin admin = Clients.admin(cluster.bootstrapServers()))
            {
                Clients.createTopic(admin, TOPIC, PARTITIONS, (short)3, Map.of("min.insync.replicas", "2"));
            }
            describesTheQuorumWithKafkasTool(cluster);
            final AckLedger ledger = new AckLedger(TOPIC);
            final List<Long> failoverMs = new ArrayList<>();
            try (AckedLoad load = new AckedLoad(cluster.bootstrapServers(), ledger, PARTITIONS, SEED, 400).start())
            {
                for (int kill = 1; kill <= KILLS; kill++)
                {
                    final long point = ledger.ackedCount() + 500 + random.nextInt(1_500);
                    Clients.awaitCondition(() -> ledger.ackedCount() >= point, WAIT_MS,
                        "the load never reached " + point + " acknowledgements (" + ledger.failedCount() + " failed)");
                    failoverMs.add(killActiveControllerAndRecover(cluster, ledger, kill));
                }
                load.stop();
            }
            final AckLedger.Verdict verdict = ledger.verify(cluster.bootstrapServers(), PARTITIONS, WAIT_MS);
            System.out.printf("controller failover, kill to first CreateTopics: %s ms, median %d ms; %s%n",
                failoverMs, median(failoverMs), verdict);
            assertTrue(verdict.acked() > 0, "nothing was acknowledged");
            assertEquals(0, verdict.lost(), () -> "acknowledged records lost: " + verdict);
            assertEquals(0, verdict.duplicateAcks(), () -> "offsets acknowledged twice: " + verdict);
            awaitOneImage(cluster);
        }
    }

    /**
     * Kill {@code kill}: SIGKILLs the active controller's node, waits for a new leader (bounded by the Raft
     * timeouts), a successful CreateTopics, a new leader for every partition the node led and acknowledgements on
     * every partition; restarts the node and waits until it is back in every ISR. Returns the failover time.
     */
    private static long killActiveControllerAndRecover(final ProcessCluster cluster, final AckLedger ledger,
        final int kill) throws Exception
    {
        final QuorumInfo before = describeQuorum(cluster.bootstrapServers());
        final int victim = before.leaderId();
        final long[] ackedBefore = ackedOffsets(ledger);
        final long killedNs = System.nanoTime();
        cluster.kill(victim);
        try (Admin survivors = Clients.admin(cluster.bootstrapServersExcept(victim)))
        {
            final QuorumInfo[] after = new QuorumInfo[1];
            Clients.awaitCondition(() ->
            {
                after[0] = describeQuorumQuietly(survivors);
                return after[0] != null && after[0].leaderId() != victim && after[0].leaderEpoch() >
                    before.leaderEpoch();
            }, WAIT_MS, "no new controller leader after node " + victim + " was killed");
            final long electedMs = msSince(killedNs);
            final String probe = "probe-" + kill;
            Clients.awaitCondition(() -> created(survivors, probe), WAIT_MS, "topic " + probe + " never created");
            final long createdMs = msSince(killedNs);
            Clients.awaitCondition(() -> ledAwayFrom(survivors, victim), WAIT_MS,
                "a partition of " + TOPIC + " kept the dead node " + victim + " as its leader");
            final long reelectedMs = msSince(killedNs);
            Clients.awaitCondition(() -> acknowledgedEverywhereAfter(ledger, ackedBefore), WAIT_MS,
                "acknowledgements stopped on some partition after node " + victim + " was killed");
            System.out.printf("kill %d: node %d (leader at epoch %d) SIGKILLed; node %d leads at epoch %d after %d "
                + "ms, first CreateTopics after %d ms, every partition led by a live node after %d ms, load "
                + "acknowledged on every partition after %d ms%n", kill, victim, before.leaderEpoch(),
                after[0].leaderId(), after[0].leaderEpoch(), electedMs, createdMs, reelectedMs, msSince(killedNs));
            assertTrue(electedMs <= ELECTION_BOUND_MS, () -> "a new leader took " + electedMs + " ms, over the "
                + ELECTION_BOUND_MS + " ms the Raft settings allow");
            assertTrue(createdMs <= CREATE_BOUND_MS, () -> "the first topic after the kill took " + createdMs
                + " ms, over " + CREATE_BOUND_MS + " ms: the new controller stalled");
            cluster.launch(victim);
            cluster.awaitUp();
            Clients.awaitCondition(() -> fullIsr(survivors), WAIT_MS,
                "node " + victim + " never rejoined every ISR of " + TOPIC);
            return createdMs;
        }
    }

    @Test
    @DisplayName("replicated controller: with a majority of voters SIGKILLed, controller operations fail with "
        + "Kafka's errors, produce and fetch on the surviving leader go on, and everything resumes when they return")
    @Timeout(300)
    void shouldKeepServingExistingLeadersWithoutAMajority() throws Exception
    {
        try (ProcessCluster cluster = new ProcessCluster("quorum", dir, 3, settings(), ProcessCluster.DEFAULT_HEAP))
        {
            cluster.launch().awaitUp();
            final int survivor;
            final List<byte[]> before = new ArrayList<>();
            try (Admin admin = Clients.admin(cluster.bootstrapServers()))
            {
                Clients.createTopic(admin, TOPIC, 3, (short)3, Map.of("min.insync.replicas", "2"));
                survivor = Clients.describe(admin, TOPIC).partitions().get(0).leader().id();
            }
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
            {
                for (int i = 0; i < 20; i++)
                {
                    final byte[] value = ("before-" + i).getBytes(StandardCharsets.UTF_8);
                    producer.send(new ProducerRecord<>(TOPIC, 0, null, value)).get(30, TimeUnit.SECONDS);
                    before.add(value);
                }
            }
            for (int node = 1; node <= 3; node++)
            {
                if (node != survivor)
                {
                    cluster.kill(node);
                }
            }
            final String alone = "127.0.0.1:" + cluster.port(survivor);

            try (Admin admin = shortAdmin(alone))
            {
                final ExecutionException refused = assertThrows(ExecutionException.class, () -> admin.createTopics(
                    List.of(new NewTopic("without-a-majority", 1, (short)1))).all().get(60, TimeUnit.SECONDS));
                assertTrue(refused.getCause() instanceof TimeoutException ||
                    refused.getCause() instanceof NotControllerException, () -> "CreateTopics without a majority "
                    + "failed with " + refused.getCause());
                final ExecutionException undescribed = assertThrows(ExecutionException.class,
                    () -> admin.describeMetadataQuorum().quorumInfo().get(60, TimeUnit.SECONDS));
                assertInstanceOf(TimeoutException.class, undescribed.getCause(), "DescribeQuorum without a leader");
            }
            // The surviving leader of partition 0 takes acks=1 writes (acks=all needs a second ISR member) and
            // serves what it holds.
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(alone, Map.of(ProducerConfig.ACKS_CONFIG,
                "1", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false)))
            {
                final RecordMetadata written = producer.send(new ProducerRecord<>(TOPIC, 0, null,
                    "alone".getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
                assertEquals(before.size(), written.offset(), "the acks=1 write's offset on the surviving leader");
            }
            final List<ConsumerRecord<byte[], byte[]>> read = Clients.readToEnd(alone, TOPIC, 1, WAIT_MS);
            assertEquals(before.size(), read.size(), "what the surviving leader serves below its high watermark");
            for (int i = 0; i < before.size(); i++)
            {
                assertEquals(new String(before.get(i), StandardCharsets.UTF_8),
                    new String(read.get(i).value(), StandardCharsets.UTF_8), "record " + i);
            }

            for (int node = 1; node <= 3; node++)
            {
                if (node != survivor)
                {
                    cluster.launch(node);
                }
            }
            cluster.awaitUp();
            try (Admin admin = Clients.admin(cluster.bootstrapServers()))
            {
                Clients.awaitCondition(() -> created(admin, "with-a-majority"), WAIT_MS,
                    "CreateTopics never worked again after the majority returned");
                assertTrue(describeQuorum(cluster.bootstrapServers()).leaderId() >= 0, "a leader after the return");
            }
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
            {
                final RecordMetadata written = producer.send(new ProducerRecord<>(TOPIC, 0, null,
                    "after".getBytes(StandardCharsets.UTF_8))).get(60, TimeUnit.SECONDS);
                assertEquals(before.size() + 1, written.offset(), "acks=all after the return, behind the acks=1 write");
            }
            awaitOneImage(cluster);
        }
    }

    /**
     * Kafka's {@code kafka-metadata-quorum.sh describe --status / --replication} against a node, bootstrapped at
     * its client listener ({@code --bootstrap-server}) and at its controller listener ({@code
     * --bootstrap-controller}): the leader the quorum reports and every voter, as DescribeQuorum answers them.
     */
    private static void describesTheQuorumWithKafkasTool(final ProcessCluster cluster) throws Exception
    {
        final int leader = describeQuorum(cluster.bootstrapServers()).leaderId();
        final int node = 1 + new Random(SEED).nextInt(3);
        for (final List<String> bootstrap : List.of(List.of("--bootstrap-server", "127.0.0.1:" + cluster.port(node)),
            List.of("--bootstrap-controller", "127.0.0.1:" + cluster.controllerPort(node))))
        {
            final List<String> statusArgs = new ArrayList<>(bootstrap);
            statusArgs.addAll(List.of("describe", "--status"));
            final KafkaTools.Output status = KafkaTools.run("kafka-metadata-quorum", MetadataQuorumCommand::main,
                statusArgs);
            assertEquals(0, status.status(), status::toString);
            assertTrue(status.out().contains("LeaderId:               " + leader), status::toString);
            assertTrue(status.out().contains("CurrentVoters:") && status.out().contains("\"id\": 1") &&
                status.out().contains("\"id\": 2") && status.out().contains("\"id\": 3"), status::toString);
            final List<String> replicationArgs = new ArrayList<>(bootstrap);
            replicationArgs.addAll(List.of("describe", "--replication"));
            final KafkaTools.Output replication = KafkaTools.run("kafka-metadata-quorum",
                MetadataQuorumCommand::main, replicationArgs);
            assertEquals(0, replication.status(), replication::toString);
            final List<String> rows = replication.out().lines().skip(1).filter(line -> !line.isBlank()).toList();
            assertEquals(3, rows.size(), replication::toString);
            assertEquals(1, rows.stream().filter(row -> row.startsWith(leader + " ") && row.contains("Leader"))
                .count(), replication::toString);
            assertEquals(2, rows.stream().filter(row -> row.contains("Follower")).count(), replication::toString);
            System.out.println("kafka-metadata-quorum " + String.join(" ", bootstrap) + " describe --status:\n"
                + status.out() + "--replication:\n" + replication.out());
        }
    }

    private static Admin shortAdmin(final String bootstrap)
    {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
            AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000, AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
            15_000));
    }

    private static QuorumInfo describeQuorum(final String bootstrap) throws Exception
    {
        try (Admin admin = Clients.admin(bootstrap))
        {
            return admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS);
        }
    }

    private static QuorumInfo describeQuorumQuietly(final Admin admin)
    {
        try
        {
            return admin.describeMetadataQuorum().quorumInfo().get(5, TimeUnit.SECONDS);
        }
        catch (final Exception e)
        {
            return null;
        }
    }

    /**
     * Whether a CreateTopics of {@code topic} succeeds now. Replication factor 2: with a node dead and fenced,
     * 3 replicas cannot be placed (INVALID_REPLICATION_FACTOR, as in Kafka).
     */
    private static boolean created(final Admin admin, final String topic)
    {
        try
        {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short)2))).all().get(10, TimeUnit.SECONDS);
            return true;
        }
        catch (final ExecutionException e)
        {
            // A CreateTopics whose answer was lost with the old leader is sent again and finds the topic made.
            return e.getCause() instanceof org.apache.kafka.common.errors.TopicExistsException;
        }
        catch (final Exception e)
        {
            return false;
        }
    }

    private static boolean ledAwayFrom(final Admin admin, final int node)
    {
        try
        {
            return Clients.describe(admin, TOPIC).partitions().stream()
                .allMatch(p -> p.leader() != null && p.leader().id() != node);
        }
        catch (final Exception e)
        {
            return false;
        }
    }

    private static boolean fullIsr(final Admin admin)
    {
        try
        {
            return Clients.describe(admin, TOPIC).partitions().stream().map(TopicPartitionInfo::isr)
                .allMatch(isr -> isr.size() == 3);
        }
        catch (final Exception e)
        {
            return false;
        }
    }

    private static long[] ackedOffsets(final AckLedger ledger)
    {
        final long[] offsets = new long[PARTITIONS];
        for (int p = 0; p < PARTITIONS; p++)
        {
            offsets[p] = ledger.maxAckedOffset(p);
        }
        return offsets;
    }

    private static boolean acknowledgedEverywhereAfter(final AckLedger ledger, final long[] before)
    {
        for (int p = 0; p < PARTITIONS; p++)
        {
            if (ledger.maxAckedOffset(p) <= before[p])
            {
                return false;
            }
        }
        return true;
    }

    /**
     * Waits until every node answers a Metadata request for every topic with the same brokers, topics, partitions,
     * leaders, leader epochs, replicas and ISRs: each node's image, replayed from the committed metadata log, is the
     * same once each has applied it to the end.
     */
    private static void awaitOneImage(final ProcessCluster cluster) throws InterruptedException
    {
        final String[] images = new String[cluster.size()];
        final long deadline = System.currentTimeMillis() + WAIT_MS;
        while (true)
        {
            for (int node = 1; node <= cluster.size(); node++)
            {
                images[node - 1] = image(cluster.port(node));
            }
            if (java.util.Arrays.stream(images).allMatch(image -> image != null && image.equals(images[0])))
            {
                break;
            }
            assertTrue(System.currentTimeMillis() < deadline, () -> "the nodes' metadata images never agreed:\n" +
                String.join("\n", java.util.Arrays.stream(images).map(String::valueOf).toList()));
            Thread.sleep(200);
        }
        assertNotEquals("", images[0]);
    }

    /** A node's image as its Metadata answer for every topic, in a canonical text; null when it does not answer. */
    private static String image(final int port)
    {
        try (WireClient client = new WireClient(port, 10_000))
        {
            final MetadataResponseData data = ((MetadataResponse)client.roundTrip(ApiKeys.METADATA, (short)12,
                new MetadataRequestData().setTopics(null).setAllowAutoTopicCreation(false))).data();
            final StringBuilder text = new StringBuilder();
            data.brokers().stream().sorted(Comparator.comparingInt(MetadataResponseData.MetadataResponseBroker::nodeId))
                .forEach(b -> text.append("broker ").append(b.nodeId()).append(' ').append(b.port()).append('\n'));
            data.topics().stream().sorted(Comparator.comparing(MetadataResponseData.MetadataResponseTopic::name))
                .forEach(t ->
                {
                    text.append("topic ").append(t.name()).append(' ').append(t.topicId()).append(' ')
                        .append(t.errorCode()).append('\n');
                    t.partitions().stream().sorted(Comparator.comparingInt(
                        MetadataResponseData.MetadataResponsePartition::partitionIndex)).forEach(p -> text
                        .append("  ").append(p.partitionIndex()).append(" leader ").append(p.leaderId())
                        .append(" epoch ").append(p.leaderEpoch()).append(" replicas ").append(p.replicaNodes())
                        .append(" isr ").append(p.isrNodes()).append('\n'));
                });
            return text.toString();
        }
        catch (final Exception e)
        {
            return null;
        }
    }

    private static long msSince(final long startNs)
    {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
    }

    private static long median(final List<Long> values)
    {
        final List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }
}

package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.OffsetOutOfRangeException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.message.AlterConfigsRequestData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.AlterConfigsResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.tools.DeleteRecordsCommand;
import org.apache.kafka.tools.TopicCommand;
import org.apache.kafka.tools.TransactionsCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.replica.Partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The admin APIs workloads and operators call, through Kafka 4.4's own tools and Admin client against a 3-broker
 * cluster: DeleteRecords ({@code kafka-delete-records}), CreatePartitions ({@code kafka-topics --alter
 * --partitions}), DescribeProducers, ListTransactions and DescribeTransactions ({@code kafka-transactions list,
 * describe, describe-producers, find-hanging, abort}), and their errors for bad input.
 */
@Timeout(120)
class AdminToolsTest
{
    private static EmbeddedCluster cluster;
    private static Admin admin;

    @TempDir
    static Path dir;

    @BeforeAll
    static void start()
    {
        cluster = EmbeddedCluster.start(3, Map.of("min.insync.replicas", "2"));
        admin = Clients.admin(cluster.bootstrapServers());
    }

    @AfterAll
    static void stop()
    {
        if (admin != null)
        {
            admin.close();
        }
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private static List<String> withBootstrap(final String... args)
    {
        final java.util.ArrayList<String> argv = new java.util.ArrayList<>(List.of("--bootstrap-server",
            cluster.bootstrapServers()));
        argv.addAll(List.of(args));
        return argv;
    }

    private static void produce(final String topic, final int partition, final int count) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < count; i++)
            {
                producer.send(new ProducerRecord<>(topic, partition, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    private static long offset(final TopicPartition tp, final OffsetSpec spec, final IsolationLevel isolation)
        throws Exception
    {
        final ListOffsetsResult result = admin.listOffsets(Map.of(tp, spec),
            new org.apache.kafka.clients.admin.ListOffsetsOptions(isolation));
        return result.partitionResult(tp).get().offset();
    }

    /** Every replica's log start offset, once all of them reach {@code expected}. */
    private static void awaitReplicasStartAt(final TopicPartition tp, final long expected) throws InterruptedException
    {
        Clients.awaitCondition(() ->
        {
            for (int node = 1; node <= cluster.size(); node++)
            {
                final Partition partition = cluster.broker(node).replicaManager().partitionOrNull(tp);
                if (partition == null || partition.log().logStartOffset() != expected)
                {
                    return false;
                }
            }
            return true;
        }, 15_000, "every replica of " + tp + " starts at " + expected);
    }

    @Test
    @DisplayName("kafka-delete-records moves the log start of the leader and of every follower; past the HW and on "
        + "a compacted topic it is refused with Kafka's errors")
    void shouldDeleteRecords() throws Exception
    {
        final TopicPartition tp = new TopicPartition("purged", 0);
        Clients.createTopic(admin, tp.topic(), 1, (short)3, Map.of());
        produce(tp.topic(), 0, 100);
        final Path json = dir.resolve("delete.json");
        Files.writeString(json, "{\"version\":1,\"partitions\":[{\"topic\":\"purged\",\"partition\":0,\"offset\":40}]}");

        final KafkaTools.Output output = KafkaTools.run("kafka-delete-records", DeleteRecordsCommand::main,
            withBootstrap("--offset-json-file", json.toString()));
        assertEquals(0, output.status(), output.toString());
        assertTrue(output.out().contains("partition: purged-0\tlow_watermark: 40"), output.toString());
        assertEquals(40L, offset(tp, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED));
        awaitReplicasStartAt(tp, 40L);

        // -1 deletes up to the HW.
        assertEquals(100L, admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(-1L))).lowWatermarks().get(tp)
            .get().lowWatermark());
        awaitReplicasStartAt(tp, 100L);

        // Past the HW: OFFSET_OUT_OF_RANGE, nothing moves.
        final ExecutionException pastHw = assertThrows(ExecutionException.class, () -> admin.deleteRecords(
            Map.of(tp, RecordsToDelete.beforeOffset(500L))).lowWatermarks().get(tp).get());
        assertInstanceOf(OffsetOutOfRangeException.class, pastHw.getCause());
        assertEquals(100L, offset(tp, OffsetSpec.earliest(), IsolationLevel.READ_UNCOMMITTED));

        // A topic that is only compacted: Kafka's POLICY_VIOLATION.
        final TopicPartition compacted = new TopicPartition("purged-compacted", 0);
        Clients.createTopic(admin, compacted.topic(), 1, (short)3, Map.of("cleanup.policy", "compact"));
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            producer.send(new ProducerRecord<>(compacted.topic(), 0, "k".getBytes(StandardCharsets.UTF_8),
                "v".getBytes(StandardCharsets.UTF_8))).get();
        }
        final ExecutionException policy = assertThrows(ExecutionException.class, () -> admin.deleteRecords(
            Map.of(compacted, RecordsToDelete.beforeOffset(1L))).lowWatermarks().get(compacted).get());
        assertInstanceOf(PolicyViolationException.class, policy.getCause());
    }

    @Test
    @DisplayName("kafka-topics --alter --partitions grows a topic, the new partitions take records; fewer "
        + "partitions and an assignment of an unknown broker are refused")
    void shouldCreatePartitions() throws Exception
    {
        final String topic = "grown";
        Clients.createTopic(admin, topic, 3, (short)3, Map.of());
        final KafkaTools.Output output = KafkaTools.run("kafka-topics", TopicCommand::main,
            withBootstrap("--alter", "--topic", topic, "--partitions", "6"));
        assertEquals(0, output.status(), output.toString());
        Clients.awaitCondition(() -> partitions(topic) == 6, 15_000, topic + " has 6 partitions");
        final org.apache.kafka.clients.admin.TopicDescription description = Clients.describe(admin, topic);
        for (final org.apache.kafka.common.TopicPartitionInfo info : description.partitions())
        {
            assertEquals(3, info.replicas().size(), "replication factor of partition " + info.partition());
        }
        produce(topic, 5, 10);
        assertEquals(10L, offset(new TopicPartition(topic, 5), OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED));

        final KafkaTools.Output shrink = KafkaTools.run("kafka-topics", TopicCommand::main,
            withBootstrap("--alter", "--topic", topic, "--partitions", "2"));
        assertNotEquals(0, shrink.status(), shrink.toString());
        assertTrue((shrink.out() + shrink.err()).contains("Topic currently has 6 partitions, which is higher than "
            + "the requested 2."), shrink.toString());

        final ExecutionException unknownBroker = assertThrows(ExecutionException.class, () -> admin.createPartitions(
            Map.of(topic, NewPartitions.increaseTo(7, List.of(List.of(1, 2, 99))))).all().get());
        assertInstanceOf(org.apache.kafka.common.errors.InvalidReplicaAssignmentException.class,
            unknownBroker.getCause());
        final ExecutionException same = assertThrows(ExecutionException.class, () -> admin.createPartitions(
            Map.of(topic, NewPartitions.increaseTo(6))).all().get());
        assertInstanceOf(InvalidPartitionsException.class, same.getCause());
        assertEquals(6, partitions(topic));

        // An explicit assignment is honoured.
        admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(7, List.of(List.of(3, 1, 2))))).all().get();
        Clients.awaitCondition(() -> partitions(topic) == 7, 15_000, topic + " has 7 partitions");
        assertEquals(List.of(3, 1, 2), Clients.describe(admin, topic).partitions().get(6).replicas().stream()
            .map(org.apache.kafka.common.Node::id).toList());
    }

    @Test
    @DisplayName("the legacy AlterConfigs replaces a topic's overrides: what it names is set, every other override "
        + "goes back to its default")
    void shouldReplaceTopicConfigsWithAlterConfigs() throws Exception
    {
        final String topic = "reconfigured";
        Clients.createTopic(admin, topic, 1, (short)3, Map.of("retention.ms", "3600000", "max.message.bytes", "2000"));
        final AlterConfigsRequestData request = new AlterConfigsRequestData().setResources(
            new AlterConfigsRequestData.AlterConfigsResourceCollection(List.of(
                new AlterConfigsRequestData.AlterConfigsResource().setResourceType(ConfigResource.Type.TOPIC.id())
                    .setResourceName(topic).setConfigs(new AlterConfigsRequestData.AlterableConfigCollection(List.of(
                        new AlterConfigsRequestData.AlterableConfig().setName("cleanup.policy").setValue("compact"))
                        .iterator()))).iterator()));
        try (WireClient client = new WireClient(cluster.port(2), 10_000))
        {
            final AlterConfigsResponse response = (AlterConfigsResponse)client.roundTrip(ApiKeys.ALTER_CONFIGS,
                ApiKeys.ALTER_CONFIGS.latestVersion(), request);
            assertEquals(Errors.NONE.code(), response.data().responses().get(0).errorCode(),
                String.valueOf(response.data().responses().get(0).errorMessage()));
        }
        final ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        final org.apache.kafka.clients.admin.Config config = admin.describeConfigs(List.of(resource)).all().get()
            .get(resource);
        assertEquals("compact", config.get("cleanup.policy").value());
        assertEquals(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG, config.get("cleanup.policy").source());
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, config.get("retention.ms").source(),
            "an override AlterConfigs did not name is removed");
        assertEquals(ConfigEntry.ConfigSource.DEFAULT_CONFIG, config.get("max.message.bytes").source());

        // A value LogConfig refuses: INVALID_CONFIG, and nothing changes.
        final AlterConfigsRequestData bad = request.duplicate();
        bad.resources().iterator().next().configs().iterator().next().setValue("shred");
        try (WireClient client = new WireClient(cluster.port(1), 10_000))
        {
            final AlterConfigsResponse response = (AlterConfigsResponse)client.roundTrip(ApiKeys.ALTER_CONFIGS,
                ApiKeys.ALTER_CONFIGS.latestVersion(), bad);
            assertEquals(Errors.INVALID_CONFIG.code(), response.data().responses().get(0).errorCode());
        }
        assertEquals("compact", admin.describeConfigs(List.of(resource)).all().get().get(resource)
            .get("cleanup.policy").value());
    }

    private static int partitions(final String topic)
    {
        try
        {
            return Clients.describe(admin, topic).partitions().size();
        }
        catch (final Exception e)
        {
            return -1;
        }
    }

    @Test
    @DisplayName("kafka-transactions list, describe and describe-producers show an open transaction; find-hanging "
        + "finds a transaction no coordinator knows, and abort ends it so the last stable offset moves")
    void shouldFindAndAbortHangingTransactions() throws Exception
    {
        final TopicPartition tp = new TopicPartition("transactional", 0);
        Clients.createTopic(admin, tp.topic(), 1, (short)3, Map.of());

        // An open transaction of a real producer: listed, described, and not hanging.
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
            Map.of("transactional.id", "tools-txn")))
        {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(tp.topic(), 0, null, "open".getBytes(StandardCharsets.UTF_8))).get();

            final KafkaTools.Output list = KafkaTools.run("kafka-transactions", TransactionsCommand::main,
                withBootstrap("list"));
            assertEquals(0, list.status(), list.toString());
            assertTrue(list.out().contains("tools-txn") && list.out().contains("Ongoing"), list.toString());

            final KafkaTools.Output describe = KafkaTools.run("kafka-transactions", TransactionsCommand::main,
                withBootstrap("describe", "--transactional-id", "tools-txn"));
            assertEquals(0, describe.status(), describe.toString());
            assertTrue(describe.out().contains("Ongoing") && describe.out().contains("transactional-0"),
                describe.toString());

            final KafkaTools.Output producers = KafkaTools.run("kafka-transactions", TransactionsCommand::main,
                withBootstrap("describe-producers", "--topic", tp.topic(), "--partition", "0"));
            assertEquals(0, producers.status(), producers.toString());
            assertTrue(producers.out().contains("CurrentTransactionStartOffset"), producers.toString());
            producer.abortTransaction();
        }

        // A transactional batch of a producer id no coordinator handed out, stamped an hour ago: what an old
        // client's lost marker leaves behind. The last stable offset stops at it.
        final long hangingAt = appendForeignTransactionalBatch(tp, 987_654L, System.currentTimeMillis() - 3_600_000L);
        produce(tp.topic(), 0, 3);
        assertEquals(hangingAt, offset(tp, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED));

        final KafkaTools.Output hanging = KafkaTools.run("kafka-transactions", TransactionsCommand::main,
            withBootstrap("find-hanging", "--topic", tp.topic(), "--partition", "0", "--max-transaction-timeout",
                "15"));
        assertEquals(0, hanging.status(), hanging.toString());
        assertTrue(hanging.out().contains("987654"), "the hanging producer is reported: " + hanging);

        final KafkaTools.Output abort = KafkaTools.run("kafka-transactions", TransactionsCommand::main,
            withBootstrap("abort", "--topic", tp.topic(), "--partition", "0", "--start-offset",
                Long.toString(hangingAt)));
        assertEquals(0, abort.status(), abort.toString());
        Clients.awaitCondition(() ->
        {
            try
            {
                return offset(tp, OffsetSpec.latest(), IsolationLevel.READ_COMMITTED)
                    == offset(tp, OffsetSpec.latest(), IsolationLevel.READ_UNCOMMITTED);
            }
            catch (final Exception e)
            {
                return false;
            }
        }, 15_000, "the last stable offset reaches the HW once the hanging transaction is aborted");
        final KafkaTools.Output after = KafkaTools.run("kafka-transactions", TransactionsCommand::main,
            withBootstrap("find-hanging", "--topic", tp.topic(), "--partition", "0"));
        assertTrue(!after.out().contains("987654"), "nothing hangs after the abort: " + after);
    }

    /** Produces one transactional batch of {@code producerId} epoch 0 straight to the leader; returns its offset. */
    private static long appendForeignTransactionalBatch(final TopicPartition tp, final long producerId,
        final long timestamp) throws Exception
    {
        final int leader = Clients.leaderOf(admin, tp.topic());
        final MemoryRecords records = MemoryRecords.withTransactionalRecords(Compression.NONE, producerId, (short)0, 0,
            new SimpleRecord(timestamp, null, "hanging".getBytes(StandardCharsets.UTF_8)));
        final ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData().setName(tp.topic()).setPartitionData(List.of(
            new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(records))));
        try (WireClient client = new WireClient(cluster.port(leader), 10_000))
        {
            final ProduceResponse response = (ProduceResponse)client.roundTrip(ApiKeys.PRODUCE, (short)9,
                new ProduceRequestData().setAcks((short)-1).setTimeoutMs(10_000).setTopicData(topics));
            final ProduceResponseData.PartitionProduceResponse partition = response.data().responses().iterator()
                .next().partitionResponses().get(0);
            assertEquals(Errors.NONE.code(), partition.errorCode(), String.valueOf(partition.errorMessage()));
            return partition.baseOffset();
        }
    }
}

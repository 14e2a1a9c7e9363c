package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.tools.consumer.group.ConsumerGroupCommand;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Kafka 4.4's own {@code kafka-consumer-groups} tool ({@link ConsumerGroupCommand}), run in this JVM against a
 * 3-broker cluster; not thread-safe, as the tool prints to {@code System.out} and {@code System.err}.
 *
 * <p>The tool is driven through its {@code main}, the entry point a person uses. {@code main} only calls
 * {@code Exit} on a usage error, which {@link KafkaTools} turns into an exit status: a usage error fails the
 * test instead of ending the JVM. Both protocols are covered where they differ on the broker: the classic group
 * is described through DescribeGroups, the {@code group.protocol=consumer} group through ConsumerGroupDescribe.
 */
@Timeout(120)
class ConsumerGroupCommandTest
{
    /** Committed offsets per partition: partition p holds {@code RECORDS_PER_PARTITION[p]} records. */
    private static final long[] RECORDS_PER_PARTITION = {10, 20, 30};
    private static final long[] COMMITTED = {4, 15, 30};
    private static final long RESET_TO_OFFSET = 2;

    private static EmbeddedCluster cluster;
    private static Admin admin;

    /** What one run of the tool printed. */
    private record ToolOutput(String out, String err)
    {
    }

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

    private static ToolOutput runTool(final String... args)
    {
        final List<String> argv = new ArrayList<>(List.of("--bootstrap-server", cluster.bootstrapServers()));
        argv.addAll(List.of(args));
        final KafkaTools.Output output;
        try
        {
            output = KafkaTools.run("kafka-consumer-groups", ConsumerGroupCommand::main, argv);
        }
        catch (final Exception e)
        {
            throw new AssertionError("kafka-consumer-groups " + String.join(" ", args) + " failed", e);
        }
        if (output.status() != 0)
        {
            fail("kafka-consumer-groups exited with " + output);
        }
        return new ToolOutput(output.out(), output.err());
    }

    private static void createTopicWithRecords(final String topic) throws Exception
    {
        Clients.createTopic(admin, topic, RECORDS_PER_PARTITION.length, (short)3, Map.of());
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int p = 0; p < RECORDS_PER_PARTITION.length; p++)
            {
                for (int i = 0; i < RECORDS_PER_PARTITION[p]; i++)
                {
                    producer.send(new ProducerRecord<>(topic, p, null, ("v" + i).getBytes(StandardCharsets.UTF_8)));
                }
            }
            producer.flush();
        }
    }

    private static KafkaConsumer<byte[], byte[]> groupConsumer(final String group, final String protocol)
    {
        return Clients.consumer(cluster.bootstrapServers(), Map.of(
            ConsumerConfig.GROUP_ID_CONFIG, group,
            ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol));
    }

    /** Subscribes, polls until this sole member owns every partition and read them all, then commits COMMITTED. */
    private static void joinConsumeAndCommit(final KafkaConsumer<byte[], byte[]> consumer, final String topic)
    {
        consumer.subscribe(List.of(topic));
        final long expected = RECORDS_PER_PARTITION[0] + RECORDS_PER_PARTITION[1] + RECORDS_PER_PARTITION[2];
        final long deadlineMs = System.currentTimeMillis() + 60_000;
        long consumed = 0;
        while (consumed < expected || consumer.assignment().size() < RECORDS_PER_PARTITION.length)
        {
            assertTrue(System.currentTimeMillis() < deadlineMs,
                "consumed " + consumed + " of " + expected + " with assignment " + consumer.assignment());
            consumed += consumer.poll(Duration.ofMillis(200)).count();
        }
        final Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (int p = 0; p < COMMITTED.length; p++)
        {
            offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata(COMMITTED[p]));
        }
        consumer.commitSync(offsets);
    }

    private static Map<TopicPartition, Long> committedOffsets(final String group) throws Exception
    {
        final Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get()
            .forEach((tp, om) -> offsets.put(tp, om.offset()));
        return offsets;
    }

    private static Map<TopicPartition, Long> uniform(final String topic, final long[] perPartition)
    {
        final Map<TopicPartition, Long> offsets = new HashMap<>();
        for (int p = 0; p < perPartition.length; p++)
        {
            offsets.put(new TopicPartition(topic, p), perPartition[p]);
        }
        return offsets;
    }

    private static List<String> lines(final String text)
    {
        return text.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
    }

    /** The group's state as Admin describes it, or null while the cluster does not answer. */
    private static GroupState groupState(final String group)
    {
        try
        {
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get().groupState();
        }
        catch (final ExecutionException e)
        {
            return null;
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    @DisplayName("--list, --describe, --reset-offsets --execute, --delete on a group whose member committed and left")
    void shouldListDescribeResetAndDeleteAnEmptyGroupWithCommittedOffsets(final String protocol) throws Exception
    {
        final String topic = "cgc-lifecycle-" + protocol;
        final String group = "cgc-lifecycle-group-" + protocol;
        createTopicWithRecords(topic);
        try (KafkaConsumer<byte[], byte[]> consumer = groupConsumer(group, protocol))
        {
            joinConsumeAndCommit(consumer, topic);
        }
        Clients.awaitCondition(() -> groupState(group) == GroupState.EMPTY, 30_000,
            "the group never became Empty after its only member closed");

        assertTrue(lines(runTool("--list").out()).contains(group), "--list does not show " + group);

        final ToolOutput describe = runTool("--describe", "--group", group);
        final List<String> header = lines(describe.out()).stream().filter(l -> l.startsWith("GROUP")).toList();
        assertEquals(1, header.size(), "--describe printed no single header: " + describe.out());
        assertEquals(List.of("GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG", "CONSUMER-ID",
            "HOST", "CLIENT-ID"), List.of(header.get(0).split("\\s+")), "--describe columns");
        final Map<Integer, String[]> rows = new HashMap<>();
        for (final String line : lines(describe.out()))
        {
            final String[] columns = line.split("\\s+");
            if (columns[0].equals(group))
            {
                assertEquals(topic, columns[1], line);
                rows.put(Integer.parseInt(columns[2]), columns);
            }
        }
        assertEquals(RECORDS_PER_PARTITION.length, rows.size(), "--describe rows: " + describe.out());
        for (int p = 0; p < RECORDS_PER_PARTITION.length; p++)
        {
            final String[] row = rows.get(p);
            assertEquals(Long.toString(COMMITTED[p]), row[3], "CURRENT-OFFSET of partition " + p);
            assertEquals(Long.toString(RECORDS_PER_PARTITION[p]), row[4], "LOG-END-OFFSET of partition " + p);
            assertEquals(Long.toString(RECORDS_PER_PARTITION[p] - COMMITTED[p]), row[5], "LAG of partition " + p);
            assertEquals(List.of("-", "-", "-"), List.of(row[6], row[7], row[8]), "an Empty group has no owner");
        }
        assertTrue(describe.err().contains("Consumer group '" + group + "' has no active members."),
            "--describe of an Empty group: " + describe.err());

        final ToolOutput reset = runTool("--reset-offsets", "--group", group, "--topic", topic,
            "--to-offset", Long.toString(RESET_TO_OFFSET), "--execute");
        assertTrue(lines(reset.out()).stream().anyMatch(l -> l.matches("GROUP\\s+TOPIC\\s+PARTITION\\s+NEW-OFFSET")),
            "--reset-offsets printed no plan: " + reset.out());
        assertEquals(uniform(topic, new long[] {RESET_TO_OFFSET, RESET_TO_OFFSET, RESET_TO_OFFSET}),
            committedOffsets(group), "committed offsets after --reset-offsets --execute");

        final ToolOutput delete = runTool("--delete", "--group", group);
        assertTrue(delete.out().contains("Deletion of requested consumer groups ('" + group + "') was successful."),
            "--delete: " + delete.out());
        assertFalse(lines(runTool("--list").out()).contains(group), "--list still shows the deleted " + group);
        assertEquals(Map.of(), committedOffsets(group), "a deleted group keeps no offsets");
    }

    /**
     * Kafka 4.4's answer for a group that never existed: ConsumerGroupDescribe and then DescribeGroups (v6) both
     * answer GROUP_ID_NOT_FOUND, Admin fails the describe with GroupIdNotFoundException, and the tool prints it as
     * its error and returns (Kafka's own DescribeConsumerGroupTest.testDescribeNonExistingGroup expects the same).
     */
    @ParameterizedTest(name = "--describe {0}")
    @ValueSource(strings = {"--offsets", "--members", "--state"})
    @DisplayName("--describe of a group that never existed prints Kafka's GroupIdNotFoundException error and returns")
    void shouldReportThatAnUnknownGroupIsNotFound(final String describeType)
    {
        final ToolOutput describe = runTool("--describe", "--group", "cgc-no-such-group", describeType);
        assertTrue(describe.out().contains("Error: Executing consumer group command failed due to "
            + "org.apache.kafka.common.errors.GroupIdNotFoundException: Group cgc-no-such-group not found."),
            "--describe of an unknown group: " + describe);
        assertFalse(describe.out().contains("GROUP"), "a table for a group that does not exist: " + describe);
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    @DisplayName("--reset-offsets --execute on a group with an active member is refused with Kafka's message")
    void shouldRefuseToResetOffsetsOfAGroupWithAnActiveMember(final String protocol) throws Exception
    {
        final String topic = "cgc-active-" + protocol;
        final String group = "cgc-active-group-" + protocol;
        createTopicWithRecords(topic);
        try (KafkaConsumer<byte[], byte[]> consumer = groupConsumer(group, protocol))
        {
            joinConsumeAndCommit(consumer, topic);
            Clients.awaitCondition(() -> groupState(group) == GroupState.STABLE, 30_000,
                "the group with one member never became Stable");

            final ToolOutput reset = runTool("--reset-offsets", "--group", group, "--topic", topic,
                "--to-offset", "0", "--execute");
            assertTrue(reset.out().contains("Error: Assignments can only be reset if the group '" + group
                + "' is inactive, but the current state is Stable."), "--reset-offsets on an active group: " + reset);
            assertEquals(uniform(topic, COMMITTED), committedOffsets(group),
                "a refused reset changed the committed offsets");
        }
    }
}

package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.JoinGroupRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Unmodified Kafka 4.4 consumers with subscribe() against a 3-broker cluster whose group coordinator is Kafka's
 * own: under both group protocols members share partitions, a leaving member's partitions move and committed
 * offsets resume exactly; a static member comes back without a rebalance; the group survives the loss of its
 * coordinator's broker; and malformed group requests get Kafka's error codes.
 */
@Timeout(240)
class ConsumerGroupsTest
{
    private static final int PARTITIONS = 12;
    private static final int FIRST_BATCH = 20;
    private static final int SECOND_BATCH = 10;

    private static EmbeddedCluster cluster;

    @BeforeAll
    static void start()
    {
        cluster = EmbeddedCluster.start(3, Map.of("min.insync.replicas", "2"));
    }

    @AfterAll
    static void stop()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    private static void createTopic(final String topic) throws Exception
    {
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.createTopic(admin, topic, PARTITIONS, (short) 3, Map.of());
        }
    }

    /** Writes {@code count} records to every partition, valued by partition and sequence. */
    private static void produce(final String topic, final int first, final int count) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int partition = 0; partition < PARTITIONS; partition++)
            {
                for (int i = first; i < first + count; i++)
                {
                    producer.send(new ProducerRecord<>(topic, partition, null,
                        (partition + "-" + i).getBytes(StandardCharsets.UTF_8)));
                }
            }
            producer.flush();
        }
    }

    private static KafkaConsumer<byte[], byte[]> member(final String group, final String protocol,
        final Map<String, Object> extra)
    {
        final Map<String, Object> props = new HashMap<>(extra);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, protocol);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 7);
        if (protocol.equals("classic"))
        {
            props.putIfAbsent(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
            props.putIfAbsent(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 500);
        }
        return Clients.consumer(cluster.bootstrapServers(), props);
    }

    /**
     * Polls every member in turn (one thread, as each consumer needs) and commits what each read after each poll,
     * until {@code done} holds; records go to {@code read} keyed by partition and offset, counting duplicates.
     */
    private static void pollAll(final List<KafkaConsumer<byte[], byte[]>> members,
        final Map<TopicPartition, Map<Long, Integer>> read, final java.util.function.BooleanSupplier done,
        final String what)
    {
        final long deadlineMs = System.currentTimeMillis() + 60_000;
        while (!done.getAsBoolean())
        {
            assertTrue(System.currentTimeMillis() < deadlineMs, "timed out waiting for " + what + "; read "
                + totalRead(read) + ", assignments " + members.stream().map(KafkaConsumer::assignment).toList());
            for (final KafkaConsumer<byte[], byte[]> member : members)
            {
                boolean any = false;
                for (final ConsumerRecord<byte[], byte[]> record : member.poll(Duration.ofMillis(50)))
                {
                    any = true;
                    read.computeIfAbsent(new TopicPartition(record.topic(), record.partition()), tp -> new TreeMap<>())
                        .merge(record.offset(), 1, Integer::sum);
                }
                if (any)
                {
                    member.commitSync(Duration.ofSeconds(30));
                }
            }
        }
    }

    private static int totalRead(final Map<TopicPartition, Map<Long, Integer>> read)
    {
        return read.values().stream().mapToInt(Map::size).sum();
    }

    private static boolean shareAll(final List<KafkaConsumer<byte[], byte[]>> members)
    {
        final Set<TopicPartition> union = new HashSet<>();
        int total = 0;
        for (final KafkaConsumer<byte[], byte[]> member : members)
        {
            if (member.assignment().isEmpty())
            {
                return false;
            }
            union.addAll(member.assignment());
            total += member.assignment().size();
        }
        return union.size() == PARTITIONS && total == PARTITIONS;
    }

    @ParameterizedTest(name = "group.protocol={0}")
    @ValueSource(strings = {"classic", "consumer"})
    @DisplayName("three subscribe() members share 12 partitions; one leaves, its partitions move to the others, and "
        + "they resume from its committed offsets: every record is read exactly once")
    void shouldShareMovePartitionsAndResumeExactly(final String protocol) throws Exception
    {
        final String topic = "shared-" + protocol;
        final String group = "sharing-" + protocol;
        createTopic(topic);
        produce(topic, 0, FIRST_BATCH);
        final Map<TopicPartition, Map<Long, Integer>> read = new HashMap<>();
        final List<KafkaConsumer<byte[], byte[]>> members = new ArrayList<>();
        try
        {
            for (int i = 0; i < 3; i++)
            {
                members.add(member(group, protocol, Map.of()));
                members.get(i).subscribe(List.of(topic));
            }
            pollAll(members, read, () -> shareAll(members) && totalRead(read) >= PARTITIONS * FIRST_BATCH / 2,
                "three members sharing every partition");
            final Set<TopicPartition> leaving = new HashSet<>(members.get(2).assignment());
            members.remove(2).close();

            pollAll(members, read, () -> shareAll(members), "the leaver's partitions moving");
            final Set<TopicPartition> moved = new HashSet<>(members.get(0).assignment());
            moved.addAll(members.get(1).assignment());
            assertTrue(moved.containsAll(leaving), "partitions " + leaving + " moved to the remaining members");

            produce(topic, FIRST_BATCH, SECOND_BATCH);
            final int all = PARTITIONS * (FIRST_BATCH + SECOND_BATCH);
            pollAll(members, read, () -> totalRead(read) >= all, "every record read");
        }
        finally
        {
            for (final KafkaConsumer<byte[], byte[]> member : members)
            {
                member.close();
            }
        }
        for (int partition = 0; partition < PARTITIONS; partition++)
        {
            final Map<Long, Integer> offsets = read.get(new TopicPartition(topic, partition));
            assertEquals(FIRST_BATCH + SECOND_BATCH, offsets.size(), "records of partition " + partition);
            offsets.forEach((offset, times) -> assertEquals(1, times, "offset " + offset + " read once"));
        }
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            final ConsumerGroupDescription described = admin.describeConsumerGroups(List.of(group))
                .describedGroups().get(group).get();
            assertEquals(protocol.equals("classic") ? GroupType.CLASSIC : GroupType.CONSUMER, described.type());
            assertEquals(GroupState.EMPTY, described.groupState());
            final Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata().get();
            for (int partition = 0; partition < PARTITIONS; partition++)
            {
                assertEquals(FIRST_BATCH + SECOND_BATCH,
                    committed.get(new TopicPartition(topic, partition)).offset(), "committed end of " + partition);
            }
        }
    }

    @Test
    @DisplayName("a static member (group.instance.id) that restarts within its session timeout gets its partitions "
        + "back without a rebalance: the generation stays")
    void shouldTakeAStaticMemberBackWithoutARebalance() throws Exception
    {
        final String topic = "static-members";
        final String group = "static-group";
        createTopic(topic);
        final Map<String, Object> first = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-a",
            ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 30_000);
        final Map<String, Object> second = Map.of(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, "instance-b",
            ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 30_000);
        final Map<TopicPartition, Map<Long, Integer>> read = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> b = member(group, "classic", second))
        {
            b.subscribe(List.of(topic));
            final Set<TopicPartition> before;
            final int generationBefore;
            try (KafkaConsumer<byte[], byte[]> a = member(group, "classic", first))
            {
                a.subscribe(List.of(topic));
                pollAll(List.of(a, b), read, () -> shareAll(List.of(a, b))
                    && a.groupMetadata().generationId() == b.groupMetadata().generationId(), "two static members");
                before = new HashSet<>(a.assignment());
                generationBefore = a.groupMetadata().generationId();
            }
            // A static member's close sends no LeaveGroup: the coordinator keeps its place for the session.
            try (KafkaConsumer<byte[], byte[]> again = member(group, "classic", first))
            {
                again.subscribe(List.of(topic));
                pollAll(List.of(again, b), read, () -> !again.assignment().isEmpty(), "the restarted member");
                assertEquals(before, again.assignment(), "the same partitions back");
                assertEquals(generationBefore, again.groupMetadata().generationId(), "no new generation");
                assertEquals(generationBefore, b.groupMetadata().generationId(), "the other member kept its generation");
            }
        }
    }

    @Test
    @DisplayName("bad group input gets Kafka's error codes and nothing breaks: JoinGroup with an unknown protocol "
        + "type, with oversized metadata, a heartbeat of an unknown member, a commit for an unknown topic, a produce "
        + "to __consumer_offsets")
    void shouldAnswerBadGroupRequestsWithKafkasErrors() throws Exception
    {
        final String topic = "bad-input";
        createTopic(topic);
        final String group = "bad-input-group";
        // A real member first, so the group exists and its coordinator is known.
        try (KafkaConsumer<byte[], byte[]> member = member(group, "classic", Map.of()))
        {
            member.subscribe(List.of(topic));
            final Map<TopicPartition, Map<Long, Integer>> read = new HashMap<>();
            pollAll(List.of(member), read, () -> member.assignment().size() == PARTITIONS, "the member's assignment");
            final int coordinator;
            try (Admin admin = Clients.admin(cluster.bootstrapServers()))
            {
                coordinator = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get()
                    .coordinator().id();
            }
            try (WireClient wire = new WireClient(cluster.port(coordinator), 15_000))
            {
                final JoinGroupRequestData.JoinGroupRequestProtocolCollection protocols =
                    new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
                protocols.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                    .setMetadata(new byte[] {1, 2, 3}));
                final JoinGroupResponse otherType = (JoinGroupResponse) wire.roundTrip(ApiKeys.JOIN_GROUP, (short) 9,
                    new JoinGroupRequestData().setGroupId(group).setMemberId("").setProtocolType("not-consumer")
                        .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000).setProtocols(protocols));
                assertEquals(Errors.INCONSISTENT_GROUP_PROTOCOL, otherType.error(),
                    "a protocol type the group does not have");

                final JoinGroupRequestData.JoinGroupRequestProtocolCollection huge =
                    new JoinGroupRequestData.JoinGroupRequestProtocolCollection();
                huge.add(new JoinGroupRequestData.JoinGroupRequestProtocol().setName("range")
                    .setMetadata(new byte[2 * 1024 * 1024]));
                final JoinGroupResponse oversized = (JoinGroupResponse) wire.roundTrip(ApiKeys.JOIN_GROUP, (short) 9,
                    new JoinGroupRequestData().setGroupId("oversized-group").setMemberId("").setProtocolType("consumer")
                        .setSessionTimeoutMs(10_000).setRebalanceTimeoutMs(10_000).setProtocols(huge));
                assertNotEquals(Errors.NONE, oversized.error(), "2 MB of member metadata is refused");

                final HeartbeatResponse stranger = (HeartbeatResponse) wire.roundTrip(ApiKeys.HEARTBEAT, (short) 4,
                    new HeartbeatRequestData().setGroupId(group).setMemberId("nobody").setGenerationId(1));
                assertEquals(Errors.UNKNOWN_MEMBER_ID, stranger.error());

                final OffsetCommitResponse unknownTopic = (OffsetCommitResponse) wire.roundTrip(ApiKeys.OFFSET_COMMIT,
                    (short) 9, new OffsetCommitRequestData().setGroupId("simple-group").setGenerationIdOrMemberEpoch(-1)
                        .setMemberId("").setTopics(List.of(new OffsetCommitRequestData.OffsetCommitRequestTopic()
                            .setName("no-such-topic").setPartitions(List.of(
                                new OffsetCommitRequestData.OffsetCommitRequestPartition().setPartitionIndex(0)
                                    .setCommittedOffset(5))))));
                assertEquals(Errors.UNKNOWN_TOPIC_OR_PARTITION.code(),
                    unknownTopic.data().topics().get(0).partitions().get(0).errorCode());
            }
            // A client may not write the group coordinator's own topic.
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
            {
                final java.util.concurrent.ExecutionException refused = org.junit.jupiter.api.Assertions.assertThrows(
                    java.util.concurrent.ExecutionException.class, () -> producer.send(new ProducerRecord<>(
                        "__consumer_offsets", 0, null, new byte[] {1})).get(30, java.util.concurrent.TimeUnit.SECONDS));
                assertTrue(refused.getCause() instanceof org.apache.kafka.common.errors.InvalidTopicException,
                    refused.toString());
            }
            // The real member carries on.
            produce(topic, 0, 1);
            pollAll(List.of(member), read, () -> totalRead(read) >= PARTITIONS, "the member reading after bad input");
        }
    }

    @Test
    @DisplayName("the group survives a SIGKILL-like loss of its coordinator's broker: a new leader of its "
        + "__consumer_offsets partition loads it, committed offsets intact, and the member reads on")
    void shouldCarryOnWhenTheCoordinatorsBrokerDies() throws Exception
    {
        final String topic = "coordinator-loss";
        final String group = "survivor";
        createTopic(topic);
        produce(topic, 0, FIRST_BATCH);
        final Map<TopicPartition, Map<Long, Integer>> read = new HashMap<>();
        int killed = -1;
        try (KafkaConsumer<byte[], byte[]> member = member(group, "consumer", Map.of()))
        {
            member.subscribe(List.of(topic));
            pollAll(List.of(member), read, () -> totalRead(read) == PARTITIONS * FIRST_BATCH, "the first batch");
            final Map<TopicPartition, OffsetAndMetadata> before;
            try (Admin admin = Clients.admin(cluster.bootstrapServers()))
            {
                killed = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get()
                    .coordinator().id();
                before = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            }
            cluster.killBroker(killed);
            final int dead = killed;
            try (Admin admin = Clients.admin(bootstrapWithout(dead)))
            {
                Clients.awaitCondition(() -> coordinatorOf(admin, group) >= 0 && coordinatorOf(admin, group) != dead,
                    60_000, "a new coordinator for the group");
                assertEquals(before, admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get(),
                    "offsets intact under the new coordinator");
            }
            produce(topic, FIRST_BATCH, SECOND_BATCH);
            pollAll(List.of(member), read, () -> totalRead(read) == PARTITIONS * (FIRST_BATCH + SECOND_BATCH),
                "the second batch after the coordinator moved");
            read.values().forEach(offsets -> offsets.forEach((offset, times) -> assertEquals(1, times)));
        }
        finally
        {
            if (killed >= 0)
            {
                cluster.startBroker(killed);
                cluster.awaitBrokersRegistered();
            }
        }
    }

    private static int coordinatorOf(final Admin admin, final String group)
    {
        try
        {
            return admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get().coordinator().id();
        }
        catch (final Exception e)
        {
            return -1;
        }
    }

    private static String bootstrapWithout(final int nodeId)
    {
        final List<String> others = new ArrayList<>();
        for (int id = 1; id <= 3; id++)
        {
            if (id != nodeId)
            {
                others.add("127.0.0.1:" + cluster.port(id));
            }
        }
        return String.join(",", others);
    }
}

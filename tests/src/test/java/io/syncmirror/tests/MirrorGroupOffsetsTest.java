package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.ListGroupsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorPartitionState;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Consumer group offsets carried by a mirror: a 1-broker source whose simple consumer group commits offsets, and a
 * 1-broker destination whose metadata manager copies them, so that the group resumes there after failover.
 */
@Timeout(180)
class MirrorGroupOffsetsTest
{
    private static final String MIRROR = "groups-mirror";
    private static final String TOPIC = "payments";
    private static final String GROUP = "billing";
    private static final int RECORDS_PER_PARTITION = 100;
    private static final TopicPartition P0 = new TopicPartition(TOPIC, 0);
    private static final TopicPartition P1 = new TopicPartition(TOPIC, 1);

    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters()
    {
        clusters = MirrorClusters.start(1, 1, Map.of());
    }

    @Test
    @DisplayName("AM-11 committed offsets of a source consumer group, also one above the mirrored log end, reach the "
        + "destination within a few refresh intervals and follow later commits; after failover the group resumes "
        + "there from them with subscribe()")
    void shouldCarryCommittedOffsetsAndResumeTheGroupAfterFailover() throws Exception
    {
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, TOPIC, 2, (short) 1, Map.of());
        }
        produce(clusters.source(), 0, RECORDS_PER_PARTITION, "source");

        // A simple group (assign, no membership) commits partition 1 beyond the source's log end, which Kafka allows.
        final long aboveLogEnd = RECORDS_PER_PARTITION + 50;
        commit(Map.of(P0, 40L, P1, aboveLogEnd));

        try (Admin sourceAdmin = Clients.admin(clusters.source().bootstrapServers()))
        {
            // What the destination's metadata manager asks of the source: the group is listed and described.
            final List<String> listed = new ArrayList<>();
            for (final GroupListing group : sourceAdmin.listGroups(ListGroupsOptions.forConsumerGroups()).all().get())
            {
                listed.add(group.groupId());
                if (group.groupId().equals(GROUP))
                {
                    assertEquals(GroupType.CLASSIC, group.type().orElseThrow());
                    assertEquals(GroupState.EMPTY, group.groupState().orElseThrow());
                }
            }
            assertEquals(List.of(GROUP), listed);
            final ConsumerGroupDescription described = sourceAdmin.describeConsumerGroups(List.of(GROUP))
                .describedGroups().get(GROUP).get();
            assertEquals(GroupState.EMPTY, described.groupState());
            assertTrue(described.members().isEmpty());
            assertEquals(Map.of(P0, 40L, P1, aboveLogEnd), committed(sourceAdmin));
        }

        clusters.createMirror(MIRROR);
        clusters.addAndAwaitMirroring(MIRROR, TOPIC, 2);
        for (final TopicPartition tp : List.of(P0, P1))
        {
            Clients.awaitCondition(() -> AsyncMirroringTest.hw(clusters.destination(), tp) == RECORDS_PER_PARTITION,
                30_000, "mirrored " + tp);
        }

        try (Admin destinationAdmin = Clients.admin(clusters.destination().bootstrapServers()))
        {
            awaitCommitted(destinationAdmin, Map.of(P0, 40L, P1, aboveLogEnd), "offsets copied to the destination");
            assertTrue(AsyncMirroringTest.leader(clusters.destination(), P1).log().logEndOffset() < aboveLogEnd,
                "the copied offset of " + P1 + " is above the destination's log end");

            // A later commit at the source is carried over on a later refresh.
            commit(Map.of(P0, 70L));
            awaitCommitted(destinationAdmin, Map.of(P0, 70L, P1, aboveLogEnd), "a later commit copied");
        }

        Mirrors.remove(clusters.destination(), MIRROR, TOPIC);
        clusters.awaitState(MIRROR, TOPIC, 2, MirrorPartitionState.STOPPED, "partitions STOPPED after failover");

        // Producers move to the destination and write past the offset committed above the mirrored log end.
        produce(clusters.destination(), RECORDS_PER_PARTITION, 60, "destination");

        // The group resumes on the destination from its committed offsets; reset "none" fails on a missing one.
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(clusters.destination().bootstrapServers(),
            Map.of(ConsumerConfig.GROUP_ID_CONFIG, GROUP, ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none")))
        {
            // subscribe(): the group joins the destination's group coordinator and resumes from the synced offsets.
            consumer.subscribe(List.of(TOPIC));
            final int expected = (RECORDS_PER_PARTITION + 60 - 70) + (int) (RECORDS_PER_PARTITION + 60 - aboveLogEnd);
            final List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
            final long deadlineMs = System.currentTimeMillis() + 30_000;
            while (records.size() < expected && System.currentTimeMillis() < deadlineMs)
            {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            assertEquals(expected, records.size());
            final Map<Integer, Long> firstOffset = new HashMap<>();
            for (final ConsumerRecord<byte[], byte[]> record : records)
            {
                firstOffset.putIfAbsent(record.partition(), record.offset());
                final String origin = record.offset() < RECORDS_PER_PARTITION ? "source" : "destination";
                assertEquals(origin + "-" + record.partition() + "-" + record.offset(),
                    new String(record.value(), StandardCharsets.UTF_8));
            }
            assertEquals(Map.of(0, 70L, 1, aboveLogEnd), firstOffset);
        }
    }

    /** Writes {@code count} records to each partition, valued by origin, partition and the offset they get. */
    private static void produce(final EmbeddedCluster cluster, final int firstOffset, final int count,
        final String origin) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int partition = 0; partition < 2; partition++)
            {
                for (int i = 0; i < count; i++)
                {
                    final String value = origin + "-" + partition + "-" + (firstOffset + i);
                    producer.send(new ProducerRecord<>(TOPIC, partition, null,
                        value.getBytes(StandardCharsets.UTF_8))).get();
                }
            }
        }
    }

    /** Commits offsets at the source as a consumer that assigns its partitions (no group membership). */
    private static void commit(final Map<TopicPartition, Long> offsets)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(clusters.source().bootstrapServers(), Map.of(
            ConsumerConfig.GROUP_ID_CONFIG, GROUP)))
        {
            consumer.assign(offsets.keySet());
            final Map<TopicPartition, OffsetAndMetadata> committed = new HashMap<>();
            offsets.forEach((tp, offset) -> committed.put(tp, new OffsetAndMetadata(offset, "at-source")));
            consumer.commitSync(committed, Duration.ofSeconds(30));
        }
    }

    private static Map<TopicPartition, Long> committed(final Admin admin) throws Exception
    {
        final Map<TopicPartition, Long> offsets = new HashMap<>();
        admin.listConsumerGroupOffsets(GROUP).partitionsToOffsetAndMetadata().get().forEach((tp, offset) ->
        {
            if (offset != null)
            {
                offsets.put(tp, offset.offset());
            }
        });
        return offsets;
    }

    /** Waits until the group's committed offsets are {@code expected}; the failure names what was seen last. */
    private static void awaitCommitted(final Admin admin, final Map<TopicPartition, Long> expected,
        final String message) throws InterruptedException
    {
        final long deadlineMs = System.currentTimeMillis() + 20_000;
        Object lastSeen = null;
        while (System.currentTimeMillis() < deadlineMs)
        {
            try
            {
                final Map<TopicPartition, Long> now = committed(admin);
                if (now.equals(expected))
                {
                    return;
                }
                lastSeen = now;
            }
            catch (final Exception e)
            {
                lastSeen = e;
            }
            Thread.sleep(100);
        }
        fail(message + ": expected " + expected + ", last seen " + lastSeen);
    }
}

package io.syncmirror.tests;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.protocol.MirrorWireClient;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A leader that took acks=1 records its followers never fetched, then crashed, comes back as a follower of the
 * new leader: it must drop its divergent tail (the leader answers its fetch with a diverging epoch) and end up
 * with the same log as the others, batch for batch. The followers are stalled, not removed from the ISR (a long
 * replica.lag.time.max.ms), so the new leader comes from the ISR and the election is clean.
 */
@Timeout(180)
class DivergingEpochTest
{
    private static final String TOPIC = "diverging";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int ACKED_BEFORE = 10;

    private EmbeddedCluster cluster;

    @BeforeEach
    void startCluster() throws Exception
    {
        cluster = EmbeddedCluster.start(3, Map.of("replica.lag.time.max.ms", "60000"));
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            // Broker 2 leads; node 1 runs the controller and stays up.
            Clients.createTopic(admin, TOPIC, Map.of(0, List.of(2, 3, 1)), Map.of());
        }
    }

    @AfterEach
    void stopCluster()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    /** One batch as stored: its offsets, epoch, record values and bytes. */
    private record StoredBatch(long baseOffset, long lastOffset, int leaderEpoch, List<String> values, byte[] bytes)
    {
        @Override
        public boolean equals(final Object other)
        {
            return other instanceof StoredBatch b && baseOffset == b.baseOffset && lastOffset == b.lastOffset
                && leaderEpoch == b.leaderEpoch && values.equals(b.values) && Arrays.equals(bytes, b.bytes);
        }

        @Override
        public int hashCode()
        {
            return Long.hashCode(baseOffset) * 31 + Arrays.hashCode(bytes);
        }

        @Override
        public String toString()
        {
            return "[" + baseOffset + ".." + lastOffset + " epoch " + leaderEpoch + " " + values + " "
                + bytes.length + "B]";
        }
    }

    /** Every batch of broker {@code node}'s replica log, read directly from the log up to its end. */
    private List<StoredBatch> storedBatches(final int node)
    {
        final Partition partition = cluster.broker(node).replicaManager().partitionOrNull(TP);
        assertTrue(partition != null, "broker " + node + " has no replica of " + TP);
        final PartitionLog log = partition.log();
        final List<StoredBatch> batches = new ArrayList<>();
        long offset = log.logStartOffset();
        final long end = log.logEndOffset();
        while (offset < end)
        {
            final PartitionLog.ReadResult read = log.read(offset, 1024 * 1024, FetchIsolation.LOG_END, true);
            boolean progressed = false;
            for (final RecordBatch batch : read.records().batches())
            {
                if (batch.lastOffset() < offset)
                {
                    continue;
                }
                final List<String> values = new ArrayList<>();
                for (final Record record : batch)
                {
                    values.add(record.hasValue() ? StandardCharsets.UTF_8.decode(record.value()).toString() : null);
                }
                batches.add(new StoredBatch(batch.baseOffset(), batch.lastOffset(), batch.partitionLeaderEpoch(),
                    values, bytesOf(batch)));
                offset = batch.nextOffset();
                progressed = true;
            }
            assertTrue(progressed, "broker " + node + ": no batch readable at " + offset + " below LEO " + end);
        }
        return batches;
    }

    private static byte[] bytesOf(final RecordBatch batch)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(batch.sizeInBytes());
        batch.writeTo(buffer);
        return buffer.array();
    }

    private long logEndOffset(final int node)
    {
        final Partition partition = cluster.broker(node).replicaManager().partitionOrNull(TP);
        return partition == null ? -1 : partition.log().logEndOffset();
    }

    /**
     * The old leader's divergent tail may end below, at or above the new leader's log end: above, its fetch offset
     * is past the leader's end, and only the epoch check (done before the offset range check, as Kafka does) tells
     * it which of its records diverge. With nothing written after the failover, the new leader's epoch exists
     * only in its epoch cache (assigned at its start offset when it became leader), which is enough.
     */
    @ParameterizedTest(name = "{0} unreplicated records, {1} acknowledged after the failover")
    @CsvSource({"5, 7", "6, 6", "20, 3", "8, 0"})
    void shouldTruncateTheOldLeadersUnreplicatedTailAndConvergeOnIdenticalLogs(final int unreplicated,
        final int ackedAfter) throws Exception
    {
        final Map<Long, String> acked = new TreeMap<>();
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < ACKED_BEFORE; i++)
            {
                final String value = "acked-before-" + i;
                acked.put(producer.send(new ProducerRecord<>(TOPIC, 0, null, bytes(value))).get().offset(), value);
            }
        }
        Clients.awaitCondition(() -> logEndOffset(3) == ACKED_BEFORE && logEndOffset(1) == ACKED_BEFORE, 30_000,
            "the followers never fetched the acknowledged records");

        cluster.broker(3).pauseReplication();
        cluster.broker(1).pauseReplication();
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
            Map.of(ProducerConfig.ACKS_CONFIG, "1", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, false)))
        {
            for (int i = 0; i < unreplicated; i++)
            {
                assertEquals(ACKED_BEFORE + i, producer.send(new ProducerRecord<>(TOPIC, 0, null,
                    bytes("leader-only-" + i))).get().offset());
            }
        }
        assertEquals(ACKED_BEFORE + unreplicated, logEndOffset(2));
        assertEquals(ACKED_BEFORE, logEndOffset(3), "a paused follower fetched");
        assertEquals(ACKED_BEFORE, logEndOffset(1), "a paused follower fetched");

        cluster.killBroker(2);
        final int newLeader;
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.awaitCondition(() -> Clients.leaderOf(admin, TOPIC) == 1 || Clients.leaderOf(admin, TOPIC) == 3,
                30_000,
                "no new leader was elected");
            newLeader = Clients.leaderOf(admin, TOPIC);
        }
        cluster.broker(3).resumeReplication();
        cluster.broker(1).resumeReplication();
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < ackedAfter; i++)
            {
                final String value = "acked-after-" + i;
                final long offset = producer.send(new ProducerRecord<>(TOPIC, 0, null, bytes(value))).get().offset();
                assertEquals(ACKED_BEFORE + i, offset, "the new leader " + newLeader + " did not continue at its LEO");
                acked.put(offset, value);
            }
        }

        cluster.startBroker(2).awaitReady(30_000);
        final long end = ACKED_BEFORE + ackedAfter;
        try (Admin admin = Clients.admin(cluster.bootstrapServers()))
        {
            Clients.awaitCondition(() -> Clients.sortedIsr(admin, TOPIC).equals(List.of(1, 2, 3)), 60_000,
                "the restarted broker never rejoined the ISR");
        }
        Clients.awaitCondition(() -> logEndOffset(1) == end && logEndOffset(2) == end && logEndOffset(3) == end,
            30_000, "the logs did not converge on LEO " + end + ": " + logEndOffset(1) + ", " + logEndOffset(2)
                + ", " + logEndOffset(3));

        final List<StoredBatch> leaderBatches = storedBatches(newLeader);
        for (int node = 1; node <= 3; node++)
        {
            assertEquals(leaderBatches, storedBatches(node), "broker " + node + "'s log differs from the leader's");
        }
        final List<String> stored = leaderBatches.stream().flatMap(b -> b.values().stream()).toList();
        assertFalse(stored.stream().anyMatch(v -> v.startsWith("leader-only-")), "an unreplicated record survived");
        assertEquals(0, leaderBatches.get(0).leaderEpoch());
        assertEquals(ackedAfter > 0, leaderBatches.get(leaderBatches.size() - 1).leaderEpoch() > 0,
            "the epoch of the last batch: " + leaderBatches);

        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(), Map.of()))
        {
            final List<ConsumerRecord<byte[], byte[]>> records = Clients.readAll(consumer, List.of(TP), acked.size(),
                30_000);
            assertEquals(acked.size(), records.size());
            for (final ConsumerRecord<byte[], byte[]> record : records)
            {
                assertTrue(acked.containsKey(record.offset()), "unacknowledged record at " + record.offset());
                assertArrayEquals(bytes(acked.get(record.offset())), record.value(),
                    "record at offset " + record.offset());
            }
        }
    }

    @Test
    @DisplayName("a fetch whose LastFetchedEpoch is above every epoch of the leader gets OFFSET_OUT_OF_RANGE, as "
        + "from Kafka, not a DivergingEpoch of -1/-1 that reads as no divergence")
    void shouldAnswerOffsetOutOfRangeForAnEpochTheLeaderNeverHad() throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            producer.send(new ProducerRecord<>(TOPIC, 0, null, bytes("only"))).get(10, TimeUnit.SECONDS);
        }
        final Partition leader = cluster.broker(2).replicaManager().partitionOrNull(TP);
        final int epoch = leader.role().leaderEpoch();
        try (MirrorWireClient client = MirrorWireClient.connect("127.0.0.1", cluster.port(2), "epoch-test", 10_000,
            10_000))
        {
            final FetchResponseData.PartitionData known = fetchAt(client, leader, epoch);
            assertEquals(Errors.NONE.code(), known.errorCode());
            assertFalse(FetchResponse.isDivergingEpoch(known));
            final FetchResponseData.PartitionData unknown = fetchAt(client, leader, epoch + 3);
            assertEquals(Errors.OFFSET_OUT_OF_RANGE.code(), unknown.errorCode(), unknown.toString());
        }
    }

    /** A consumer-type Fetch v18 at the leader's log end carrying {@code lastFetchedEpoch}. */
    private static FetchResponseData.PartitionData fetchAt(final MirrorWireClient client, final Partition leader,
        final int lastFetchedEpoch) throws Exception
    {
        final FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0)
            .setMaxBytes(1 << 20).setSessionId(0).setSessionEpoch(-1).setRackId("");
        fetch.topics().add(new FetchRequestData.FetchTopic().setTopicId(leader.topicId()).setPartitions(List.of(
            new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(leader.log().logEndOffset())
                .setPartitionMaxBytes(1 << 20).setCurrentLeaderEpoch(leader.role().leaderEpoch())
                .setLastFetchedEpoch(lastFetchedEpoch))));
        return client.fetch(fetch, null, (short)18).responses().get(0).partitions().get(0);
    }

    private static byte[] bytes(final String value)
    {
        return value.getBytes(StandardCharsets.UTF_8);
    }
}

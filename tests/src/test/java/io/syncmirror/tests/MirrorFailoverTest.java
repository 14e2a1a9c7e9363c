package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.server.storage.log.FetchIsolation;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.mirror.MirrorStateRecord;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.storage.PartitionLog;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Failover (RemoveTopicsFromMirror) and failback (a reverse mirror) between a 1-broker source and a 3-broker
 * destination, both durable, in this JVM.
 */
@Timeout(240)
class MirrorFailoverTest
{
    private static final String TOPIC = "payments";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @AutoClose
    private MirrorClusters clusters;

    @BeforeEach
    void startClusters()
    {
        clusters = MirrorClusters.start(1, 3, Map.of("default.replication.factor", "3",
            "transaction.state.log.replication.factor", "3"));
    }

    @Test
    @DisplayName("AM-08 AM-09 AM-06 failover keeps every mirrored offset, aborts the open mirrored transaction, bumps "
        + "the epoch above the source's, and new producers get ids above every mirrored one, also after a restart")
    void shouldFailOverWithoutTruncating() throws Exception
    {
        clusters.createSourceTopic(TOPIC, 1);
        // The KIP-1279 example: transaction 1 commits; transaction 2 stays open (its ABORT is never mirrored).
        final KafkaProducer<byte[], byte[]> committed = transactional(clusters.source(), "txn-committed");
        final KafkaProducer<byte[], byte[]> open = transactional(clusters.source(), "txn-open");
        committed.beginTransaction();
        committed.send(record("A")).get();
        committed.send(record("B")).get();
        open.beginTransaction();
        open.send(record("X")).get();
        committed.commitTransaction();
        committed.close();
        // A, B, X and the COMMIT marker (written by the coordinator after commitTransaction returns).
        final long sourceHw = 4;
        Clients.awaitCondition(() -> AsyncMirroringTest.hw(clusters.source(), TP) == sourceHw, 30_000,
            "COMMIT marker written");

        clusters.createMirror("dr");
        Mirrors.addOk(clusters.destination(), "dr", TOPIC);
        Clients.awaitCondition(() -> AsyncMirroringTest.hw(clusters.destination(), TP) == sourceHw, 30_000,
            "mirrored to HW");
        final byte[] mirrored = AsyncMirroringTest.batchBytes(clusters.destination(), TP);
        final long maxMirroredPid = maxProducerId(AsyncMirroringTest.leader(clusters.destination(), TP).log());
        final int maxSourceEpoch = AsyncMirroringTest.leader(clusters.destination(), TP).log().latestEpoch().orElse(-1);

        // A producer that got its id on the destination before the failover (its own topics): such an id may be
        // one a mirrored producer used, and must not have its first batch taken for a mirrored duplicate.
        try (Admin admin = Clients.admin(clusters.destination().bootstrapServers()))
        {
            Clients.createTopic(admin, "local", 1, (short)3, Map.of());
        }
        final KafkaProducer<byte[], byte[]> early = Clients.producer(clusters.destination().bootstrapServers(),
            Map.of());
        early.send(new ProducerRecord<>("local", "early".getBytes(StandardCharsets.UTF_8))).get();

        Mirrors.remove(clusters.destination(), "dr", TOPIC);
        clusters.awaitState("dr", TOPIC, 1, MirrorPartitionState.STOPPED, "STOPPED");

        final Partition leader = AsyncMirroringTest.leader(clusters.destination(), TP);
        final PartitionLog log = leader.log();
        // Nothing truncated: offsets 0-3 are the mirrored bytes; one ABORT marker follows for the open transaction.
        assertEquals(5, log.logEndOffset());
        final byte[] afterFailover = AsyncMirroringTest.batchBytes(clusters.destination(), TP);
        assertArrayEquals(mirrored, java.util.Arrays.copyOf(afterFailover, mirrored.length));
        assertTrue(log.openTransactions().isEmpty(), "no transaction left open");
        assertTrue(leader.role().leaderEpoch() > maxSourceEpoch, "epoch bumped above the source's");
        assertTrue(log.latestEpoch().orElse(-1) > maxSourceEpoch, "the log's epoch cache starts the bumped epoch");
        final Optional<MirrorStateRecord> state = coordinatorState(clusters.destination(), TP);
        assertTrue(state.isPresent());
        assertEquals(4, state.get().lastMirroredOffset());
        assertEquals(maxSourceEpoch, state.get().lastMirrorEpoch());
        assertEquals(5, state.get().pidResetOffset());

        for (int node = 1; node <= 3; node++)
        {
            final int broker = node;
            Clients.awaitCondition(
                () -> clusters.destination().broker(broker).metadata().producerIdFloor() > maxMirroredPid, 10_000,
                "broker " + node + " applied the producer id floor");
        }
        // Writable now: a new idempotent producer and a transactional one, with ids above every mirrored one.
        produceIdempotent(clusters.destination(), "after-failover");
        produceTransactional(clusters.destination(), "txn-destination", "txn-after-failover");
        assertTrue(minProducerIdFrom(log, 5) > maxMirroredPid, "new producer ids above the mirrored ones");

        // Its id may be one a mirrored producer used (ids start at 0 on both clusters): then it is fenced, never
        // acknowledged without being written, and a new producer takes over.
        try
        {
            final long earlyOffset = early.send(record("early-producer")).get().offset();
            assertEquals("early-producer", valueAt(clusters.destination(), earlyOffset), "acknowledged at its offset");
        }
        catch (final ExecutionException e)
        {
            assertInstanceOf(ProducerFencedException.class, e.getCause());
            assertTrue(e.getCause().getMessage().contains("mirrored source"), e.getCause().getMessage());
            produceIdempotent(clusters.destination(), "early-producer");
        }
        finally
        {
            early.close();
        }

        // read_committed readers are not blocked and see A, B and the new records, never X.
        assertEquals(List.of("A", "B", "after-failover", "txn-after-failover", "early-producer"),
            readCommitted(clusters.destination(), 5));

        // Kill every destination broker and restart: still writable, still above the floor.
        for (int node = 1; node <= 3; node++)
        {
            clusters.destination().killBroker(node);
        }
        for (int node = 1; node <= 3; node++)
        {
            clusters.destination().startBroker(node);
        }
        clusters.destination().awaitBrokersRegistered();
        // Registered is not yet leading: the partition's leader is elected and applied a moment later.
        Clients.awaitCondition(() -> AsyncMirroringTest.leader(clusters.destination(), TP) != null, 30_000,
            TP + " has no leader after the restart");
        final long endBeforeRestartProduce =
            AsyncMirroringTest.leader(clusters.destination(), TP).log().logEndOffset();
        produceIdempotent(clusters.destination(), "after-restart");
        final PartitionLog restarted = AsyncMirroringTest.leader(clusters.destination(), TP).log();
        assertTrue(minProducerIdFrom(restarted, endBeforeRestartProduce) > maxMirroredPid,
            "producer ids after the restart are still above the mirrored ones");
        assertEquals(List.of("A", "B", "after-failover", "txn-after-failover", "early-producer", "after-restart"),
            readCommitted(clusters.destination(), 6));
        clusters.awaitState("dr", TOPIC, 1, MirrorPartitionState.STOPPED, "STOPPED after restart");
    }

    private static ProducerRecord<byte[], byte[]> record(final String value)
    {
        return new ProducerRecord<>(TOPIC, 0, null, value.getBytes(StandardCharsets.UTF_8));
    }

    static KafkaProducer<byte[], byte[]> transactional(final EmbeddedCluster cluster, final String id)
    {
        final KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
            Map.of("transactional.id", id));
        producer.initTransactions();
        return producer;
    }

    private static void produceIdempotent(final EmbeddedCluster cluster, final String value) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
            Map.of("enable.idempotence", "true", "delivery.timeout.ms", "60000")))
        {
            final long offset = producer.send(record(value)).get().offset();
            // Acknowledged at a new offset, not as a "duplicate" of a mirrored batch with the same producer id.
            assertEquals(value, valueAt(cluster, offset));
        }
    }

    private static void produceTransactional(final EmbeddedCluster cluster, final String id, final String value)
        throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = transactional(cluster, id))
        {
            producer.beginTransaction();
            producer.send(record(value)).get();
            producer.commitTransaction();
        }
    }

    private static String valueAt(final EmbeddedCluster cluster, final long offset)
    {
        final PartitionLog log = AsyncMirroringTest.leader(cluster, TP).log();
        for (final RecordBatch batch : log.read(offset, 1 << 20, FetchIsolation.LOG_END, true).records().batches())
        {
            for (final org.apache.kafka.common.record.internal.Record record : batch)
            {
                if (record.offset() == offset && record.hasValue())
                {
                    final byte[] bytes = new byte[record.valueSize()];
                    record.value().get(bytes);
                    return new String(bytes, StandardCharsets.UTF_8);
                }
            }
        }
        return null;
    }

    static List<String> readCommitted(final EmbeddedCluster cluster, final int count)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(cluster.bootstrapServers(),
            Map.of("isolation.level", "read_committed")))
        {
            final List<String> values = new ArrayList<>();
            for (final ConsumerRecord<byte[], byte[]> record : Clients.readAll(consumer, List.of(TP), count, 30_000))
            {
                values.add(new String(record.value(), StandardCharsets.UTF_8));
            }
            return values;
        }
    }

    static Optional<MirrorStateRecord> coordinatorState(final EmbeddedCluster cluster, final TopicPartition tp)
    {
        final Partition leader = AsyncMirroringTest.leader(cluster, tp);
        for (int node = 1; node <= cluster.size(); node++)
        {
            if (cluster.broker(node).replicaManager().partitionOrNull(tp) == leader)
            {
                return cluster.broker(node).mirrorCoordinator().stateOf(leader.topicId(), tp.partition());
            }
        }
        return Optional.empty();
    }

    static long maxProducerId(final PartitionLog log)
    {
        return log.maxProducerId();
    }

    /** The smallest producer id of a batch at or above {@code fromOffset}. */
    static long minProducerIdFrom(final PartitionLog log, final long fromOffset)
    {
        long min = Long.MAX_VALUE;
        final PartitionLog.ReadResult read = log.read(fromOffset, 1 << 20, FetchIsolation.LOG_END, true);
        for (final RecordBatch batch : read.records().batches())
        {
            if (batch.baseOffset() >= fromOffset && batch.hasProducerId() && !batch.isControlBatch())
            {
                min = Math.min(min, batch.producerId());
            }
        }
        return min;
    }
}

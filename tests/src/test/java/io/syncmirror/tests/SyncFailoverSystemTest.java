package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;
import io.syncmirror.protocol.MirrorType;
import io.syncmirror.tools.MirrorAdmin;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scaled-down system tests of sync failover: SS-04 (crash of the source mid-sync, failover with nothing acknowledged
 * lost, failback by reverse mirroring and auto-promotion back into SYNC) and SS-06 (a transaction across a SYNC and
 * an ASYNC topic, the source crashing while the ASYNC topic's COMMIT marker is still on its way). The source is a
 * broker process killed with SIGKILL; the destination runs in this JVM.
 */
@Tag("system")
class SyncFailoverSystemTest
{
    private static final double INJECTED_DELAY_MS = 5;

    @TempDir
    Path dir;

    @Test
    @DisplayName("SS-04 sync failover and failback: a source SIGKILLed mid-sync loses no acknowledged record on "
        + "failover; the recovered source mirrors back, catches up and is auto-promoted to SYNC when its lag is zero")
    @Timeout(150)
    void shouldFailOverWithoutLossAndFailBackIntoSync() throws Exception
    {
        final String topic = "payments";
        final int partitions = 3;
        final Map<String, String> delayed = Map.of("mirror.link.injected.delay.ms",
            Double.toString(INJECTED_DELAY_MS));
        final Map<String, String> destinationConfig = new HashMap<>(Mirrors.FAST);
        destinationConfig.putAll(delayed);
        // The source gets the same link delay for the mirror it will run as the failback destination.
        try (ProcessCluster source = ProcessCluster.launched("source", dir, 1, delayed);
            EmbeddedCluster destination = EmbeddedCluster.start(1, destinationConfig))
        {
            source.awaitUp();
            try (Admin admin = Clients.admin(source.bootstrapServers()))
            {
                Clients.createTopic(admin, topic, partitions, (short)1, Map.of());
            }
            final int destinationPort = destination.port(1);
            TrialMirrors.create(destinationPort, "dr", source.bootstrapServers());
            TrialMirrors.add(destinationPort, "dr", MirrorType.SYNC, topic);
            TrialMirrors.awaitState(destinationPort, "dr", topic, partitions, MirrorPartitionState.MIRRORING, 30_000);
            TrialMirrors.awaitEffective(destinationPort, "dr", topic, MirrorType.SYNC, 30_000);

            // Mid-sync crash: a steady acks=all load, every acknowledgement gated on the destination.
            final AckLedger beforeCrash = new AckLedger(topic);
            try (AckedLoad load = new AckedLoad(source.bootstrapServers(), beforeCrash, partitions, 4, 1500).start())
            {
                TrialMirrors.awaitOrFail(() -> beforeCrash.ackedCount() >= 3000, 30_000,
                    () -> "only " + beforeCrash.ackedCount() + " acknowledged; " +
                        TrialMirrors.summary(destinationPort, "dr", topic));
                // Caught up: consumers of the SYNC destination read what the source acknowledged.
                final long ackedBefore = beforeCrash.ackedCount();
                TrialMirrors.awaitOrFail(() -> endOffsetSum(destination.bootstrapServers(), topic, partitions) >=
                    ackedBefore, 10_000, () -> "the destination's HW lags what the source acknowledged: " +
                        TrialMirrors.summary(destinationPort, "dr", topic));
                source.killAll();
                load.stop();
            }
            TrialMirrors.failOver(destinationPort, "dr", topic);
            TrialMirrors.awaitState(destinationPort, "dr", topic, partitions, MirrorPartitionState.STOPPED, 30_000);
            final AckLedger.Verdict failedOver = beforeCrash.verify(destination.bootstrapServers(), partitions, 30_000);
            System.out.println("SS-04 failover: " + failedOver);
            assertEquals(0, failedOver.lost(), () -> "acknowledged records lost on failover: " + failedOver);

            // The new primary takes writes; then the recovered source mirrors it back as the new destination.
            final AckLedger onNewPrimary = new AckLedger(topic);
            produceAcked(destination.bootstrapServers(), onNewPrimary, partitions, 300);
            source.launch().awaitUp();
            final int oldSourcePort = source.port(1);
            // The failover's Unregister could not reach the dead source: the recovered source still holds the
            // destination's sync registration and would gate on a mirror that never reports again. The
            // operator releases it, as the spec's failover fallback says.
            try (MirrorAdmin admin = MirrorAdmin.create(source.bootstrapServers(), 10_000))
            {
                admin.releaseMirrorSyncTopics("dr", List.of(topic)).all().get(30, TimeUnit.SECONDS);
            }
            TrialMirrors.create(oldSourcePort, "back", destination.bootstrapServers());
            TrialMirrors.add(oldSourcePort, "back", MirrorType.SYNC, topic);
            final DescribeClusterMirrorsResponseData.MirrorTopic justAdded =
                TrialMirrors.describe(oldSourcePort, "back", topic);
            assertNotNull(justAdded, "the failback mirror does not list the topic");
            // The desired type lives with the new topic's partition leaders, which hold it once they lead the
            // partitions they just got: describe shows it within moments of the add, not necessarily at once.
            Clients.awaitCondition(() ->
            {
                try
                {
                    final DescribeClusterMirrorsResponseData.MirrorTopic described =
                        TrialMirrors.describe(oldSourcePort, "back", topic);
                    return described != null && described.desiredMirrorType() == MirrorType.SYNC.id();
                }
                catch (final Exception e)
                {
                    return false;
                }
            }, 10_000, "the failback mirror's desired type is SYNC");
            TrialMirrors.awaitState(oldSourcePort, "back", topic, partitions, MirrorPartitionState.MIRRORING, 60_000);
            TrialMirrors.awaitEffective(oldSourcePort, "back", topic, MirrorType.SYNC, 60_000);
            final DescribeClusterMirrorsResponseData.MirrorTopic promoted =
                TrialMirrors.describe(oldSourcePort, "back", topic);
            assertNotNull(promoted);
            System.out.println("SS-04 failback promoted: " + TrialMirrors.summary(oldSourcePort, "back", topic));
            for (final DescribeClusterMirrorsResponseData.MirrorPartition partition : promoted.partitions())
            {
                assertEquals(0, partition.lag(), () -> "promoted to SYNC with lag: " +
                    TrialMirrors.summary(oldSourcePort, "back", topic));
            }

            // Now in SYNC the other way: what the new primary acknowledges is on the old source.
            final AckLedger afterFailback = new AckLedger(topic);
            final double minAckLatencyMs;
            try (AckedLoad load = new AckedLoad(destination.bootstrapServers(), afterFailback, partitions, 44, 1000)
                .start())
            {
                TrialMirrors.awaitOrFail(() -> afterFailback.ackedCount() >= 1000, 30_000,
                    () -> "only " + afterFailback.ackedCount() + " acknowledged after failback; " +
                        TrialMirrors.summary(oldSourcePort, "back", topic));
                load.stop();
                minAckLatencyMs = load.minAckLatencyMs();
            }
            assertTrue(minAckLatencyMs >= 2 * INJECTED_DELAY_MS, "the new primary acknowledged in " +
                minAckLatencyMs + " ms, sooner than the failback link's round trip: not gated on the old source");
            awaitEndOffsetsEqual(destination.bootstrapServers(), source.bootstrapServers(), topic, partitions);
            for (final AckLedger ledger : List.of(beforeCrash, onNewPrimary, afterFailback))
            {
                final AckLedger.Verdict verdict = ledger.verify(source.bootstrapServers(), partitions, 30_000);
                assertEquals(0, verdict.lost(), () -> "the failed-back source lacks acknowledged records: " +
                    verdict);
            }
        }
    }

    @Test
    @DisplayName("SS-06 mixed-mode transaction failover: with the source SIGKILLed after committing a transaction "
        + "over a SYNC and an ASYNC topic, the SYNC topic's destination shows it committed and the throttled ASYNC "
        + "topic's destination shows it aborted (the documented cross-topic hazard)")
    @Timeout(120)
    void shouldShowTheTransactionCommittedOnTheSyncTopicAndAbortedOnTheAsyncTopic() throws Exception
    {
        final String syncTopic = "ledger-sync";
        final String asyncTopic = "ledger-async";
        final TopicPartition syncTp = new TopicPartition(syncTopic, 0);
        final TopicPartition asyncTp = new TopicPartition(asyncTopic, 0);
        final Map<String, String> destinationConfig = new HashMap<>(Mirrors.FAST);
        // A slow link for every mirror fetch of this broker, with small fetches so that no single response puts
        // the bucket deep in debt: the SYNC topic's few bytes still get through within a second or so, while a
        // backlog on the ASYNC topic takes tens of seconds to drain and holds back its COMMIT marker.
        destinationConfig.put("mirror.replication.throttled.rate", "65536");
        destinationConfig.put("replica.fetch.max.bytes", "16384");
        destinationConfig.put("replica.fetch.response.max.bytes", "32768");
        try (ProcessCluster source = ProcessCluster.launched("source", dir, 1, Map.of());
            EmbeddedCluster destination = EmbeddedCluster.start(1, destinationConfig))
        {
            source.awaitUp();
            try (Admin admin = Clients.admin(source.bootstrapServers()))
            {
                Clients.createTopic(admin, syncTopic, 1, (short)1, Map.of());
                Clients.createTopic(admin, asyncTopic, 1, (short)1, Map.of());
            }
            final int destinationPort = destination.port(1);
            TrialMirrors.create(destinationPort, "dr", source.bootstrapServers());
            TrialMirrors.add(destinationPort, "dr", MirrorType.SYNC, syncTopic);
            TrialMirrors.add(destinationPort, "dr", MirrorType.ASYNC, asyncTopic);
            TrialMirrors.awaitState(destinationPort, "dr", syncTopic, 1, MirrorPartitionState.MIRRORING, 30_000);
            TrialMirrors.awaitState(destinationPort, "dr", asyncTopic, 1, MirrorPartitionState.MIRRORING, 30_000);
            TrialMirrors.awaitEffective(destinationPort, "dr", syncTopic, MirrorType.SYNC, 30_000);

            try (KafkaProducer<byte[], byte[]> transactional = Clients.producer(source.bootstrapServers(),
                Map.of("transactional.id", "mixed")))
            {
                transactional.initTransactions();
                transactional.beginTransaction();
                final RecordMetadata asyncData = transactional.send(record(asyncTopic, "b-in-txn")).get();
                final RecordMetadata syncData = transactional.send(record(syncTopic, "a-in-txn"))
                    .get(30, TimeUnit.SECONDS);
                // B's transactional data reaches the destination before the backlog is written behind it.
                TrialMirrors.awaitOrFail(() -> AsyncMirroringTest.hw(destination, asyncTp) > asyncData.offset(),
                    30_000, () -> "the ASYNC topic's transactional record never reached the destination: " +
                        TrialMirrors.summary(destinationPort, "dr", asyncTopic));
                writeBacklog(source.bootstrapServers(), asyncTopic, 1500, 1024);

                transactional.commitTransaction();
                // The markers are written after the commit returns. The source's last stable offset of each
                // topic passes the transaction's record once its COMMIT marker is in the log; on the SYNC topic
                // the marker is also under the HW, so the destination's ISR holds it.
                TrialMirrors.awaitOrFail(() -> lastStableOffset(source.bootstrapServers(), asyncTp) >
                    asyncData.offset() && lastStableOffset(source.bootstrapServers(), syncTp) > syncData.offset(),
                    30_000, () -> "the source never wrote the COMMIT markers");
                TrialMirrors.awaitOrFail(() -> Mirrors.records(destination, syncTp).stream()
                    .anyMatch(line -> line.endsWith(" control")), 30_000,
                    () -> "the SYNC topic's COMMIT marker never reached the destination: " +
                        Mirrors.records(destination, syncTp));
                assertFalse(Mirrors.records(destination, asyncTp).stream().anyMatch(line -> line.endsWith(" control")),
                    "the precondition failed: the ASYNC topic's COMMIT marker reached the destination before the "
                        + "crash; " + TrialMirrors.summary(destinationPort, "dr", asyncTopic));
                source.killAll();
            }

            TrialMirrors.failOver(destinationPort, "dr", syncTopic, asyncTopic);
            TrialMirrors.awaitState(destinationPort, "dr", syncTopic, 1, MirrorPartitionState.STOPPED, 30_000);
            TrialMirrors.awaitState(destinationPort, "dr", asyncTopic, 1, MirrorPartitionState.STOPPED, 30_000);

            final List<String> syncCommitted = values(destination.bootstrapServers(), syncTp, "read_committed");
            final List<String> asyncCommitted = values(destination.bootstrapServers(), asyncTp, "read_committed");
            final List<String> asyncUncommitted = values(destination.bootstrapServers(), asyncTp, "read_uncommitted");
            System.out.println("SS-06 after failover: SYNC topic " + Mirrors.records(destination, syncTp) +
                "; ASYNC topic read_committed has b-in-txn " + asyncCommitted.contains("b-in-txn") +
                ", read_uncommitted has it " + asyncUncommitted.contains("b-in-txn"));
            assertTrue(syncCommitted.contains("a-in-txn"), "the SYNC topic's destination shows the transaction "
                + "committed: " + Mirrors.records(destination, syncTp));
            assertTrue(asyncUncommitted.contains("b-in-txn"), "the ASYNC topic's destination holds the record");
            assertFalse(asyncCommitted.contains("b-in-txn"), "the ASYNC topic's destination shows the same "
                + "transaction aborted: its COMMIT marker never arrived and failover appended an ABORT");
        }
    }

    private static ProducerRecord<byte[], byte[]> record(final String topic, final String value)
    {
        return new ProducerRecord<>(topic, 0, null, value.getBytes(StandardCharsets.UTF_8));
    }

    /** The partition's last stable offset as a read_committed consumer sees it; -1 when the cluster does not say. */
    private static long lastStableOffset(final String bootstrap, final TopicPartition tp)
    {
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap,
            Map.of("isolation.level", "read_committed")))
        {
            return consumer.endOffsets(List.of(tp), Duration.ofSeconds(5)).get(tp);
        }
        catch (final RuntimeException e)
        {
            return -1;
        }
    }

    private static void writeBacklog(final String bootstrap, final String topic, final int records,
        final int valueBytes) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, Map.of("linger.ms", 5)))
        {
            final byte[] value = new byte[valueBytes];
            for (int i = 0; i < records; i++)
            {
                producer.send(new ProducerRecord<>(topic, 0, null, value));
            }
            producer.flush();
        }
    }

    /** Sends {@code count} records round the partitions and waits for every acknowledgement into {@code ledger}. */
    private static void produceAcked(final String bootstrap, final AckLedger ledger, final int partitions,
        final int count) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(bootstrap, Map.of()))
        {
            for (int i = 0; i < count; i++)
            {
                final byte[] value = ("new primary " + i).getBytes(StandardCharsets.UTF_8);
                final RecordMetadata metadata = producer.send(new ProducerRecord<>(ledger.topic(), i % partitions,
                    null, value)).get(30, TimeUnit.SECONDS);
                ledger.onAcked(metadata.partition(), metadata.offset(), value);
            }
        }
    }

    private static void awaitEndOffsetsEqual(final String primary, final String mirror, final String topic,
        final int partitions) throws InterruptedException
    {
        final List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            tps.add(new TopicPartition(topic, p));
        }
        try (KafkaConsumer<byte[], byte[]> onPrimary = Clients.consumer(primary, Map.of());
            KafkaConsumer<byte[], byte[]> onMirror = Clients.consumer(mirror, Map.of()))
        {
            TrialMirrors.awaitOrFail(() -> onPrimary.endOffsets(tps).equals(onMirror.endOffsets(tps)), 30_000,
                () -> "end offsets differ: primary " + onPrimary.endOffsets(tps) + ", failed-back source " +
                    onMirror.endOffsets(tps));
        }
    }

    private static long endOffsetSum(final String bootstrap, final String topic, final int partitions)
    {
        final List<TopicPartition> tps = new ArrayList<>();
        for (int p = 0; p < partitions; p++)
        {
            tps.add(new TopicPartition(topic, p));
        }
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap, Map.of()))
        {
            return consumer.endOffsets(tps, Duration.ofSeconds(5)).values().stream().mapToLong(Long::longValue).sum();
        }
        catch (final RuntimeException e)
        {
            return -1;
        }
    }

    private static List<String> values(final String bootstrap, final TopicPartition tp, final String isolation)
    {
        final List<String> values = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(bootstrap,
            Map.of("isolation.level", isolation)))
        {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            final long end = consumer.endOffsets(List.of(tp)).get(tp);
            final long deadlineMs = System.currentTimeMillis() + 30_000;
            while (consumer.position(tp) < end && System.currentTimeMillis() < deadlineMs)
            {
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200)))
                {
                    values.add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
            assertTrue(consumer.position(tp) >= end, "could not read " + tp + " to its end " + end);
        }
        return values;
    }
}

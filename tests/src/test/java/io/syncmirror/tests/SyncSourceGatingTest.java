package io.syncmirror.tests;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.metadata.BrokerLifecycleManager;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.server.BrokerServer;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.MirrorReplicaInfo;
import io.syncmirror.protocol.MirrorWireClient;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A source cluster gating acks=all produces on a registered sync mirror, driven from the wire: the destination's
 * reports are Fetch v20 requests written by a raw client (as a destination leader sends them), the producers are
 * real Kafka 4.4 clients (Produce v13 at most) and a raw-wire client for the Produce v14 control cases.
 */
@Timeout(120)
class SyncSourceGatingTest
{
    private static final String MIRROR = "east";
    private static EmbeddedCluster source;
    private static Admin admin;

    @BeforeAll
    static void start()
    {
        source = EmbeddedCluster.start(1, Mirrors.FAST);
        admin = Clients.admin(source.bootstrapServers());
    }

    @AfterAll
    static void stop()
    {
        admin.close();
        source.close();
    }

    private static BrokerServer broker()
    {
        return source.broker(1);
    }

    /** Creates {@code topic} and registers the mirror for it; returns its id once the broker applied it. */
    private static Uuid createRegistered(final String topic, final boolean register) throws Exception
    {
        Clients.createTopic(admin, topic, 1, (short)1, Map.of());
        final Uuid topicId = Clients.describe(admin, topic).topicId();
        // Admin sees the metadata image a moment before the replica manager has applied it.
        Clients.awaitCondition(() ->
        {
            final Partition partition = broker().replicaManager().partitionOrNull(new TopicPartition(topic, 0));
            return partition != null && partition.isLeader();
        }, 10_000, topic + " led by broker 1");
        if (register)
        {
            broker().mirrorController().changeSyncRegistration(topicId, MIRROR, true).get(10, TimeUnit.SECONDS);
            broker().metadata().await(image -> image.syncState(topicId).registeredMirrors().contains(MIRROR))
                .get(10, TimeUnit.SECONDS);
        }
        return topicId;
    }

    private static int leaderEpoch(final String topic)
    {
        final Partition partition = broker().replicaManager().partitionOrNull(new TopicPartition(topic, 0));
        return partition.role().leaderEpoch();
    }

    /** The source partition's high watermark, as its gate last decided it. */
    private static long highWatermark(final String topic)
    {
        return broker().replicaManager().partitionOrNull(new TopicPartition(topic, 0)).log().highWatermark();
    }

    /** The acks=all produces the broker holds for a sync mirror now (the ProducesWaitingOnSync gauge). */
    private static long producesWaitingOnSync() throws Exception
    {
        return (Long)ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName(
            "kafka.server:type=MirrorMetrics,name=ProducesWaitingOnSync,broker=1"), "Value");
    }

    /**
     * Waits until the produce was appended and is held for the mirror: from then on only the gate can complete it,
     * and the gate decides on each report synchronously, before the report's answer goes back.
     */
    private static void awaitHeldForTheMirror(final String topic, final long logEndOffset) throws Exception
    {
        awaitLogEnd(topic, logEndOffset);
        Clients.awaitCondition(() ->
        {
            try
            {
                return producesWaitingOnSync() == 1L;
            }
            catch (final Exception e)
            {
                return false;
            }
        }, 10_000, "the produce held for the mirror");
    }

    private static void awaitLogEnd(final String topic, final long logEndOffset) throws InterruptedException
    {
        Clients.awaitCondition(() -> broker().replicaManager().partitionOrNull(new TopicPartition(topic, 0)).log()
            .logEndOffset() >= logEndOffset, 10_000, topic + " appended up to " + logEndOffset);
    }

    /** The producer's own count of retried batches (producer-metrics record-retry-total). */
    private static double retries(final KafkaProducer<byte[], byte[]> producer)
    {
        return producer.metrics().entrySet().stream()
            .filter(e -> e.getKey().group().equals("producer-metrics") &&
                e.getKey().name().equals("record-retry-total"))
            .mapToDouble(e -> ((Number)e.getValue().metricValue()).doubleValue()).findFirst().orElse(0.0);
    }

    private static MirrorWireClient wire() throws Exception
    {
        return MirrorWireClient.connect("127.0.0.1", source.port(1), "sync-test", 5_000, 15_000);
    }

    /** A report-only Fetch v20: destination replicas 11 and 12 at {@code leos}, ISR {@code isr}, MinISR 2. */
    private static FetchResponseData report(final MirrorWireClient client, final String topic, final Uuid topicId,
        final long leo11, final long leo12, final List<Integer> isr) throws Exception
    {
        final MirrorReplicaInfo info = new MirrorReplicaInfo().setMirrorName(MIRROR).setTopics(List.of(
            new MirrorReplicaInfo.MirroredTopic().setTopic(topic).setTopicId(topicId).setPartitions(List.of(
                new MirrorReplicaInfo.MirroredTopicPartition().setPartition(0).setMinIsr(2).setIsr(isr)
                    .setDestinationLeaderEpoch(0).setValidatedSourceEpoch(leaderEpoch(topic))
                    .setReplicaLastOffsets(List.of(
                        new MirrorReplicaInfo.ReplicaLastOffset().setReplicaId(11).setLastFetchOffset(leo11),
                        new MirrorReplicaInfo.ReplicaLastOffset().setReplicaId(12).setLastFetchOffset(leo12)))))));
        final FetchRequestData request = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0)
            .setMaxBytes(1).setSessionId(0).setSessionEpoch(-1).setRackId("");
        return client.fetch(request, info, (short)20);
    }

    private static ProduceResponseData.PartitionProduceResponse rawProduce(final MirrorWireClient client,
        final Uuid topicId, final short version, final int timeoutMs) throws Exception
    {
        final ProduceRequestData request = new ProduceRequestData().setAcks((short)-1).setTimeoutMs(timeoutMs);
        final ProduceRequestData.TopicProduceData topic = new ProduceRequestData.TopicProduceData()
            .setTopicId(topicId);
        topic.partitionData().add(new ProduceRequestData.PartitionProduceData().setIndex(0).setRecords(
            MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("raw".getBytes(StandardCharsets.UTF_8)))));
        request.topicData().add(topic);
        final ProduceResponseData response = client.produce(request, version);
        return response.responses().iterator().next().partitionResponses().get(0);
    }

    private static Future<RecordMetadata> send(final KafkaProducer<byte[], byte[]> producer, final String topic)
    {
        return producer.send(new ProducerRecord<>(topic, 0, null, "v".getBytes(StandardCharsets.UTF_8)));
    }

    @Test
    @DisplayName("SU-07 gating part: a registered topic's acks=all produce waits for the destination's first "
        + "report and completes with it")
    void shouldHoldAcksUntilTheMirrorReports() throws Exception
    {
        final String topic = "gated";
        final Uuid topicId = createRegistered(topic, true);
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(source.bootstrapServers(), Map.of());
             MirrorWireClient client = wire())
        {
            final Future<RecordMetadata> first = send(producer, topic);
            awaitHeldForTheMirror(topic, 1);
            final long heldSinceNanos = System.nanoTime();
            assertEquals(0, highWatermark(topic), "no report yet: the HW waits for the mirror");
            assertFalse(first.isDone());
            report(client, topic, topicId, 1, 1, List.of(11, 12));
            final long reportedAfterMs = (System.nanoTime() - heldSinceNanos) / 1_000_000;
            assertEquals(0, first.get(10, TimeUnit.SECONDS).offset());
            final MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
            final ObjectName latency = new ObjectName(
                "kafka.server:type=MirrorMetrics,name=MirrorSyncReplicationLatencyMs,broker=1");
            assertTrue((Long)jmx.getAttribute(latency, "Count") >= 1L);
            assertTrue((Double)jmx.getAttribute(latency, "Max") >= reportedAfterMs,
                "the ack waited for the report, " + reportedAfterMs + " ms after the produce was held");
            final Future<RecordMetadata> second = send(producer, topic);
            awaitHeldForTheMirror(topic, 2);
            assertEquals(1, highWatermark(topic), "the mirror's ISR lacks offset 1");
            report(client, topic, topicId, 2, 1, List.of(11, 12));
            assertEquals(1, highWatermark(topic), "replica 12 of the mirror's ISR still lacks it");
            assertEquals(1L, producesWaitingOnSync());
            report(client, topic, topicId, 2, 2, List.of(11, 12));
            assertEquals(2, highWatermark(topic), "the gate advanced on that report, before answering it");
            assertEquals(1, second.get(10, TimeUnit.SECONDS).offset());
        }
    }

    @Test
    @DisplayName("SI-07 SI-08 a mirror under its MinISR: v14 gets NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND naming "
        + "it, v13 the down-mapped NOT_ENOUGH_REPLICAS_AFTER_APPEND, the HW freezes and resumes with the ISR")
    void shouldAnswerRemoteUnderMinIsrAndResume() throws Exception
    {
        final String topic = "under-min";
        final Uuid topicId = createRegistered(topic, true);
        try (MirrorWireClient client = wire();
             KafkaProducer<byte[], byte[]> producer = Clients.producer(source.bootstrapServers(), Map.of()))
        {
            report(client, topic, topicId, 0, 0, List.of(11));
            final ProduceResponseData.PartitionProduceResponse v14 = rawProduce(client, topicId, (short)14, 5_000);
            assertEquals(MirrorError.NOT_ENOUGH_REMOTE_REPLICAS_AFTER_APPEND.code(), v14.errorCode());
            assertTrue(v14.errorMessage().contains(MIRROR), v14.errorMessage());
            final ProduceResponseData.PartitionProduceResponse v13 = rawProduce(client, topicId, (short)13, 5_000);
            assertEquals(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code(), v13.errorCode());
            assertTrue(v13.errorMessage().contains(MIRROR), v13.errorMessage());
            assertEquals(0, broker().replicaManager().partitionOrNull(new TopicPartition(topic, 0)).log()
                .highWatermark(), "under-min-ISR freeze");
            // A real producer keeps retrying its retriable error and succeeds once the mirror's ISR recovers.
            final Future<RecordMetadata> sent = send(producer, topic);
            awaitLogEnd(topic, 3); // appended, answered retriably, retried (deduplicated) until the ISR recovers
            assertEquals(0, highWatermark(topic), "frozen while the mirror's ISR is under its MinISR");
            report(client, topic, topicId, 3, 3, List.of(11, 12));
            assertEquals(2, sent.get(20, TimeUnit.SECONDS).offset());
            assertEquals(3, broker().replicaManager().partitionOrNull(new TopicPartition(topic, 0)).log()
                .highWatermark());
        }
    }

    @Test
    @DisplayName("SI-06 SI-08 a mirror that does not catch up in time: v14 gets MIRROR_SYNC_REPLICATION_TIMEOUT "
        + "naming it, v13 NOT_ENOUGH_REPLICAS_AFTER_APPEND, and a real producer retries until the mirror catches up")
    void shouldAnswerSyncTimeoutAndLetOldProducersRetry() throws Exception
    {
        final String topic = "slow";
        final Uuid topicId = createRegistered(topic, true);
        try (MirrorWireClient client = wire();
             KafkaProducer<byte[], byte[]> producer = Clients.producer(source.bootstrapServers(), Map.of(
                 ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 800, ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 30_000)))
        {
            report(client, topic, topicId, 0, 0, List.of(11, 12));
            final ProduceResponseData.PartitionProduceResponse v14 = rawProduce(client, topicId, (short)14, 300);
            assertEquals(MirrorError.MIRROR_SYNC_REPLICATION_TIMEOUT.code(), v14.errorCode());
            assertTrue(v14.errorMessage().contains(MIRROR), v14.errorMessage());
            final ProduceResponseData.PartitionProduceResponse v13 = rawProduce(client, topicId, (short)13, 300);
            assertEquals(Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND.code(), v13.errorCode());
            final Future<RecordMetadata> sent = send(producer, topic);
            Clients.awaitCondition(() -> retries(producer) >= 2, 20_000, "the producer retried twice");
            assertFalse(sent.isDone(), "retrying while the mirror lags");
            assertEquals(0, highWatermark(topic));
            report(client, topic, topicId, 3, 3, List.of(11, 12));
            assertEquals(2, sent.get(20, TimeUnit.SECONDS).offset(), "the retry was deduplicated, not appended again");
        }
    }

    @Test
    @DisplayName("SU-11 a report for a topic the mirror has not registered is answered INVALID_SYNC_REGISTRATION")
    void shouldAnswerInvalidRegistrationForUnregisteredTopics() throws Exception
    {
        final String topic = "unregistered";
        final Uuid topicId = createRegistered(topic, false);
        try (MirrorWireClient client = wire())
        {
            final FetchResponseData response = report(client, topic, topicId, 0, 0, List.of(11, 12));
            assertEquals(1, response.responses().size());
            final FetchResponseData.PartitionData partition = response.responses().get(0).partitions().get(0);
            assertEquals(topicId, response.responses().get(0).topicId());
            assertEquals(MirrorError.INVALID_SYNC_REGISTRATION.code(), partition.errorCode());
        }
    }

    @Test
    @DisplayName("hazard 4: a Fetch v20 naming a registered mirror reads above the HW, up to the LEO")
    void shouldReadRegisteredPartitionsToTheLeo() throws Exception
    {
        final String topic = "to-leo";
        final Uuid topicId = createRegistered(topic, true);
        try (MirrorWireClient client = wire();
             KafkaProducer<byte[], byte[]> producer = Clients.producer(source.bootstrapServers(), Map.of()))
        {
            final Future<RecordMetadata> sent = send(producer, topic);
            final Partition partition = broker().replicaManager().partitionOrNull(new TopicPartition(topic, 0));
            Clients.awaitCondition(() -> partition.log().logEndOffset() == 1, 10_000, "appended");
            final FetchRequestData fetch = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0).setMinBytes(0)
                .setMaxBytes(1 << 20).setSessionId(0).setSessionEpoch(-1).setRackId("");
            fetch.topics().add(new FetchRequestData.FetchTopic().setTopicId(topicId).setPartitions(List.of(
                new FetchRequestData.FetchPartition().setPartition(0).setFetchOffset(0).setPartitionMaxBytes(1 << 20)
                    .setCurrentLeaderEpoch(leaderEpoch(topic)))));
            final FetchResponseData plain = client.fetch(fetch, null, (short)18);
            assertEquals(0, plain.responses().get(0).partitions().get(0).records().sizeInBytes(),
                "a consumer reads up to the HW, 0");
            final FetchResponseData mirror = client.fetch(fetch, new MirrorReplicaInfo().setMirrorName(MIRROR),
                (short)20);
            assertTrue(mirror.responses().get(0).partitions().get(0).records().sizeInBytes() > 0,
                "the mirror reads the unacknowledged record");
            report(client, topic, topicId, 1, 1, List.of(11, 12));
            assertEquals(0, sent.get(10, TimeUnit.SECONDS).offset());
        }
    }

    /** A report's error code for the topic's partition 0, or 0 when the report was accepted. */
    private static short reportError(final MirrorWireClient client, final String topic, final Uuid topicId)
        throws Exception
    {
        final FetchResponseData response = report(client, topic, topicId, 0, 0, List.of(11, 12));
        return response.responses().isEmpty() ? 0 : response.responses().get(0).partitions().get(0).errorCode();
    }

    @Test
    @DisplayName("SI-19 source part: a leader that knows it is behind on metadata answers "
        + "MIRROR_REGISTRATION_PROPAGATING until it applies the registration, then gates")
    void shouldAnswerPropagatingWhileTheRegistrationIsOnItsWay() throws Exception
    {
        final String topic = "propagating";
        final Uuid topicId = createRegistered(topic, false);
        try (MirrorWireClient client = wire())
        {
            broker().holdMetadata(BrokerLifecycleManager.MetadataHold.APPLY);
            broker().mirrorController().changeSyncRegistration(topicId, MIRROR, true).get(10, TimeUnit.SECONDS);
            Clients.awaitCondition(() -> broker().metadata().latestKnownOffset() >
                broker().metadata().appliedOffset(), 10_000, "the broker learns the controller is ahead");
            assertEquals(MirrorError.MIRROR_REGISTRATION_PROPAGATING.code(), reportError(client, topic, topicId));
            broker().holdMetadata(BrokerLifecycleManager.MetadataHold.NONE);
            broker().metadata().await(image -> image.syncState(topicId).registeredMirrors().contains(MIRROR))
                .get(10, TimeUnit.SECONDS);
            assertEquals(0, reportError(client, topic, topicId), "the next report is accepted");
        }
        finally
        {
            broker().holdMetadata(BrokerLifecycleManager.MetadataHold.NONE);
        }
    }

    @Test
    @DisplayName("SI-20 source part: a leader that does not even fetch metadata believes itself current and "
        + "answers INVALID_SYNC_REGISTRATION, then accepts reports once it catches up")
    void shouldAnswerInvalidWhenTheLeaderDoesNotKnowItIsBehind() throws Exception
    {
        final String topic = "stale-leader";
        final Uuid topicId = createRegistered(topic, false);
        try (MirrorWireClient client = wire())
        {
            broker().holdMetadata(BrokerLifecycleManager.MetadataHold.FETCH).get(10, TimeUnit.SECONDS);
            broker().mirrorController().changeSyncRegistration(topicId, MIRROR, true).get(10, TimeUnit.SECONDS);
            assertEquals(MirrorError.INVALID_SYNC_REGISTRATION.code(), reportError(client, topic, topicId));
            broker().holdMetadata(BrokerLifecycleManager.MetadataHold.NONE);
            broker().metadata().await(image -> image.syncState(topicId).registeredMirrors().contains(MIRROR))
                .get(10, TimeUnit.SECONDS);
            assertEquals(0, reportError(client, topic, topicId));
        }
        finally
        {
            broker().holdMetadata(BrokerLifecycleManager.MetadataHold.NONE);
        }
    }
}

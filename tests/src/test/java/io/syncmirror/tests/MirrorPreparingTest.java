package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.mirror.MirrorPartitionState;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PREPARING waits for the destination ISR before the mirror appends anything. */
@Timeout(120)
class MirrorPreparingTest
{
    private EmbeddedCluster source;
    private EmbeddedCluster destination;

    @BeforeEach
    void startClusters()
    {
        source = EmbeddedCluster.start(1, Mirrors.FAST);
        final Map<String, String> destinationConfig = new HashMap<>(Mirrors.FAST);
        destinationConfig.put("default.replication.factor", "3");
        destination = EmbeddedCluster.start(3, destinationConfig);
    }

    @AfterEach
    void stopClusters()
    {
        if (destination != null)
        {
            destination.close();
        }
        if (source != null)
        {
            source.close();
        }
    }

    @Test
    @DisplayName("AM-07 PREPARING waits until every destination ISR member has fetched since truncation, and skips "
        + "while fewer than min.insync.replicas are available; then MIRRORING")
    void shouldWaitForTheIsrBeforeMirroring() throws Exception
    {
        final String topic = "ledger";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Clients.admin(source.bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)1, Map.of());
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(source.bootstrapServers(), Map.of()))
            {
                for (int i = 0; i < 50; i++)
                {
                    producer.send(new ProducerRecord<>(topic, ("r" + i).getBytes(StandardCharsets.UTF_8))).get();
                }
            }
            // The mirror topic takes the source's configs: min.insync.replicas 2 on the destination (whose own
            // __mirror_state keeps the broker default of 1, so the paused followers below do not stop the
            // coordinator from recording its states).
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(
                new AlterConfigOp(new ConfigEntry("min.insync.replicas", "2"), AlterConfigOp.OpType.SET))))
                .all().get();
        }
        for (int node = 1; node <= 3; node++)
        {
            destination.broker(node).pauseReplication();
        }
        Mirrors.create(destination, "dr", source);
        Mirrors.addOk(destination, "dr", topic);
        Clients.awaitCondition(() -> Mirrors.allIn(destination, "dr", topic, 1, MirrorPartitionState.PREPARING.id()),
            30_000, "PREPARING");
        // Followers that do not fetch keep it PREPARING: first while they are still in the ISR, then while the
        // ISR is below min.insync.replicas once they left it (replica.lag.time.max.ms is 3 s here).
        final long holdUntilMs = System.currentTimeMillis() + 6_000;
        while (System.currentTimeMillis() < holdUntilMs)
        {
            final List<DescribeClusterMirrorsResponseData.MirrorPartition> partitions =
                Mirrors.partitions(destination, "dr", topic);
            assertEquals(MirrorPartitionState.PREPARING.id(), partitions.get(0).state());
            assertEquals(0, AsyncMirroringTest.leader(destination, tp).log().logEndOffset(),
                "nothing appended before MIRRORING");
            Thread.sleep(200);
        }
        for (int node = 1; node <= 3; node++)
        {
            destination.broker(node).resumeReplication();
        }
        Clients.awaitCondition(() -> Mirrors.allIn(destination, "dr", topic, 1, MirrorPartitionState.MIRRORING.id()),
            30_000, "MIRRORING once the ISR is back");
        Clients.awaitCondition(() -> AsyncMirroringTest.hw(destination, tp) == 50, 30_000, "caught up");
        assertTrue(AsyncMirroringTest.leader(destination, tp).role().isr().size() >= 2);
    }
}

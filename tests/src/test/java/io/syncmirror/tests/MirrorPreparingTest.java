package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.DescribeClusterMirrorsResponseData;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** PREPARING waits for the destination ISR before the mirror appends anything. */
@Timeout(120)
class MirrorPreparingTest
{
    @AutoClose
    private MirrorClusters clusters;

    @BeforeEach
    void startClusters()
    {
        clusters = MirrorClusters.start(1, 3, Map.of("default.replication.factor", "3"));
    }

    @Test
    @DisplayName("AM-07 PREPARING waits until every destination ISR member has fetched since truncation, and skips "
        + "while fewer than min.insync.replicas are available, saying so in describe; then MIRRORING")
    void shouldWaitForTheIsrBeforeMirroring() throws Exception
    {
        final String topic = "ledger";
        final TopicPartition tp = new TopicPartition(topic, 0);
        try (Admin admin = Clients.admin(clusters.source().bootstrapServers()))
        {
            Clients.createTopic(admin, topic, 1, (short)1, Map.of());
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(clusters.source().bootstrapServers(),
                Map.of()))
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
            clusters.destination().broker(node).pauseReplication();
        }
        clusters.createMirror("dr");
        Mirrors.addOk(clusters.destination(), "dr", topic);
        clusters.awaitState("dr", topic, 1, MirrorPartitionState.PREPARING, "PREPARING");
        // Followers that do not fetch keep it PREPARING: first while they are still in the ISR, then while the
        // ISR is below min.insync.replicas once they left it (replica.lag.time.max.ms is 3 s here).
        // While the ISR is below min.insync.replicas, describe says so in the partition's last error.
        final long holdUntilMs = System.currentTimeMillis() + 6_000;
        DescribeClusterMirrorsResponseData.MirrorPartition belowMinIsr = null;
        while (System.currentTimeMillis() < holdUntilMs)
        {
            final List<DescribeClusterMirrorsResponseData.MirrorPartition> partitions =
                Mirrors.partitions(clusters.destination(), "dr", topic);
            assertEquals(MirrorPartitionState.PREPARING.id(), partitions.get(0).state());
            assertEquals(0, AsyncMirroringTest.leader(clusters.destination(), tp).log().logEndOffset(),
                "nothing appended before MIRRORING");
            if (partitions.get(0).lastErrorCode() == Errors.NOT_ENOUGH_REPLICAS.code())
            {
                belowMinIsr = partitions.get(0);
            }
            Thread.sleep(200);
        }
        assertNotNull(belowMinIsr, "the ISR fell below min.insync.replicas and describe did not say so");
        assertTrue(belowMinIsr.lastErrorMessage().contains("min.insync.replicas"), belowMinIsr.lastErrorMessage());
        for (int node = 1; node <= 3; node++)
        {
            clusters.destination().broker(node).resumeReplication();
        }
        clusters.awaitState("dr", topic, 1, MirrorPartitionState.MIRRORING, "MIRRORING once the ISR is back");
        Clients.awaitCondition(() -> AsyncMirroringTest.hw(clusters.destination(), tp) == 50, 30_000, "caught up");
        assertEquals(Errors.NONE.code(), Mirrors.partitions(clusters.destination(), "dr", topic).get(0)
            .lastErrorCode(), "mirroring cleared the error");
        assertTrue(AsyncMirroringTest.leader(clusters.destination(), tp).role().isr().size() >= 2);
    }
}

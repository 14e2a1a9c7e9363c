package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.replica.Partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/** Failback: after a failover, the old source is mirrored back from the new primary and aligned with it. */
@Timeout(240)
class MirrorFailbackTest
{
    private static final String TOPIC = "accounts";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    @AutoClose
    private MirrorClusters clusters;

    @BeforeEach
    void startClusters()
    {
        clusters = MirrorClusters.start(1, 3, Map.of("default.replication.factor", "3"));
    }

    @Test
    @DisplayName("AM-10 failback truncates the old source to the last mirrored offset the new source recorded, "
        + "discarding what was never mirrored, then catches up byte for byte")
    void shouldAlignTheOldSourceAndCatchUp() throws Exception
    {
        final EmbeddedCluster primary = clusters.source();
        final EmbeddedCluster standby = clusters.destination();
        mirrorAndFailOver(primary, standby);

        // The old primary keeps taking writes that are never mirrored (split brain).
        produce(primary, "lost", 20);
        produce(standby, "after", 30);
        assertEquals(120, AsyncMirroringTest.hw(primary, TP));

        // Failback: the old primary mirrors the topic back from the new one.
        Mirrors.create(primary, "back", standby);
        Mirrors.addOk(primary, "back", TOPIC);
        final long target = AsyncMirroringTest.hw(standby, TP);
        Clients.awaitCondition(() -> Mirrors.allIn(primary, "back", TOPIC, 1, MirrorPartitionState.MIRRORING.id()) &&
            AsyncMirroringTest.hw(primary, TP) == target, 30_000, "failed back and caught up");
        assertArrayEquals(AsyncMirroringTest.batchBytes(standby, TP), AsyncMirroringTest.batchBytes(primary, TP),
            "the old primary's log is the new primary's, byte for byte");
        assertEquals(target, AsyncMirroringTest.leader(primary, TP).log().logEndOffset());
    }

    @Test
    @DisplayName("AM-10 failback of an old source whose last leadership wrote nothing: its epoch cache ends with "
        + "an epoch the new primary never had, and the mirror still fetches from the epoch of its last batch")
    void shouldFailBackWhenTheOldSourceLedAnEpochWithoutBatches() throws Exception
    {
        final EmbeddedCluster primary = clusters.source();
        final EmbeddedCluster standby = clusters.destination();
        mirrorAndFailOver(primary, standby);

        // The old primary takes new leaderships (a restart does this) but no writes: its cache ends with an epoch
        // above every epoch of the new primary, starting at its log end.
        final Partition old = AsyncMirroringTest.leader(primary, TP);
        final int bumped = Math.max(old.role().leaderEpoch(),
            AsyncMirroringTest.leader(standby, TP).role().leaderEpoch()) + 5;
        primary.broker(1).mirrorController().bumpLeaderEpochs(old.topicId(), Map.of(0, bumped), -1L)
            .get(10, TimeUnit.SECONDS);
        Clients.awaitCondition(() -> old.log().latestEpoch().orElse(-1) >= bumped, 10_000, "epoch applied");
        produce(standby, "after", 30);

        Mirrors.create(primary, "back", standby);
        Mirrors.addOk(primary, "back", TOPIC);
        Clients.awaitCondition(() -> Mirrors.allIn(primary, "back", TOPIC, 1, MirrorPartitionState.MIRRORING.id()) &&
            AsyncMirroringTest.hw(primary, TP) == 130, 30_000, "failed back and caught up");
        assertArrayEquals(AsyncMirroringTest.batchBytes(standby, TP), AsyncMirroringTest.batchBytes(primary, TP),
            "the old primary's log is the new primary's, byte for byte");
    }

    /** 100 records on the primary, mirrored to the standby, which then fails over. */
    private static void mirrorAndFailOver(final EmbeddedCluster primary, final EmbeddedCluster standby)
        throws Exception
    {
        try (Admin admin = Clients.admin(primary.bootstrapServers()))
        {
            Clients.createTopic(admin, TOPIC, 1, (short)1, Map.of());
        }
        produce(primary, "before", 100);
        Mirrors.create(standby, "dr", primary);
        Mirrors.addOk(standby, "dr", TOPIC);
        Clients.awaitCondition(() -> AsyncMirroringTest.hw(standby, TP) == 100, 30_000, "mirrored");
        Mirrors.remove(standby, "dr", TOPIC);
        Mirrors.awaitState(standby, "dr", TOPIC, 1, MirrorPartitionState.STOPPED, "STOPPED");
    }

    private static void produce(final EmbeddedCluster cluster, final String prefix, final int count) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < count; i++)
            {
                producer.send(new ProducerRecord<>(TOPIC, 0, null,
                    (prefix + "-" + i).getBytes(StandardCharsets.UTF_8))).get();
            }
        }
    }
}

package io.syncmirror.broker.replica;

import java.nio.charset.StandardCharsets;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A mirror topic's partition on the destination: read-only, mirrored appends, and the failover's guards. */
class PartitionMirrorTest
{
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = SingleBrokerReplicas.create(logs);
    private Partition partition;

    @BeforeEach
    void setUp()
    {
        partition = SingleBrokerReplicas.lead(replicas, TP, TOPIC_ID, 0,
            Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, "m"));
    }

    @AfterEach
    void tearDown()
    {
        replicas.close();
        logs.close();
    }

    /** A batch of one record as producer {@code producerId} (epoch 0, sequence 0) with source leader epoch 3. */
    private static MemoryRecords batch(final long producerId, final long offset, final String value)
    {
        final MemoryRecords records = MemoryRecords.withIdempotentRecords(offset, Compression.NONE, producerId,
            (short)0, 0, 3, new SimpleRecord(value.getBytes(StandardCharsets.UTF_8)));
        return records;
    }

    @Test
    void shouldRefuseProducersWhileMirroredAndRetriablyWhileFailingOver()
    {
        assertThrows(PolicyViolationException.class, () -> partition.appendAsLeader(batch(9, 0, "x"), false, null, 0,
            false));
        replicas.onTopicConfigChanged(TP.topic(), Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, "m.removed"));
        assertThrows(NotLeaderOrFollowerException.class, () -> partition.appendAsLeader(batch(9, 0, "x"), false,
            null, 0, false));
    }

    @Test
    void shouldKeepMirroredOffsetsAndEpochsAndHoldTheHwAtTheSourceHw()
    {
        partition.mirrorAppends(true);
        assertEquals(1, partition.appendMirrored(batch(7, 0, "a"), 0, 0));
        assertEquals(0, partition.log().highWatermark(), "the source had not committed it");
        assertEquals(2, partition.appendMirrored(batch(8, 1, "b"), 1, 0));
        assertEquals(1, partition.log().highWatermark());
        assertEquals(3, partition.log().latestEpoch().orElse(-1), "the source's epoch, not the destination's");
        partition.mirrorAppends(false);
        assertEquals(-1, partition.appendMirrored(batch(9, 2, "c"), 3, 0), "no append once stopped");
        assertEquals(-1, partition.truncateAsMirrorLeader(0, false, 0, true), "nor a fetcher's truncation");
        assertEquals(2, partition.log().logEndOffset());
    }

    @Test
    void shouldRefuseAProducerIdAMirroredProducerUsedAfterFailover()
    {
        partition.mirrorAppends(true);
        partition.appendMirrored(batch(7, 0, "mirrored"), 1, 0);
        partition.mirrorAppends(false);
        replicas.onTopicConfigChanged(TP.topic(), Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, "m.removed"));
        partition.mirrorPidResetOffset(1);
        partition.mirrorStopped(true);
        partition.liftMirrorHighWatermarkCap();

        // Same id, epoch and sequence as the mirrored batch: without the guard it would be "a duplicate".
        final ProducerFencedException refused = assertThrows(ProducerFencedException.class,
            () -> partition.appendAsLeader(batch(7, 0, "new"), false, null, 0, false));
        assertTrue(refused.getMessage().contains("producer id 7"), refused.getMessage());
        assertEquals(1, partition.log().logEndOffset());

        assertEquals(1, partition.appendAsLeader(batch(1007, 0, "new"), false, null, 0, false).firstOffset());
        assertEquals(2, partition.log().logEndOffset());
    }
}

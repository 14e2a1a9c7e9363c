package io.syncmirror.broker.replica;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Kafka's ISR join rule for a new leader: a follower joins only once it holds the LEO at which the leader's epoch
 * began, not merely the leader's HW, which lags what the previous leader committed. Without it a follower that
 * missed committed records joins, and wins the next election without them.
 */
@Timeout(30)
class LeaderEpochStartIsrTest
{
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final AtomicLong nowMs = new AtomicLong(1_000_000);
    private final RecordingIsrChannel isrChannel = new RecordingIsrChannel();
    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = isrChannel.replicas(logs, nowMs::get);

    @AfterEach
    void tearDown()
    {
        replicas.close();
        logs.close();
    }

    private Partition lead(final int epoch, final List<Integer> isr)
    {
        replicas.onPartitionChanged(new PartitionState(TP.topic(), TOPIC_ID, 0, List.of(1, 2, 3), isr, 1, epoch,
            epoch), Map.of());
        return replicas.partitionOrNull(TP);
    }

    @Test
    @DisplayName("a follower at the new leader's HW but below its epoch start offset does not join the ISR; at the "
        + "epoch start offset it does")
    void shouldNotLetAFollowerJoinBelowTheEpochStartOffset()
    {
        Partition partition = lead(0, List.of(1, 2));
        for (int i = 0; i < 10; i++)
        {
            partition.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(("r" + i).getBytes(StandardCharsets.UTF_8))), false, null, 0, false);
        }
        partition.onFollowerFetch(partition.role(), 2, 4, nowMs.get());
        assertEquals(4, partition.log().highWatermark());

        partition = lead(1, List.of(1, 2)); // a new epoch begins at LEO 10, its HW still 4
        partition.onFollowerFetch(partition.role(), 3, 6, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(), isrChannel.asked, "follower 3 is at the HW but lacks records 6..9");

        partition.onFollowerFetch(partition.role(), 3, 10, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(List.of(1, 2, 3)), isrChannel.asked);
    }
}

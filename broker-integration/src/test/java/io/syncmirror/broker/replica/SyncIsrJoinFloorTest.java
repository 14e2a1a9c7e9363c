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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Hazard 2 on a SYNC destination's leader: the source acknowledges up to the lowest LEO of the ISR the destination
 * reported, which can be above the destination's own HW (capped at the source's HW). A follower that joined the
 * ISR between that HW and that LEO would lack acknowledged records, and could be elected after the others fail.
 * So a follower joins only at or above the floor the reporter set.
 */
@Timeout(30)
class SyncIsrJoinFloorTest
{
    private static final Uuid TOPIC_ID = Uuid.randomUuid();
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final AtomicLong nowMs = new AtomicLong(1_000_000);
    private final RecordingIsrChannel isrChannel = new RecordingIsrChannel();
    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = isrChannel.replicas(logs, nowMs::get);
    private Partition partition;

    @BeforeEach
    void setUp()
    {
        replicas.onPartitionChanged(new PartitionState(TP.topic(), TOPIC_ID, 0, List.of(1, 2, 3), List.of(1, 2), 1, 0,
            0), Map.of(MirrorDefinition.MIRROR_NAME_CONFIG, "m"));
        partition = replicas.partitionOrNull(TP);
        partition.mirrorAppends(true);
        for (int offset = 0; offset < 10; offset++)
        {
            // The source has committed none of them yet: the destination's HW stays at 0.
            partition.appendMirrored(MemoryRecords.withIdempotentRecords(offset, Compression.NONE, 7L, (short)0,
                offset, 3, new SimpleRecord(("r" + offset).getBytes(StandardCharsets.UTF_8))), 0, 0);
        }
        partition.onFollowerFetch(partition.role(), 2, 10, nowMs.get());
        assertEquals(0, partition.log().highWatermark(), "held at the source's HW");
        // The reporter told the source that the whole ISR holds 10 records: the source may acknowledge them all.
        partition.syncIsrJoinFloor(10);
    }

    @AfterEach
    void tearDown()
    {
        replicas.close();
        logs.close();
    }

    @Test
    @DisplayName("hazard 2: a follower above the HW but below the reported ISR's lowest LEO does not join the ISR; "
        + "at that LEO it does")
    void shouldNotLetAFollowerJoinBelowTheReportedFloor()
    {
        partition.onFollowerFetch(partition.role(), 3, 5, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(), isrChannel.asked, "follower 3 lacks records 5..9, which the source may have acked");

        partition.onFollowerFetch(partition.role(), 3, 10, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(List.of(1, 2, 3)), isrChannel.asked);
    }

    @Test
    @DisplayName("hazard 2: with no report (floor -1) a follower joins at the HW, as in Kafka")
    void shouldJoinAtTheHwWhenNothingWasReported()
    {
        partition.syncIsrJoinFloor(-1L);
        partition.onFollowerFetch(partition.role(), 3, 5, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(List.of(1, 2, 3)), isrChannel.asked);
    }

    @Test
    @DisplayName("hazard 2: a floor above the leader's log (raised by a report built before the log was truncated) "
        + "does not keep out a follower that holds the whole log")
    void shouldLetAFollowerHoldingTheWholeLogJoinAfterATruncation()
    {
        assertEquals(6, partition.truncateAsMirrorLeader(6, false, nowMs.get(), true));
        // The reporter read the ISR's LEOs (10) before the truncation and raises the floor after it.
        partition.syncIsrJoinFloor(10);
        partition.onFollowerFetch(partition.role(), 3, 6, nowMs.get());
        replicas.maybeChangeIsr(partition, nowMs.get());
        assertEquals(List.of(List.of(1, 2, 3)), isrChannel.asked, "records 6..9 were cut: the source acked none");
    }
}

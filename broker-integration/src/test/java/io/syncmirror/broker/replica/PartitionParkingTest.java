package io.syncmirror.broker.replica;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.storage.MemoryLogStore;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

/**
 * Parked fetches on a partition: a waiter parked again and again is held once and woken once, and the wake-up
 * count lets a fetch that read the partition before an append, and parked after it, see that it missed it.
 */
@Timeout(30)
class PartitionParkingTest
{
    private static final TopicPartition TP = new TopicPartition("t", 0);

    private final MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM);
    private final ReplicaManager replicas = SingleBrokerReplicas.create(logs);
    private Partition partition;

    @BeforeEach
    void setUp()
    {
        partition = SingleBrokerReplicas.lead(replicas, TP, Uuid.randomUuid(), 1, Map.of());
    }

    @AfterEach
    void tearDown()
    {
        replicas.close();
        logs.close();
    }

    private void appendOne()
    {
        partition.appendAsLeader(MemoryRecords.withRecords(Compression.NONE,
            new SimpleRecord("v".getBytes(StandardCharsets.UTF_8))), false, null, 0, false);
    }

    @Test
    void shouldHoldAWaiterParkedManyTimesOnceAndWakeItOnce()
    {
        final AtomicInteger woken = new AtomicInteger();
        final Runnable waiter = woken::incrementAndGet;
        for (int i = 0; i < 1000; i++)
        {
            partition.parkUntilAppend(waiter);
        }

        appendOne();
        assertEquals(1, woken.get(), "parked a thousand times, woken once");

        appendOne();
        assertEquals(1, woken.get(), "a wake-up takes the waiter off: it parks again for the next one");
    }

    @Test
    void shouldCountEveryWakeUpSoThatAFetchThatParkedLateSeesWhatItMissed()
    {
        final long read = partition.wakeups();
        appendOne(); // between the fetch's read of the partition and its park: no waiter to wake yet
        final AtomicInteger woken = new AtomicInteger();
        partition.parkUntilAppend(woken::incrementAndGet);

        assertEquals(0, woken.get());
        assertNotEquals(read, partition.wakeups(), "the fetch sees a wake-up it missed and tries again");
    }

    @Test
    void shouldTakeAnUnparkedWaiterOffBothLists()
    {
        final AtomicInteger woken = new AtomicInteger();
        final Runnable waiter = woken::incrementAndGet;
        partition.parkUntilAppend(waiter);
        partition.parkUntilHighWatermark(waiter);

        partition.unpark(waiter);
        appendOne();

        assertEquals(0, woken.get());
    }
}

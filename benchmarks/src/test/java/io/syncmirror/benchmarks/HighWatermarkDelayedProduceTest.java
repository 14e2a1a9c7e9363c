package io.syncmirror.benchmarks;

import java.util.List;

import io.syncmirror.hwgate.HighWatermarkGate;
import io.syncmirror.offheap.PartitionTable;
import org.apache.kafka.server.purgatory.DelayedOperationPurgatory;
import org.apache.kafka.server.purgatory.TopicPartitionOperationKey;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HighWatermarkDelayedProduceTest
{
    private static final String TOPIC = "topic";

    private final PartitionTable table = new PartitionTable(4, 3, 0, 0);
    private final HighWatermarkGate gate = new HighWatermarkGate(table);
    private final HighWatermarkDelayedProduce.Outcomes outcomes = new HighWatermarkDelayedProduce.Outcomes();
    private DelayedOperationPurgatory<HighWatermarkDelayedProduce> purgatory;

    @BeforeEach
    void setUp()
    {
        for (int slot = 0; slot < 4; slot++)
        {
            table.initSlot(slot, 0L, 0b111, 2);
        }
        purgatory = new DelayedOperationPurgatory<>("Produce", 0, 1000);
    }

    @AfterEach
    void tearDown() throws Exception
    {
        purgatory.shutdown();
    }

    @Test
    void shouldCompleteOnceTheHighWatermarkOfEveryPartitionReachesItsOffset()
    {
        final HighWatermarkDelayedProduce produce = new HighWatermarkDelayedProduce(
            30_000L, table, new int[]{ 1, 2 }, new long[]{ 5L, 7L }, outcomes);

        assertFalse(purgatory.tryCompleteElseWatch(produce, List.of(key(1), key(2))));
        assertEquals(1, purgatory.numDelayed());

        replicateTo(1, 5L);
        purgatory.checkAndComplete(key(1));
        assertFalse(produce.isCompleted(), "partition 2 still lags");

        replicateTo(2, 6L);
        purgatory.checkAndComplete(key(2));
        assertFalse(produce.isCompleted(), "partition 2's HW is one short");

        replicateTo(2, 7L);
        assertEquals(1, purgatory.checkAndComplete(key(2)));
        assertTrue(produce.isCompleted());
        assertEquals(1, outcomes.completed());
        assertEquals(0, outcomes.expired());
        assertEquals(0, purgatory.numDelayed());
    }

    @Test
    void shouldCompleteAtOnceWhenTheHighWatermarkIsAlreadyThere()
    {
        replicateTo(3, 10L);
        final HighWatermarkDelayedProduce produce = new HighWatermarkDelayedProduce(
            30_000L, table, new int[]{ 3 }, new long[]{ 10L }, outcomes);

        assertTrue(purgatory.tryCompleteElseWatch(produce, List.of(key(3))));
        assertEquals(1, outcomes.completed());
    }

    @Test
    void shouldNotCompleteWhileOnlyTheLeaderHasTheRecords()
    {
        table.localLeo(0, 0, 4L);
        gate.maybeAdvance(0);
        final HighWatermarkDelayedProduce produce = new HighWatermarkDelayedProduce(
            30_000L, table, new int[]{ 0 }, new long[]{ 4L }, outcomes);

        assertFalse(purgatory.tryCompleteElseWatch(produce, List.of(key(0))));
        assertEquals(0, purgatory.checkAndComplete(key(0)));
        assertEquals(0, outcomes.completed());
    }

    private void replicateTo(final int slot, final long leo)
    {
        for (int replica = 0; replica < 3; replica++)
        {
            table.localLeo(slot, replica, leo);
        }
        gate.maybeAdvance(slot);
    }

    private static TopicPartitionOperationKey key(final int slot)
    {
        return new TopicPartitionOperationKey(TOPIC, slot);
    }
}

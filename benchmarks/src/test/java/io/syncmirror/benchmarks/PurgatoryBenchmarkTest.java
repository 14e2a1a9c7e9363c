package io.syncmirror.benchmarks;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class PurgatoryBenchmarkTest
{
    private static final int REQUESTS = 5_000;

    @Test
    void shouldDeliverEveryRequestOfOneWait()
    {
        shouldDeliverEveryRequestInOurPurgatory(1);
    }

    @Test
    void shouldDeliverEveryRequestOfThreeWaits()
    {
        shouldDeliverEveryRequestInOurPurgatory(3);
    }

    @Test
    void shouldCompleteEveryKafkaOperationOfOnePartition() throws Exception
    {
        shouldCompleteEveryKafkaOperation(1);
    }

    @Test
    void shouldCompleteEveryKafkaOperationOfThreePartitions() throws Exception
    {
        shouldCompleteEveryKafkaOperation(3);
    }

    @Test
    void shouldAdvanceTheHighWatermarkOfEachPartitionTheRequestsTouched()
    {
        final PurgatoryBenchmark.Workload workload = workload(3);
        final PurgatoryBenchmark.Ours ours = new PurgatoryBenchmark.Ours(workload);
        ours.produce(workload);

        for (int i = 0; i < 3; i++)
        {
            assertEquals(1L, workload.table.highWatermark(workload.slots[i]));
        }
    }

    @Test
    void shouldDeliverEveryRequestWhenOnlyTheHighWatermarkMoves()
    {
        for (int partitionsPerRequest = 1; partitionsPerRequest <= 3; partitionsPerRequest += 2)
        {
            final PurgatoryBenchmark.Workload workload = workload(partitionsPerRequest);
            final PurgatoryBenchmark.Ours ours = new PurgatoryBenchmark.Ours(workload);
            for (int i = 0; i < REQUESTS; i++)
            {
                assertEquals(1, PurgatoryBenchmark.produceWatchComplete(workload, ours), "request " + i);
            }
            ours.tearDown();
        }
    }

    @Test
    void shouldCompleteEveryKafkaOperationWhenOnlyTheHighWatermarkMoves() throws Exception
    {
        final PurgatoryBenchmark.Workload workload = workload(3);
        final PurgatoryBenchmark.Kafka kafka = new PurgatoryBenchmark.Kafka();
        for (int i = 1; i <= REQUESTS; i++)
        {
            assertEquals(i, PurgatoryBenchmark.produceWatchComplete(workload, kafka));
        }
        kafka.tearDown();
    }

    @Test
    void shouldDeliverEveryRequestOfABatchWithTheFollowersReportsBatched() throws Exception
    {
        for (int partitionsPerRequest = 1; partitionsPerRequest <= 3; partitionsPerRequest += 2)
        {
            final PurgatoryBenchmark.Workload workload = workload(partitionsPerRequest);
            final PurgatoryBenchmark.Ours ours = new PurgatoryBenchmark.Ours(workload);
            final PurgatoryBenchmark.Kafka kafka = new PurgatoryBenchmark.Kafka();
            try
            {
                for (int batch = 1; batch <= REQUESTS / PurgatoryBenchmark.BATCH; batch++)
                {
                    assertEquals(PurgatoryBenchmark.BATCH, ours.produceBatch(workload), "batch " + batch);
                    assertEquals((long)batch * PurgatoryBenchmark.BATCH, kafka.produceBatch(workload),
                        "Kafka's batch " + batch);
                }
                assertEquals(0, ours.handler.failedWaits);
                assertEquals(0, ours.shard.inFlight());
                assertEquals(0, kafka.purgatory.numDelayed());
                for (int i = 0; i < PurgatoryBenchmark.BATCH * partitionsPerRequest; i++)
                {
                    final int slot = workload.batchSlots[i];
                    assertEquals(workload.table.localLeo(slot, PurgatoryBenchmark.LEADER),
                        workload.table.highWatermark(slot), "HW of slot " + slot);
                }
            }
            finally
            {
                kafka.tearDown();
            }
            ours.tearDown();
        }
    }

    private static void shouldDeliverEveryRequestInOurPurgatory(final int partitionsPerRequest)
    {
        final PurgatoryBenchmark.Workload workload = workload(partitionsPerRequest);
        final PurgatoryBenchmark.Ours ours = new PurgatoryBenchmark.Ours(workload);

        for (int i = 0; i < REQUESTS; i++)
        {
            assertEquals(1, ours.produce(workload));
        }

        assertEquals(REQUESTS, ours.handler.delivered);
        assertEquals(0, ours.handler.failedWaits);
        assertEquals(0, ours.shard.inFlight());
        assertEquals(0, ours.shard.scheduledDeadlines());
        ours.tearDown();
    }

    private static void shouldCompleteEveryKafkaOperation(final int partitionsPerRequest) throws Exception
    {
        final PurgatoryBenchmark.Workload workload = workload(partitionsPerRequest);
        final PurgatoryBenchmark.Kafka kafka = new PurgatoryBenchmark.Kafka();
        try
        {
            for (int i = 1; i <= REQUESTS; i++)
            {
                assertEquals(i, kafka.produce(workload));
            }
            assertEquals(0, kafka.purgatory.numDelayed());
        }
        finally
        {
            kafka.tearDown();
        }
    }

    private static PurgatoryBenchmark.Workload workload(final int partitionsPerRequest)
    {
        return new PurgatoryBenchmark.Workload(1000, partitionsPerRequest);
    }
}

package io.syncmirror.broker.coordinator;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class CoordinatorsTest
{
    @Test
    void shouldLoadOnItsOwnThreadAndStopItsThreadsOnClose() throws Exception
    {
        final FakeReplicaAccess replicas = new FakeReplicaAccess();
        final FakeMetadataView metadata = new FakeMetadataView();
        metadata.addBroker(0);
        final FakeNodeClient client = new FakeNodeClient();
        final CoordinatorConfig config = new CoordinatorConfig(0, 1, (short) 1, 1, 900_000, 1_000L, 604_800_000L,
            3_600_000L, 1, (short) 1, 4096, 5_000L, 10L);
        try (Coordinators coordinators = new Coordinators(config, replicas, metadata,
            new FakeGroupOffsets(config, replicas), () -> 1L, () -> client, id -> client, Time.SYSTEM))
        {
            coordinators.startup();
            replicas.becomeLeader(new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC, 0), 1);
            final long deadlineNs = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (coordinators.transactions().coordinatorError("t") != Errors.NONE && System.nanoTime() < deadlineNs)
            {
                Thread.sleep(5);
            }
            assertEquals(Errors.NONE, coordinators.transactions().coordinatorError("t"));
        }
        Thread.sleep(50);
        for (final Thread thread : Thread.getAllStackTraces().keySet())
        {
            assertFalse(thread.getName().startsWith("coordinator-") && thread.isAlive(), thread.getName());
        }
    }
}

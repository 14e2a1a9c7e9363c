package io.syncmirror.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.metadata.PartitionState;

@Timeout(10)
class PartitionLogMetadataLogTest
{
    private final ManualClock clock = new ManualClock(0);

    @Test
    void shouldFlushEveryAppendAndCommitIt()
    {
        final FakePartitionLog partitionLog = new FakePartitionLog();
        final PartitionLogMetadataLog log = new PartitionLogMetadataLog(partitionLog);
        final Controller c = new Controller(log, clock, Map.of());
        ControllerFixture.registerAndUnfence(c, 1);
        assertEquals(2, log.highWatermark());
        assertEquals(2, partitionLog.flushes);
    }

    @Test
    void shouldReplayTheDurableLogAfterARestartThatForgotTheHighWatermark()
    {
        final FakePartitionLog partitionLog = new FakePartitionLog();
        final Controller before = new Controller(new PartitionLogMetadataLog(partitionLog), clock, Map.of());
        ControllerFixture.registerAndUnfence(before, 1);
        ControllerFixture.registerAndUnfence(before, 2);
        assertEquals(Errors.NONE.code(),
            ControllerFixture.createTopic(before, "t", 3, 2, Map.of("retention.ms", "10")).errorCode());
        final long pidStart = before.allocateProducerIds(new org.apache.kafka.common.message
            .AllocateProducerIdsRequestData().setBrokerId(1).setBrokerEpoch(before.brokerEpoch(1)))
            .producerIdStart();

        final FakePartitionLog reopened = partitionLog.reopen();
        assertEquals(0, reopened.highWatermark());
        final Controller after = new Controller(new PartitionLogMetadataLog(reopened), clock, Map.of());
        for (int p = 0; p < 3; p++)
        {
            final PartitionState s = after.partition("t", p).orElseThrow();
            assertEquals(before.partition("t", p).orElseThrow(), s);
        }
        assertEquals(Map.of("retention.ms", "10"), after.topicConfig("t"));
        assertEquals(before.brokerEpoch(2), after.brokerEpoch(2));
        assertTrue(after.nextProducerIdBlockStart() > pidStart);
    }
}

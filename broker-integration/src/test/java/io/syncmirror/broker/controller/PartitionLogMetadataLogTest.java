package io.syncmirror.broker.controller;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.metadata.MetadataRecordCodec;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.storage.DurableLogStore;
import io.syncmirror.broker.storage.PartitionLog;

/** The controller's metadata log on Kafka's own log engine, as the controller node runs it. */
@Timeout(30)
class PartitionLogMetadataLogTest
{
    private static final TopicPartition METADATA = new TopicPartition("__cluster_metadata", 0);

    private final ManualClock clock = new ManualClock(0);

    @TempDir
    Path dir;

    /** A store without timers: no checkpoint is written unless the test closes it cleanly. */
    private DurableLogStore open()
    {
        return new DurableLogStore(List.of(dir), Map.of(), Time.SYSTEM, 0, 0);
    }

    private static PartitionLog metadataLog(final DurableLogStore store)
    {
        return store.getOrCreate(METADATA, Uuid.METADATA_TOPIC_ID, PartitionLogMetadataLog.TOPIC_CONFIG);
    }

    @Test
    void shouldCommitEveryAppendAndKeepItAcrossACrash()
    {
        final DurableLogStore store = open();
        final PartitionLogMetadataLog log = new PartitionLogMetadataLog(metadataLog(store));
        ControllerFixture.registerAndUnfence(new Controller(log, clock, Map.of()), 1);
        assertEquals(2, log.highWatermark());
        store.crash();

        final DurableLogStore reopened = open();
        try
        {
            final PartitionLogMetadataLog recovered = new PartitionLogMetadataLog(metadataLog(reopened));
            assertEquals(2, recovered.endOffset());
            assertEquals(2, MetadataRecordCodec.decodeAll(recovered.read(0, 1 << 20)).size());
        }
        finally
        {
            reopened.close();
        }
    }

    @Test
    void shouldReplayTheDurableLogAfterARestartThatForgotTheHighWatermark()
    {
        final DurableLogStore store = open();
        final Controller before = new Controller(new PartitionLogMetadataLog(metadataLog(store)), clock, Map.of());
        ControllerFixture.registerAndUnfence(before, 1);
        ControllerFixture.registerAndUnfence(before, 2);
        assertEquals(Errors.NONE.code(),
            ControllerFixture.createTopic(before, "t", 3, 2, Map.of("retention.ms", "10")).errorCode());
        final long pidStart = before.allocateProducerIds(new AllocateProducerIdsRequestData().setBrokerId(1)
            .setBrokerEpoch(before.brokerEpoch(1))).producerIdStart();
        store.crash(); // no HW checkpoint: the reopened log knows its records, not its HW

        final DurableLogStore reopened = open();
        try
        {
            final PartitionLog log = metadataLog(reopened);
            assertEquals(0, log.highWatermark());
            final Controller after = new Controller(new PartitionLogMetadataLog(log), clock, Map.of());
            for (int p = 0; p < 3; p++)
            {
                final PartitionState s = after.partition("t", p).orElseThrow();
                assertEquals(before.partition("t", p).orElseThrow(), s);
            }
            assertEquals(Map.of("retention.ms", "10"), after.topicConfig("t"));
            assertEquals(before.brokerEpoch(2), after.brokerEpoch(2));
            assertTrue(after.nextProducerIdBlockStart() > pidStart);
        }
        finally
        {
            reopened.close();
        }
    }
}

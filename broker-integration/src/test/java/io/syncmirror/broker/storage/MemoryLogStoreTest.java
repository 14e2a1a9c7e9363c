package io.syncmirror.broker.storage;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class MemoryLogStoreTest
{
    private final ManualTime time = new ManualTime(1_700_000_000_000L);

    @Test
    void getOrCreateReturnsOneLogPerPartitionAndDeleteForgetsIt()
    {
        try (MemoryLogStore store = new MemoryLogStore(Map.of(), time))
        {
            final TopicPartition tp = new TopicPartition("t", 1);
            final Uuid id = Uuid.randomUuid();
            final PartitionLog log = store.getOrCreate(tp, id, Map.of());

            assertSame(log, store.getOrCreate(tp, id, Map.of()));
            assertEquals(id, log.topicId());
            assertTrue(store.lastShutdownClean());
            store.delete(tp);
            assertTrue(store.get(tp).isEmpty());
        }
    }

    @Test
    void brokerDefaultsApplyUnderTopicOverrides()
    {
        try (MemoryLogStore store = new MemoryLogStore(Map.of("message.timestamp.type", "LogAppendTime"), time))
        {
            final PartitionLog defaults = store.getOrCreate(new TopicPartition("t", 0), Uuid.randomUuid(), Map.of());
            final PartitionLog overridden = store.getOrCreate(new TopicPartition("t", 1), Uuid.randomUuid(),
                Map.of("message.timestamp.type", "CreateTime"));
            final SimpleRecord record = new SimpleRecord(time.milliseconds() - 5, null, new byte[] {1});

            assertEquals(time.milliseconds(),
                defaults.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record), 0).logAppendTimeMs());
            assertEquals(-1L,
                overridden.appendAsLeader(MemoryRecords.withRecords(Compression.NONE, record), 0).logAppendTimeMs());
        }
    }
}

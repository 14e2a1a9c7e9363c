package io.syncmirror.broker.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MetadataRecordCodecTest
{
    private static final Uuid ID = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");

    static List<MetadataRecord> everyType()
    {
        return List.of(
            new MetadataRecord.RegisterBroker(1, 7, Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg"), "host", 9092, null),
            new MetadataRecord.RegisterBroker(2, 8, ID, "h\u00e9", 1, "rack-a"),
            new MetadataRecord.FenceBroker(1, 7),
            new MetadataRecord.UnfenceBroker(1, 7),
            new MetadataRecord.Topic("orders", ID),
            new MetadataRecord.Partition(new PartitionState("orders", ID, 3, List.of(1, 2, 3), List.of(2, 1), 2, 5, 9)),
            new MetadataRecord.PartitionChange(ID, 3, List.of(), -1, 6, 10),
            new MetadataRecord.RemoveTopic(ID),
            new MetadataRecord.Config("orders", "retention.ms", "1000"),
            new MetadataRecord.Config("orders", "retention.ms", null),
            new MetadataRecord.ProducerIds(1, 7, 5000));
    }

    @Test
    void shouldRoundTripEveryRecordType()
    {
        for (final MetadataRecord record : everyType())
        {
            assertEquals(record, MetadataRecordCodec.decode(ByteBuffer.wrap(MetadataRecordCodec.encode(record))));
        }
    }

    @Test
    void shouldRoundTripABatchWithOffsets()
    {
        final MemoryRecords batch = MetadataRecordCodec.encodeBatch(40, 123, everyType());
        final List<MetadataRecordCodec.OffsetRecord> decoded = MetadataRecordCodec.decodeAll(batch);
        final List<MetadataRecord> records = new ArrayList<>();
        for (int i = 0; i < decoded.size(); i++)
        {
            assertEquals(40 + i, decoded.get(i).offset());
            records.add(decoded.get(i).record());
        }
        assertEquals(everyType(), records);
    }

    @Test
    void shouldRefuseNewerVersionsUnknownTypesAndTruncation()
    {
        final byte[] bytes = MetadataRecordCodec.encode(new MetadataRecord.FenceBroker(1, 2));
        final byte[] newerFrame = bytes.clone();
        newerFrame[1] = 1;
        assertThrows(CorruptRecordException.class, () -> MetadataRecordCodec.decode(ByteBuffer.wrap(newerFrame)));
        final byte[] unknownType = bytes.clone();
        unknownType[2] = 99;
        assertThrows(CorruptRecordException.class, () -> MetadataRecordCodec.decode(ByteBuffer.wrap(unknownType)));
        assertThrows(CorruptRecordException.class,
            () -> MetadataRecordCodec.decode(ByteBuffer.wrap(Arrays.copyOf(bytes, bytes.length - 1))));
    }
}

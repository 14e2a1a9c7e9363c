package io.syncmirror.broker.metadata;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.CorruptRecordException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.junit.jupiter.api.DisplayName;
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
            new MetadataRecord.RegisterBroker(3, 9, ID, "10.0.0.3", 9092, null, List.of(
                new ListenerEndpoint("INTERNAL", "10.0.0.3", 9092),
                new ListenerEndpoint("EXTERNAL", "b3.example", 9093))),
            new MetadataRecord.FenceBroker(1, 7),
            new MetadataRecord.UnfenceBroker(1, 7),
            new MetadataRecord.Topic("orders", ID),
            new MetadataRecord.Partition(new PartitionState("orders", ID, 3, List.of(1, 2, 3), List.of(2, 1), 2, 5, 9)),
            new MetadataRecord.PartitionChange(ID, 3, List.of(), -1, 6, 10),
            new MetadataRecord.RemoveTopic(ID),
            new MetadataRecord.Config("orders", "retention.ms", "1000"),
            new MetadataRecord.Config("orders", "retention.ms", null),
            new MetadataRecord.ProducerIds(1, 7, 5000),
            new MetadataRecord.ProducerIdFloor(123_456_789_012L),
            new MetadataRecord.Mirror("m1", "src:9092,src2:9093", Map.of("security.protocol", "PLAINTEXT",
                "sasl.jaas.config", "k=\u00e9"), List.of("orders.*", "payments"), List.of("orders\\.tmp.*")),
            new MetadataRecord.Mirror("m2", "", Map.of(), List.of(), List.of()),
            new MetadataRecord.RemoveMirror("m1"),
            new MetadataRecord.MirrorSyncRegistrationChange(new Uuid(5L, 6L), "dr", true),
            new MetadataRecord.MirrorSyncRegistrationChange(new Uuid(5L, 7L), "dr", false),
            new MetadataRecord.MirrorTopicTypeChange(new Uuid(5L, 8L), (byte)1),
            new MetadataRecord.UserScramCredential("carol", (byte)2, new byte[] {1, 2, 3}, new byte[64],
                new byte[] {-1, 0, 7}, 8192),
            new MetadataRecord.RemoveUserScramCredential("carol", (byte)1),
            new MetadataRecord.Acl(new Uuid(9L, 10L), (byte)2, "orders", (byte)3, "User:carol", "*", (byte)4,
                (byte)3),
            new MetadataRecord.RemoveAcl(new Uuid(9L, 10L)));
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
    void shouldWriteAOneEndpointRegistrationAtVersionZeroAndListenersAtVersionOne()
    {
        final byte[] one = MetadataRecordCodec.encode(new MetadataRecord.RegisterBroker(1, 7, ID, "h", 1, null));
        assertEquals(0, ByteBuffer.wrap(one, 3, 2).getShort(), "unchanged for one endpoint");
        final byte[] many = MetadataRecordCodec.encode(new MetadataRecord.RegisterBroker(1, 7, ID, "h", 1, null,
            List.of(new ListenerEndpoint("A", "h", 1), new ListenerEndpoint("B", "h", 2))));
        assertEquals(1, ByteBuffer.wrap(many, 3, 2).getShort());
        final byte[] corrupt = many.clone();
        // The listener count sits after the v0 fields; a count past the record's end is refused, not allocated.
        ByteBuffer.wrap(corrupt, one.length, 4).putInt(Integer.MAX_VALUE);
        assertThrows(CorruptRecordException.class, () -> MetadataRecordCodec.decode(ByteBuffer.wrap(corrupt)));
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

    @Test
    @DisplayName("A mirror record keeps its filters in order and its source configs whole, and names no secret")
    void shouldRoundTripAMirrorKeepingOrderAndHidingConfigValuesInToString()
    {
        final MetadataRecord.Mirror mirror = new MetadataRecord.Mirror("m", "a:1", Map.of("sasl.jaas.config",
            "secret-value"), List.of("z.*", "a.*"), List.of("x"));
        final MetadataRecord.Mirror decoded = (MetadataRecord.Mirror) MetadataRecordCodec.decode(
            ByteBuffer.wrap(MetadataRecordCodec.encode(mirror)));
        assertEquals(List.of("z.*", "a.*"), decoded.includeTopics());
        assertEquals(mirror.definition(), decoded.definition());
        assertFalse(decoded.toString().contains("secret-value"), decoded.toString());
    }

    @Test
    @DisplayName("A mirror record carries its mirror configs; one written before they existed reads as none")
    void shouldRoundTripMirrorConfigsAndReadAnOlderMirrorRecordAsHavingNone()
    {
        final MetadataRecord.Mirror withConfigs = new MetadataRecord.Mirror("m", "a:1", Map.of(), List.of("t"),
            List.of(), Map.of("acl.sync.enable", "true"));
        final MetadataRecord.Mirror decoded = (MetadataRecord.Mirror) MetadataRecordCodec.decode(
            ByteBuffer.wrap(MetadataRecordCodec.encode(withConfigs)));
        assertEquals(Map.of("acl.sync.enable", "true"), decoded.mirrorConfigs());
        assertEquals(withConfigs, decoded);

        final MetadataRecord.Mirror without = new MetadataRecord.Mirror("m", "a:1", Map.of(), List.of("t"), List.of());
        final byte[] older = MetadataRecordCodec.encode(without);
        assertEquals(Map.of(), ((MetadataRecord.Mirror) MetadataRecordCodec.decode(ByteBuffer.wrap(older)))
            .mirrorConfigs());
    }

    @Test
    void shouldRefuseATruncatedMirrorRecord()
    {
        final byte[] bytes = MetadataRecordCodec.encode(new MetadataRecord.Mirror("m", "a:1", Map.of("k", "v"),
            List.of("t"), List.of()));
        for (int cut = 1; cut < bytes.length - 5; cut++)
        {
            final byte[] truncated = Arrays.copyOf(bytes, bytes.length - cut);
            assertThrows(CorruptRecordException.class, () -> MetadataRecordCodec.decode(ByteBuffer.wrap(truncated)));
        }
    }
}

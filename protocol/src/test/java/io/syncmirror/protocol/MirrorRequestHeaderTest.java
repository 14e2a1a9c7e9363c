package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.message.ResponseHeaderData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(10)
class MirrorRequestHeaderTest
{
    private static ByteBuffer write(final MirrorRequestHeader header, final int bodyBytes)
    {
        final ByteBuffer buffer = ByteBuffer.allocate(header.size() + bodyBytes);
        header.write(buffer);
        assertEquals(header.size(), buffer.position());
        for (int i = 0; i < bodyBytes; i++)
        {
            buffer.put((byte)(0x70 + i));
        }
        return buffer.flip();
    }

    @Test
    void shouldRoundTripAndLeaveThePositionAtTheBody()
    {
        for (final String clientId : new String[] {null, "", "producer-1", MirrorMessageSamples.UNICODE_NAME})
        {
            final MirrorRequestHeader header = new MirrorRequestHeader(MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE,
                (short)0, -7, clientId, List.of(new RawTaggedField(2, new byte[] {9})));
            final ByteBuffer buffer = write(header, 3);
            assertEquals(MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE.id(), MirrorRequestHeader.peekApiKey(buffer));
            assertEquals(0, buffer.position(), "peek must not consume");
            final MirrorRequestHeader parsed = MirrorRequestHeader.parse(buffer);
            assertEquals(header, parsed);
            assertEquals(clientId, parsed.clientId());
            assertEquals(3, buffer.remaining());
            assertEquals(0x70, buffer.get());
        }
    }

    @Test
    void shouldLayOutBytesAsKafkaRequestHeaderVersionTwo()
    {
        final MirrorRequestHeader header = new MirrorRequestHeader(MirrorApiKeys.ADD_TOPICS_TO_MIRROR, (short)0,
            0x01020304, "c");
        assertArrayEquals(new byte[] {0, 95, 0, 0, 1, 2, 3, 4, 0, 1, 'c', 0}, write(header, 0).array());

        // The same bytes under a key kafka-clients knows at a header-version-2 api version parse identically
        // with kafka-clients' own parser: the layouts agree.
        final ByteBuffer kafka = write(new MirrorRequestHeader(MirrorApiKeys.ADD_TOPICS_TO_MIRROR, (short)0, 77,
            "admin-1"), 0);
        kafka.putShort(0, ApiKeys.METADATA.id);
        kafka.putShort(2, ApiKeys.METADATA.latestVersion());
        final RequestHeader parsed = RequestHeader.parse(kafka);
        assertEquals(2, parsed.headerVersion());
        assertEquals(77, parsed.correlationId());
        assertEquals("admin-1", parsed.clientId());
        assertFalse(kafka.hasRemaining());
    }

    @Test
    void shouldBeUnparseableByKafkaClientsForMirrorKeys()
    {
        final ByteBuffer buffer = write(new MirrorRequestHeader(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC, (short)0,
            1, "x"), 0);
        assertThrows(RuntimeException.class, () -> RequestHeader.parse(buffer.duplicate()));
        assertEquals(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC, MirrorRequestHeader.parse(buffer).apiKey());
    }

    @Test
    void shouldReportUnsupportedVersionsWithoutRejectingTheHeader()
    {
        final MirrorRequestHeader parsed = MirrorRequestHeader.parse(write(new MirrorRequestHeader(
            MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS, (short)3, 1, null), 0));
        assertEquals(3, parsed.apiVersion());
        assertFalse(parsed.isApiVersionSupported());
    }

    @Test
    void shouldRejectKeysThatAreNotMirrorRpcs()
    {
        for (final short key : new short[] {0, 3, 94, MirrorApiKeys.MAX_ID + 1, 1000, -1})
        {
            final ByteBuffer buffer = write(new MirrorRequestHeader(MirrorApiKeys.ADD_TOPICS_TO_MIRROR, (short)0, 1,
                "c"), 0);
            buffer.putShort(0, key);
            assertFalse(MirrorRequestHeader.isMirrorApiKey(key));
            assertThrows(InvalidRequestException.class, () -> MirrorRequestHeader.parse(buffer), "key " + key);
        }
    }

    @Test
    void shouldRejectEveryTruncation()
    {
        final byte[] whole = write(new MirrorRequestHeader(MirrorApiKeys.ADD_TOPICS_TO_MIRROR, (short)0, 1,
            "client", List.of(new RawTaggedField(1, new byte[] {1, 2}))), 0).array();
        for (int length = 0; length < whole.length; length++)
        {
            final ByteBuffer cut = ByteBuffer.wrap(Arrays.copyOf(whole, length));
            assertThrows(InvalidRequestException.class, () -> MirrorRequestHeader.parse(cut), "cut to " + length);
        }
        assertEquals(-1, MirrorRequestHeader.peekApiKey(ByteBuffer.allocate(1)));
    }

    @Test
    void shouldRejectBadClientIdLengths()
    {
        final byte[] negative = {0, 95, 0, 0, 0, 0, 0, 1, (byte)0xFF, (byte)0xFE, 0};
        assertThrows(InvalidRequestException.class, () -> MirrorRequestHeader.parse(ByteBuffer.wrap(negative)));
        final byte[] overrun = {0, 95, 0, 0, 0, 0, 0, 1, 0x7F, (byte)0xFF, 'a', 0};
        assertThrows(InvalidRequestException.class, () -> MirrorRequestHeader.parse(ByteBuffer.wrap(overrun)));
        final byte[] nullId = {0, 95, 0, 0, 0, 0, 0, 1, (byte)0xFF, (byte)0xFF, 0};
        assertNull(MirrorRequestHeader.parse(ByteBuffer.wrap(nullId)).clientId());
    }

    @Test
    void shouldRejectGarbageTaggedFields()
    {
        final byte[] hugeCount = {0, 95, 0, 0, 0, 0, 0, 1, (byte)0xFF, (byte)0xFF, (byte)0xFF, (byte)0xFF, 0x07};
        assertThrows(InvalidRequestException.class, () -> MirrorRequestHeader.parse(ByteBuffer.wrap(hugeCount)));
        final byte[] badVarint = {0, 95, 0, 0, 0, 0, 0, 1, (byte)0xFF, (byte)0xFF, (byte)0x80, (byte)0x80,
            (byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80};
        assertThrows(InvalidRequestException.class, () -> MirrorRequestHeader.parse(ByteBuffer.wrap(badVarint)));
    }

    @Test
    void shouldWriteResponseHeaderVersionOneAsKafkaDoes()
    {
        final MirrorResponseHeader header = new MirrorResponseHeader(0x0A0B0C0D);
        final ByteBuffer ours = ByteBuffer.allocate(header.size());
        header.write(ours);

        final ResponseHeaderData kafkaHeader = new ResponseHeaderData().setCorrelationId(0x0A0B0C0D);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer theirs = ByteBuffer.allocate(kafkaHeader.size(cache, (short)1));
        kafkaHeader.write(new ByteBufferAccessor(theirs), cache, (short)1);
        assertArrayEquals(theirs.array(), ours.array());
    }

    @Test
    void shouldRoundTripResponseHeadersWithTagsAndRejectTruncation()
    {
        final MirrorResponseHeader header = new MirrorResponseHeader(42,
            List.of(new RawTaggedField(0, new byte[] {5})));
        final ByteBuffer buffer = ByteBuffer.allocate(header.size() + 1);
        header.write(buffer);
        buffer.put((byte)0x33).flip();
        assertEquals(header, MirrorResponseHeader.parse(buffer));
        assertEquals(0x33, buffer.get());
        final byte[] whole = Arrays.copyOf(buffer.array(), header.size());
        for (int length = 0; length < whole.length; length++)
        {
            final ByteBuffer cut = ByteBuffer.wrap(Arrays.copyOf(whole, length));
            assertThrows(InvalidRequestException.class, () -> MirrorResponseHeader.parse(cut));
        }
        assertTrue(new MirrorRequestHeader(MirrorApiKeys.ADD_TOPICS_TO_MIRROR, (short)0, 9, null)
            .toResponseHeader().equals(new MirrorResponseHeader(9)));
    }
}

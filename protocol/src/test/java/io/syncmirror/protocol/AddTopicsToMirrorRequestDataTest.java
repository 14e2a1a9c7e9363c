package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Byte-exact checks of AddTopicsToMirrorRequest version 0 against layouts worked out by hand from the schema. */
@Timeout(10)
class AddTopicsToMirrorRequestDataTest
{
    private static byte[] bytes(final ApiMessage message)
    {
        return MirrorMessageSamples.bytes(message);
    }

    private static AddTopicsToMirrorRequestData read(final byte[] bytes)
    {
        return MirrorMessageSamples.read(bytes, new AddTopicsToMirrorRequestData());
    }

    @Test
    void shouldEncodeOneSyncTopicAsTheSchemaLaysItOut()
    {
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopics(List.of(
            new AddTopicsToMirrorRequestData.TopicState()
                .setTopicId(new Uuid(0x0102030405060708L, 0x090A0B0C0D0E0F10L))
                .setTopicName("t1").setMirrorName("m").setMirrorType((byte)1)));
        final byte[] expected = {
            0x02,                                            // Topics: compact array, 1 element + 1
            0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // TopicId: most significant 8 bytes
            0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10,  // TopicId: least significant 8 bytes
            0x03, 't', '1',                                  // TopicName: compact string, 2 bytes + 1
            0x02, 'm',                                       // MirrorName: nullable compact string, 1 byte + 1
            0x01,                                            // MirrorType: int8 SYNC
            0x00,                                            // TopicState tagged fields: none
            0x00,                                            // top-level tagged fields: none
        };
        assertArrayEquals(expected, bytes(request));
        assertEquals(expected.length, request.size(new org.apache.kafka.common.protocol.ObjectSerializationCache(),
            (short)0));
        assertEquals(request, read(expected));
    }

    @Test
    void shouldEncodeANullMirrorNameAsZeroAndTheDefaultTypeAsAsync()
    {
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopics(List.of(
            new AddTopicsToMirrorRequestData.TopicState().setTopicName("a")));
        final byte[] expected = {
            0x02,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // TopicId: Uuid.ZERO_UUID by default
            0x02, 'a',
            0x00,                                            // MirrorName: null is length+1 = 0
            0x00,                                            // MirrorType: default 0 = ASYNC
            0x00,
            0x00,
        };
        assertArrayEquals(expected, bytes(request));
        final AddTopicsToMirrorRequestData parsed = read(expected);
        assertEquals(null, parsed.topics().get(0).mirrorName());
        assertEquals(MirrorType.ASYNC.id(), parsed.topics().get(0).mirrorType());
    }

    @Test
    void shouldEncodeAnEmptyRequestAsAnEmptyArrayAndNoTags()
    {
        assertArrayEquals(new byte[] {0x01, 0x00}, bytes(new AddTopicsToMirrorRequestData()));
    }

    @Test
    void shouldEncodeUnknownTaggedFieldsAsCountTagSizeAndData()
    {
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData();
        request.unknownTaggedFields().addAll(List.of(new RawTaggedField(5, new byte[] {(byte)0xAB}),
            new RawTaggedField(200, new byte[] {1, 2})));
        final byte[] expected = {
            0x01,                     // Topics: empty
            0x02,                     // two tagged fields
            0x05, 0x01, (byte)0xAB,   // tag 5, size 1, data
            (byte)0xC8, 0x01, 0x02, 1, 2, // tag 200 as varint (0xC8 0x01), size 2, data
        };
        assertArrayEquals(expected, bytes(request));
        assertEquals(request, read(expected));
    }

    @Test
    void shouldCountUtf8BytesNotCharsInStringLengths()
    {
        // U+00E9 is two bytes in UTF-8 and U+1F600 four (a surrogate pair of two chars).
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopics(List.of(
            new AddTopicsToMirrorRequestData.TopicState().setTopicName("\u00e9\ud83d\ude00")));
        final byte[] encoded = bytes(request);
        assertEquals(7, encoded[17], "length+1 of a 6-byte name");
        assertEquals(request, read(encoded));
    }

    @Test
    void shouldEncodeTopicPatternsAsTaggedFieldZero()
    {
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopicPatterns(List.of(
            new AddTopicsToMirrorRequestData.TopicPattern().setPattern("a.*").setMirrorName("m")
                .setMirrorType((byte)1)));
        final byte[] expected = {
            0x01,                     // Topics: empty
            0x01,                     // one tagged field
            0x00, 0x09,               // tag 0 (TopicPatterns), size 9
            0x02,                     //   compact array, 1 element + 1
            0x04, 'a', '.', '*',      //   Pattern
            0x02, 'm',                //   MirrorName
            0x01,                     //   MirrorType SYNC
            0x00,                     //   TopicPattern tagged fields: none
        };
        assertArrayEquals(expected, bytes(request));
        assertEquals(expected.length, request.size(new org.apache.kafka.common.protocol.ObjectSerializationCache(),
            (short)0));
        final AddTopicsToMirrorRequestData parsed = read(expected);
        assertEquals(request, parsed);
        assertEquals("a.*", parsed.topicPatterns().get(0).pattern());
        assertEquals(List.of(), parsed.unknownTaggedFields(), "a known tag is not kept as unknown");
    }

    @Test
    void shouldEncodeARequestWithoutPatternsByteForByteAsTheSpecVersionZero()
    {
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopics(List.of(
            new AddTopicsToMirrorRequestData.TopicState().setTopicName("a"))).setTopicPatterns(List.of());
        final byte[] expected = {
            0x02,
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
            0x02, 'a',
            0x00,
            0x00,
            0x00,
            0x00,                     // top-level tagged fields: none, since TopicPatterns is empty
        };
        assertArrayEquals(expected, bytes(request));
    }

    @Test
    void shouldMergeTopicPatternsWithUnknownTagsInTagOrderAndKeepTheUnknownOnes()
    {
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopicPatterns(List.of(
            new AddTopicsToMirrorRequestData.TopicPattern().setPattern("x").setMirrorName("m")));
        request.unknownTaggedFields().addAll(List.of(new RawTaggedField(3, new byte[] {9})));
        final byte[] encoded = bytes(request);
        assertEquals(0x02, encoded[1], "two tagged fields");
        assertEquals(0x00, encoded[2], "tag 0 first");
        final AddTopicsToMirrorRequestData parsed = read(encoded);
        assertEquals(request, parsed);
        assertEquals(List.of(new RawTaggedField(3, new byte[] {9})), parsed.unknownTaggedFields());
        assertEquals(1, parsed.topicPatterns().size());
    }

    @Test
    void shouldRefuseToWriteTagZeroBothAsTopicPatternsAndAsAnUnknownField()
    {
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopicPatterns(List.of(
            new AddTopicsToMirrorRequestData.TopicPattern().setPattern("x").setMirrorName("m")));
        request.unknownTaggedFields().addAll(List.of(new RawTaggedField(0, new byte[] {1})));
        assertThrows(IllegalStateException.class, () -> bytes(request));
    }

    @Test
    void shouldRejectTopicPatternsDataWithTrailingOrMissingBytes()
    {
        // Tag 0 of size 2 holding an empty array (1 byte) and one stray byte.
        assertThrows(InvalidRequestException.class, () -> read(new byte[] {0x01, 0x01, 0x00, 0x02, 0x01, 0x07}));
        // Tag 0 of size 1 claiming one pattern that is not there.
        assertThrows(InvalidRequestException.class, () -> read(new byte[] {0x01, 0x01, 0x00, 0x01, 0x02}));
    }

    @Test
    void shouldResetTopicPatternsWhenReadingAMessageWithoutThem()
    {
        final AddTopicsToMirrorRequestData reused = new AddTopicsToMirrorRequestData().setTopicPatterns(List.of(
            new AddTopicsToMirrorRequestData.TopicPattern().setPattern("x").setMirrorName("m")));
        reused.read(new ByteBufferAccessor(ByteBuffer.wrap(new byte[] {0x01, 0x00})), (short)0);
        assertEquals(List.of(), reused.topicPatterns());
    }
}

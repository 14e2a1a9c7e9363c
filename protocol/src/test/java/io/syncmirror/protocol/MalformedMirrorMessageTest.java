package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Random;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Malformed input must fail fast with {@link InvalidRequestException}: never another exception type, never a
 * hang, never an allocation sized by an untrusted length.
 */
@Timeout(20)
class MalformedMirrorMessageTest
{
    private static byte[] encode(final ApiMessage message)
    {
        return MirrorMessageSamples.bytes(message);
    }

    private static void read(final ApiMessage into, final byte[] bytes)
    {
        MirrorMessageSamples.read(bytes, into);
    }

    @ParameterizedTest
    @EnumSource(MirrorApiKeys.class)
    void shouldRejectEveryTruncationOfEveryMessage(final MirrorApiKeys key)
    {
        for (final boolean request : new boolean[] {true, false})
        {
            final ApiMessage sample = MirrorMessageSamples.withUnknownTags(
                request ? MirrorMessageSamples.request(key) : MirrorMessageSamples.response(key));
            final byte[] whole = encode(sample);
            for (int length = 0; length < whole.length; length++)
            {
                final byte[] cut = Arrays.copyOf(whole, length);
                final ApiMessage into = request ? key.newRequestData() : key.newResponseData();
                assertThrows(InvalidRequestException.class, () -> read(into, cut),
                    key + (request ? " request" : " response") + " cut to " + length + " bytes");
            }
        }
    }

    @Test
    void shouldRejectANegativeArrayLengthInsteadOfReadingItAsNull()
    {
        // 0xFFFFFFFF as an unsigned varint: length+1 above Integer.MAX_VALUE.
        final byte[] bytes = {(byte)0xFF, (byte)0xFF, (byte)0xFF, (byte)0xFF, 0x0F, 0x00};
        final InvalidRequestException e = assertThrows(InvalidRequestException.class,
            () -> read(new AddTopicsToMirrorRequestData(), bytes));
        assertTrue(e.getMessage().contains("AddTopicsToMirrorRequest.Topics"), e.getMessage());
        assertThrows(InvalidRequestException.class, () -> read(new DescribeClusterMirrorsRequestData(), bytes));
    }

    @Test
    void shouldRejectANullArrayWhereTheSchemaForbidsIt()
    {
        assertThrows(InvalidRequestException.class,
            () -> read(new AddTopicsToMirrorRequestData(), new byte[] {0x00, 0x00}));
    }

    @Test
    void shouldRejectAHugeArrayLengthWithoutAllocatingIt()
    {
        // length+1 = 2^28: 268 million elements claimed in a 6-byte buffer.
        final byte[] bytes = {(byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80, 0x01, 0x00};
        final InvalidRequestException e = assertThrows(InvalidRequestException.class,
            () -> read(new AddTopicsToMirrorRequestData(), bytes));
        assertTrue(e.getMessage().contains("cannot fit"), e.getMessage());
        assertThrows(InvalidRequestException.class, () -> read(new LastMirroredOffsetsRequestData(), bytes));
    }

    @Test
    void shouldRejectAnInt32ArrayLongerThanItsBytes()
    {
        // One topic whose Partitions array claims 2 int32s but carries 4 bytes and the two tag sections.
        final byte[] bytes = new byte[1 + 16 + 1 + 1 + 4 + 2];
        bytes[0] = 0x02;
        bytes[17] = 0x01;       // TopicName ""
        bytes[18] = 0x03;       // Partitions: 2 elements + 1
        assertThrows(InvalidRequestException.class, () -> read(new LastMirroredOffsetsRequestData(), bytes));
    }

    @Test
    void shouldRejectAStringLongerThanTheBufferOrTheProtocolLimit()
    {
        assertThrows(InvalidRequestException.class,
            () -> read(new RegisterMirrorSyncTopicRequestData(), new byte[] {0x7F, 'a', 'b'}));
        // length+1 = 40000: above Kafka's 32767-byte string limit.
        final byte[] tooLong = new byte[40_010];
        tooLong[0] = (byte)0xC0;
        tooLong[1] = (byte)0xB8;
        tooLong[2] = 0x02;
        final InvalidRequestException e = assertThrows(InvalidRequestException.class,
            () -> read(new RegisterMirrorSyncTopicRequestData(), tooLong));
        assertTrue(e.getMessage().contains("exceeds"), e.getMessage());
    }

    @Test
    void shouldRejectNullForANonNullableString()
    {
        // RegisterMirrorSyncTopicRequest.MirrorName is not nullable.
        assertThrows(InvalidRequestException.class,
            () -> read(new RegisterMirrorSyncTopicRequestData(), new byte[] {0x00, 0x01, 0x00}));
    }

    @Test
    void shouldRejectAVarintLongerThanFiveBytes()
    {
        final byte[] bytes = {(byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80, 0x01};
        assertThrows(InvalidRequestException.class, () -> read(new AddTopicsToMirrorRequestData(), bytes));
    }

    @Test
    void shouldRejectTaggedFieldsThatOverrunOrDoNotAscend()
    {
        // Topics empty, then one tagged field of claimed size 100 with 1 byte left.
        assertThrows(InvalidRequestException.class,
            () -> read(new AddTopicsToMirrorRequestData(), new byte[] {0x01, 0x01, 0x03, 0x64, 0x00}));
        // A claimed 1000 tagged fields in 3 bytes.
        assertThrows(InvalidRequestException.class,
            () -> read(new AddTopicsToMirrorRequestData(), new byte[] {0x01, (byte)0xE8, 0x07, 0x00}));
        // Tags 4 then 2.
        assertThrows(InvalidRequestException.class,
            () -> read(new AddTopicsToMirrorRequestData(), new byte[] {0x01, 0x02, 0x04, 0x00, 0x02, 0x00}));
        // Tag 3 twice.
        assertThrows(InvalidRequestException.class,
            () -> read(new AddTopicsToMirrorRequestData(), new byte[] {0x01, 0x02, 0x03, 0x00, 0x03, 0x00}));
    }

    @Test
    void shouldRejectTrailingBytesAfterAWholeBody()
    {
        final MirrorRequestHeader header = new MirrorRequestHeader(MirrorApiKeys.ADD_TOPICS_TO_MIRROR, (short)0,
            1, null);
        final ByteBuffer body = ByteBuffer.wrap(new byte[] {0x01, 0x00, 0x00});
        assertThrows(InvalidRequestException.class, () -> MirrorMessages.parseRequest(header, body));
    }

    @Test
    void shouldThrowOnlyInvalidRequestOnRandomGarbage()
    {
        final long seed = 0x5EED_CAFEL;
        final Random random = new Random(seed);
        int parsed = 0;
        for (int i = 0; i < 20_000; i++)
        {
            final MirrorApiKeys key = MirrorApiKeys.values()[random.nextInt(MirrorApiKeys.values().length)];
            final byte[] garbage = new byte[random.nextInt(64)];
            random.nextBytes(garbage);
            final ApiMessage into = random.nextBoolean() ? key.newRequestData() : key.newResponseData();
            try
            {
                read(into, garbage);
                parsed++;
            }
            catch (final InvalidRequestException expected)
            {
                // The only outcome allowed besides success.
            }
            catch (final RuntimeException e)
            {
                throw new AssertionError("seed " + seed + " iteration " + i + " " + key + ": " + e, e);
            }
        }
        assertTrue(parsed < 20_000, "garbage should mostly fail to parse");
    }

    @Test
    void shouldNameTheFieldThatRanOut()
    {
        final byte[] whole = encode(MirrorMessageSamples.response(MirrorApiKeys.UNREGISTER_MIRROR_SYNC_TOPIC));
        final InvalidRequestException e = assertThrows(InvalidRequestException.class,
            () -> read(new UnregisterMirrorSyncTopicResponseData(), Arrays.copyOf(whole, 5)));
        assertEquals("Malformed field UnregisterMirrorSyncTopicResponse.ErrorCode: needs 2 bytes but only 1 remain",
            e.getMessage());
    }
}

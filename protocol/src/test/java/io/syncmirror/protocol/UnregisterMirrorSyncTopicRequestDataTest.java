package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Byte-exact checks of UnregisterMirrorSyncTopicRequest version 0, its Release tagged field and the source's hop
 * fields (LedgerOwnerOnly, RegistrationChangeOnly), and of RegisterMirrorSyncTopicRequest's hop fields.
 */
@Timeout(10)
class UnregisterMirrorSyncTopicRequestDataTest
{
    private static final Uuid TOPIC_ID = new Uuid(0x0102030405060708L, 0x090A0B0C0D0E0F10L);

    /** The spec's version 0 layout of mirror "m" and topic "t1" with {@link #TOPIC_ID}, without any tagged field. */
    private static final byte[] SPEC_V0 = {
        0x02, 'm',                                       // MirrorName: compact string, 1 byte + 1
        0x02,                                            // Topics: compact array, 1 element + 1
        0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // TopicId: most significant 8 bytes
        0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F, 0x10,  // TopicId: least significant 8 bytes
        0x03, 't', '1',                                  // TopicName: compact string, 2 bytes + 1
        0x00,                                            // TopicState tagged fields: none
        0x00,                                            // top-level tagged fields: none
    };

    private static byte[] bytes(final ApiMessage message)
    {
        return MirrorMessageSamples.bytes(message);
    }

    private static UnregisterMirrorSyncTopicRequestData read(final byte[] bytes)
    {
        return MirrorMessageSamples.read(bytes, new UnregisterMirrorSyncTopicRequestData());
    }

    private static UnregisterMirrorSyncTopicRequestData request()
    {
        return new UnregisterMirrorSyncTopicRequestData().setMirrorName("m").setTopics(List.of(
            new UnregisterMirrorSyncTopicRequestData.TopicState().setTopicId(TOPIC_ID).setTopicName("t1")));
    }

    @Test
    void shouldEncodeACleanUnregisterByteForByteAsTheSpecsVersion0()
    {
        final UnregisterMirrorSyncTopicRequestData request = request();
        assertArrayEquals(SPEC_V0, bytes(request));
        assertEquals(SPEC_V0.length, request.size(new ObjectSerializationCache(), (short)0));
        assertFalse(read(SPEC_V0).release());
        assertEquals(request, read(SPEC_V0));
    }

    @Test
    void shouldWriteReleaseAsTaggedFieldZeroOnlyWhenTrueAndReadItBack()
    {
        final UnregisterMirrorSyncTopicRequestData request = request().setRelease(true);
        final byte[] expected = SPEC_V0.clone();
        final byte[] withTag = new byte[expected.length + 3];
        System.arraycopy(expected, 0, withTag, 0, expected.length - 1);
        // Top-level tagged fields: 1 field, tag 0, 1 byte of data, true.
        withTag[expected.length - 1] = 0x01;
        withTag[expected.length] = 0x00;
        withTag[expected.length + 1] = 0x01;
        withTag[expected.length + 2] = 0x01;
        assertArrayEquals(withTag, bytes(request));
        assertEquals(withTag.length, request.size(new ObjectSerializationCache(), (short)0));
        final UnregisterMirrorSyncTopicRequestData back = read(withTag);
        assertTrue(back.release());
        assertTrue(back.unknownTaggedFields().isEmpty());
        assertEquals(request, back);
    }

    @Test
    void shouldReleaseEveryTopicWithAnEmptyTopicsArrayInARoundTrip()
    {
        final UnregisterMirrorSyncTopicRequestData request = new UnregisterMirrorSyncTopicRequestData()
            .setMirrorName("m").setRelease(true);
        final UnregisterMirrorSyncTopicRequestData back = read(bytes(request));
        assertTrue(back.release());
        assertEquals("m", back.mirrorName());
        assertTrue(back.topics().isEmpty());
    }

    @Test
    void shouldResetReleaseWhenReadingARequestWithoutIt()
    {
        final UnregisterMirrorSyncTopicRequestData data = read(bytes(request().setRelease(true)));
        data.read(new ByteBufferAccessor(ByteBuffer.wrap(SPEC_V0)), (short)0);
        assertFalse(data.release());
    }

    @Test
    void shouldRejectAReleaseFieldWithoutItsByte()
    {
        final byte[] truncated = SPEC_V0.clone();
        final byte[] withEmptyTag = new byte[truncated.length + 2];
        System.arraycopy(truncated, 0, withEmptyTag, 0, truncated.length - 1);
        withEmptyTag[truncated.length - 1] = 0x01;
        withEmptyTag[truncated.length] = 0x00;
        withEmptyTag[truncated.length + 1] = 0x00;
        assertThrows(InvalidRequestException.class, () -> read(withEmptyTag));
    }

    @Test
    void shouldWriteTheHopFieldsInTagOrderOnlyWhenTrueAndReadThemBack()
    {
        final UnregisterMirrorSyncTopicRequestData request = request().setRelease(true).setLedgerOwnerOnly(true)
            .setRegistrationChangeOnly(true);
        final byte[] encoded = bytes(request);
        // Top-level tagged fields: 3 fields, tags 0, 1, 2, each 1 byte of data, true.
        final byte[] tail = {0x03, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01, 0x02, 0x01, 0x01};
        assertArrayEquals(tail, java.util.Arrays.copyOfRange(encoded, SPEC_V0.length - 1, encoded.length));
        final UnregisterMirrorSyncTopicRequestData back = read(encoded);
        assertTrue(back.release() && back.ledgerOwnerOnly() && back.registrationChangeOnly());
        assertTrue(back.unknownTaggedFields().isEmpty());
        final UnregisterMirrorSyncTopicRequestData clean = read(encoded);
        clean.read(new ByteBufferAccessor(ByteBuffer.wrap(SPEC_V0)), (short)0);
        assertFalse(clean.release() || clean.ledgerOwnerOnly() || clean.registrationChangeOnly());
    }

    @Test
    void shouldEncodeADestinationsRegisterAsTheSpecsVersion0AndTheHopFieldsAsTagsZeroAndOne()
    {
        final RegisterMirrorSyncTopicRequestData plain = new RegisterMirrorSyncTopicRequestData().setMirrorName("m")
            .setTopics(List.of(new RegisterMirrorSyncTopicRequestData.TopicState().setTopicId(TOPIC_ID)
                .setTopicName("t1")));
        final byte[] spec = bytes(plain);
        assertEquals(0x00, spec[spec.length - 1], "no top-level tagged field");
        final byte[] hops = bytes(plain.setLedgerOwnerOnly(true).setRegistrationChangeOnly(true));
        assertArrayEquals(new byte[] {0x02, 0x00, 0x01, 0x01, 0x01, 0x01, 0x01},
            java.util.Arrays.copyOfRange(hops, spec.length - 1, hops.length));
        final RegisterMirrorSyncTopicRequestData back = new RegisterMirrorSyncTopicRequestData();
        back.read(new ByteBufferAccessor(ByteBuffer.wrap(hops)), (short)0);
        assertTrue(back.ledgerOwnerOnly() && back.registrationChangeOnly());
        back.read(new ByteBufferAccessor(ByteBuffer.wrap(spec)), (short)0);
        assertFalse(back.ledgerOwnerOnly() || back.registrationChangeOnly());
    }
}

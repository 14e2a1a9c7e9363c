package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

@Timeout(10)
class MirrorMessageRoundTripTest
{
    /** Writes at {@code version}, checking the bytes written equal the computed size, and reads back. */
    private static ApiMessage roundTrip(final ApiMessage message, final ApiMessage into, final short version)
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final int size = message.size(cache, version);
        final ByteBuffer buffer = ByteBuffer.allocate(size + 8);
        message.write(new ByteBufferAccessor(buffer), cache, version);
        assertEquals(size, buffer.position(), "size() disagrees with write() for " + message);
        buffer.flip();
        MirrorMessages.read(into, buffer, version);
        assertFalse(buffer.hasRemaining(), "read() left bytes behind for " + message);
        return into;
    }

    @ParameterizedTest
    @EnumSource(MirrorApiKeys.class)
    void shouldRoundTripEveryRequestAtEveryVersion(final MirrorApiKeys key)
    {
        for (short version = key.oldestVersion(); version <= key.latestVersion(); version++)
        {
            final ApiMessage sent = MirrorMessageSamples.request(key);
            final ApiMessage received = roundTrip(sent, key.newRequestData(), version);
            assertEquals(sent, received);
            assertEquals(sent.toString(), received.toString());
            assertNotEquals(key.newRequestData(), received, "the sample must differ from the defaults");
        }
    }

    @ParameterizedTest
    @EnumSource(MirrorApiKeys.class)
    void shouldRoundTripEveryResponseAtEveryVersion(final MirrorApiKeys key)
    {
        for (short version = key.oldestVersion(); version <= key.latestVersion(); version++)
        {
            final ApiMessage sent = MirrorMessageSamples.response(key);
            final ApiMessage received = roundTrip(sent, key.newResponseData(), version);
            assertEquals(sent, received);
            assertEquals(sent.toString(), received.toString());
            assertNotEquals(key.newResponseData(), received, "the sample must differ from the defaults");
        }
    }

    @ParameterizedTest
    @EnumSource(MirrorApiKeys.class)
    void shouldPreserveUnknownTaggedFieldsAtTopLevelAndInNestedStructs(final MirrorApiKeys key)
    {
        final ApiMessage request = MirrorMessageSamples.withUnknownTags(MirrorMessageSamples.request(key));
        final ApiMessage response = MirrorMessageSamples.withUnknownTags(MirrorMessageSamples.response(key));
        for (final ApiMessage[] pair : new ApiMessage[][] {
            {request, roundTrip(request, key.newRequestData(), key.latestVersion())},
            {response, roundTrip(response, key.newResponseData(), key.latestVersion())}})
        {
            assertEquals(pair[0], pair[1]);
            assertEquals(List.of(new RawTaggedField(5, new byte[0]), new RawTaggedField(7, new byte[] {1, 2, 3}),
                new RawTaggedField(300, new byte[200])), pair[1].unknownTaggedFields());
        }
    }

    @Test
    void shouldPreserveUnknownTaggedFieldsOfTheDeepestNestedStruct()
    {
        final ApiMessage sent = MirrorMessageSamples.withUnknownTags(
            MirrorMessageSamples.response(MirrorApiKeys.DESCRIBE_CLUSTER_MIRRORS));
        final DescribeClusterMirrorsResponseData received = (DescribeClusterMirrorsResponseData)roundTrip(sent,
            new DescribeClusterMirrorsResponseData(), (short)0);
        assertEquals(List.of(new RawTaggedField(1, new byte[] {(byte)0xAB})),
            received.mirrors().get(0).topics().get(0).partitions().get(0).unknownTaggedFields());
    }

    @Test
    void shouldDistinguishAnUnknownTagFromItsAbsence()
    {
        final ApiMessage plain = MirrorMessageSamples.request(MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE);
        final ApiMessage tagged = MirrorMessageSamples.withUnknownTags(
            MirrorMessageSamples.request(MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE));
        assertNotEquals(plain, tagged);
    }

    @ParameterizedTest
    @EnumSource(MirrorApiKeys.class)
    void shouldDuplicateIntoAnEqualButIndependentCopy(final MirrorApiKeys key)
    {
        final ApiMessage original = MirrorMessageSamples.request(key);
        final Message copy = original.duplicate();
        assertEquals(original, copy);
        assertEquals(original.hashCode(), copy.hashCode());
        copy.unknownTaggedFields().add(new RawTaggedField(9, new byte[0]));
        assertNotEquals(original, copy);
        assertEquals(List.of(), original.unknownTaggedFields());
        // Kafka's generated duplicate() copies the known fields only, as for every Kafka message.
        assertEquals(List.of(), MirrorMessageSamples.withUnknownTags(MirrorMessageSamples.request(key)).duplicate()
            .unknownTaggedFields());
    }

    @ParameterizedTest
    @EnumSource(MirrorApiKeys.class)
    void shouldRejectVersionsTheSchemaDoesNotHave(final MirrorApiKeys key)
    {
        final ApiMessage message = MirrorMessageSamples.request(key);
        final short tooNew = (short)(key.latestVersion() + 1);
        assertThrows(UnsupportedVersionException.class, () -> MirrorMessages.toByteBuffer(message, tooNew));
        assertThrows(UnsupportedVersionException.class,
            () -> MirrorMessages.read(key.newRequestData(), ByteBuffer.allocate(16), tooNew));
        assertThrows(UnsupportedVersionException.class, () -> MirrorMessages.toByteBuffer(message, (short)-1));
    }

    @Test
    void shouldStartEveryFieldAtItsSchemaDefault()
    {
        final AddTopicsToMirrorRequestData.TopicState topic = new AddTopicsToMirrorRequestData.TopicState();
        assertEquals(Uuid.ZERO_UUID, topic.topicId());
        assertEquals("", topic.topicName());
        assertNull(topic.mirrorName());
        assertEquals(MirrorType.ASYNC.id(), topic.mirrorType());
        assertEquals(false, new RegisterMirrorSyncTopicRequestData.TopicState().recoveryPromotion());
        final DescribeClusterMirrorsResponseData.MirrorTopic mirrorTopic =
            new DescribeClusterMirrorsResponseData.MirrorTopic();
        assertEquals(0, mirrorTopic.desiredMirrorType());
        assertEquals(0, mirrorTopic.effectiveMirrorType());
        assertEquals(false, mirrorTopic.recoveryPending());
        assertEquals(-1L, new DescribeClusterMirrorsResponseData.MirrorPartition().destinationOffset());
        assertEquals(-1L, new LastMirroredOffsetsResponseData.PartitionResult().lastMirroredOffset());
        assertNull(new DescribeClusterMirrorsRequestData().mirrorNames());
        assertNull(new UnregisterMirrorSyncTopicResponseData().errorMessage());
        assertEquals(false, new DescribeClusterMirrorsRequestData().localPartitionsOnly());
        final DescribeClusterMirrorsResponseData.MirrorPartition partition =
            new DescribeClusterMirrorsResponseData.MirrorPartition();
        assertEquals(-1, partition.leaderId());
        assertEquals(-1L, partition.sourceOffset());
        assertEquals(0, partition.lastErrorCode());
        assertNull(partition.lastErrorMessage());
        assertEquals(-1, new LastMirroredOffsetsResponseData.PartitionResult().lastMirrorEpoch());
        assertEquals(-1L, new BumpLeaderEpochsRequestData().minNextProducerId());
        assertEquals(-1, new BumpLeaderEpochsResponseData.PartitionResult().leaderEpoch());
        assertEquals(List.of(), new AddTopicsToMirrorRequestData().topicPatterns());
        assertNull(new CreateClusterMirrorRequestData.SourceConfig().value());
        assertNull(new CreateClusterMirrorResponseData().errorMessage());
    }

    @Test
    void shouldKeepSecretSourceConfigValuesOutOfToString()
    {
        final CreateClusterMirrorRequestData request = new CreateClusterMirrorRequestData().setSourceConfigs(List.of(
            new CreateClusterMirrorRequestData.SourceConfig().setName("sasl.jaas.config").setValue("password=s3cret")));
        assertFalse(request.toString().contains("s3cret"), request.toString());
        assertTrue(request.toString().contains("sasl.jaas.config"), request.toString());
    }

    @Test
    void shouldRoundTripANullNullableArrayAsNullNotEmpty()
    {
        final DescribeClusterMirrorsRequestData all = new DescribeClusterMirrorsRequestData().setMirrorNames(null);
        final DescribeClusterMirrorsRequestData none = new DescribeClusterMirrorsRequestData()
            .setMirrorNames(List.of());
        assertNull(((DescribeClusterMirrorsRequestData)roundTrip(all, new DescribeClusterMirrorsRequestData(),
            (short)0)).mirrorNames());
        assertEquals(List.of(), ((DescribeClusterMirrorsRequestData)roundTrip(none,
            new DescribeClusterMirrorsRequestData(), (short)0)).mirrorNames());
        assertNotEquals(all, none);
    }

    @Test
    void shouldRefuseToWriteNullIntoANonNullableField()
    {
        final AddTopicsToMirrorRequestData request = new AddTopicsToMirrorRequestData().setTopics(List.of(
            new AddTopicsToMirrorRequestData.TopicState().setTopicName(null)));
        assertThrows(NullPointerException.class, () -> MirrorMessages.toByteBuffer(request, (short)0));
    }

    @Test
    void shouldRoundTripWholeFramesThroughTheHeaderHelpers()
    {
        final MirrorRequestHeader header = new MirrorRequestHeader(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC,
            (short)0, 1234, "dest-coordinator");
        final ApiMessage request = MirrorMessageSamples.request(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC);
        final ByteBuffer frame = MirrorMessages.serializeRequest(header, request);
        final MirrorRequestHeader parsedHeader = MirrorRequestHeader.parse(frame);
        assertEquals(header, parsedHeader);
        assertEquals(request, MirrorMessages.parseRequest(parsedHeader, frame));

        final ApiMessage response = MirrorMessageSamples.response(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC);
        final ByteBuffer responseFrame = MirrorMessages.serializeResponse(parsedHeader.toResponseHeader(),
            response, parsedHeader.apiVersion());
        assertEquals(1234, MirrorResponseHeader.parse(responseFrame).correlationId());
        assertEquals(response, MirrorMessages.parseResponse(MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC, (short)0,
            responseFrame));
    }
}

package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The schema walk that runs before every generated reader: the field names it reports and the tags it refuses. */
@Timeout(10)
class SchemaCheckTest
{
    private static byte[] bytes(final org.apache.kafka.common.protocol.ApiMessage message)
    {
        return MirrorMessageSamples.bytes(message);
    }

    @Test
    void shouldTurnTheGeneratedSnakeCaseNamesBackIntoTheSchemaNames()
    {
        assertEquals("ThrottleTimeMs", SchemaCheck.fieldName("throttle_time_ms"));
        assertEquals("TopicId", SchemaCheck.fieldName("topic_id"));
        assertEquals("Lag", SchemaCheck.fieldName("lag"));
        final List<String> names = Arrays.stream(DescribeClusterMirrorsResponseData.MirrorPartition.SCHEMA_0.fields())
            .map((BoundField f) -> SchemaCheck.fieldName(f.def.name)).toList();
        assertEquals(List.of("PartitionIndex", "State", "DestinationOffset", "Lag", "LeaderId", "SourceOffset",
            "LastErrorCode", "LastErrorMessage", "TaggedFields"), names);
    }

    @Test
    void shouldNameATaggedFieldOfANestedStructThatRunsShort()
    {
        // One mirror, one topic, one partition whose SyncFailingForMs (tag 0) claims 4 bytes: an int64 needs 8.
        final DescribeClusterMirrorsResponseData response = new DescribeClusterMirrorsResponseData().setMirrors(
            List.of(new DescribeClusterMirrorsResponseData.MirrorDescription().setTopics(List.of(
                new DescribeClusterMirrorsResponseData.MirrorTopic().setPartitions(List.of(
                    new DescribeClusterMirrorsResponseData.MirrorPartition().setSyncFailingForMs(1L)))))));
        final byte[] whole = bytes(response);
        // The partition's tagged section: count 1, tag 0, size 8, then 1L in eight bytes.
        final byte[] tagged = {0x01, 0x00, 0x08, 0, 0, 0, 0, 0, 0, 0, 0x01};
        int size = -1;
        for (int i = 0; i + tagged.length <= whole.length && size < 0; i++)
        {
            size = Arrays.equals(whole, i, i + tagged.length, tagged, 0, tagged.length) ? i + 2 : -1;
        }
        final byte[] cut = new byte[whole.length - 4];
        System.arraycopy(whole, 0, cut, 0, size);
        cut[size] = 4;  // and only the last four of the eight bytes follow
        System.arraycopy(whole, size + 1 + 4, cut, size + 1, whole.length - size - 1 - 4);
        final InvalidRequestException e = assertThrows(InvalidRequestException.class,
            () -> MirrorMessages.read(new DescribeClusterMirrorsResponseData(), ByteBuffer.wrap(cut), (short)0));
        assertEquals("Malformed field DescribeClusterMirrorsResponse.Partitions.SyncFailingForMs: needs 8 bytes but "
            + "only 4 remain", e.getMessage());
    }

    @Test
    void shouldRefuseAKnownTagWithBytesAfterItsValue()
    {
        // RegisterMirrorSyncTopic: MirrorName "", Topics empty, then LedgerOwnerOnly (tag 0) of size 2.
        final byte[] bytes = {0x01, 0x01, 0x01, 0x00, 0x02, 0x01, 0x07};
        final InvalidRequestException e = assertThrows(InvalidRequestException.class,
            () -> MirrorMessages.read(new RegisterMirrorSyncTopicRequestData(), ByteBuffer.wrap(bytes), (short)0));
        assertEquals("Malformed field RegisterMirrorSyncTopicRequest.TaggedFields: tag 0 has 1 bytes after its value",
            e.getMessage());
    }

    @Test
    void shouldLeaveTheBufferWhereItWas()
    {
        final ByteBuffer buffer = ByteBuffer.wrap(bytes(
            MirrorMessageSamples.request(MirrorApiKeys.ADD_TOPICS_TO_MIRROR)));
        SchemaCheck.check(new AddTopicsToMirrorRequestData(), buffer, (short)0);
        assertEquals(0, buffer.position());
    }

    @Test
    void shouldRefuseAClassThatIsNotGenerated()
    {
        assertThrows(IllegalArgumentException.class,
            () -> SchemaCheck.check(new MirrorReplicaInfo(), ByteBuffer.allocate(4), (short)0));
    }

    @Test
    void shouldKnowEveryTypeTheSchemasUse()
    {
        for (final MirrorApiKeys key : MirrorApiKeys.values())
        {
            for (final org.apache.kafka.common.protocol.ApiMessage message :
                List.of(MirrorMessageSamples.request(key), MirrorMessageSamples.response(key)))
            {
                // Throws IllegalStateException for a type the walk has no check for.
                SchemaCheck.check(message, ByteBuffer.wrap(bytes(message)), (short)0);
            }
        }
        final Schema schema = AddTopicsToMirrorRequestData.SCHEMA_0;
        assertEquals(2, schema.fields().length, "Topics and the tagged field section");
    }
}

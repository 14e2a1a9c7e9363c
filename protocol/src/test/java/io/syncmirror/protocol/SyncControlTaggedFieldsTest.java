package io.syncmirror.protocol;

import java.nio.ByteBuffer;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The tagged fields brokers add to AlterMirrorTopicType and DescribeClusterMirrors, and the driver's request number
 * on RegisterMirrorSyncTopic and UnregisterMirrorSyncTopic.
 */
@Timeout(10)
class SyncControlTaggedFieldsTest
{
    private static byte[] bytes(final ApiMessage message)
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer buffer = ByteBuffer.allocate(message.size(cache, (short)0));
        message.write(new ByteBufferAccessor(buffer), cache, (short)0);
        return buffer.array();
    }

    private static <T extends ApiMessage> T read(final byte[] bytes, final T into)
    {
        into.read(new ByteBufferAccessor(ByteBuffer.wrap(bytes)), (short)0);
        return into;
    }

    private static AlterMirrorTopicTypeRequestData alter()
    {
        return new AlterMirrorTopicTypeRequestData().setMirrorName("dr").setTopics(List.of(
            new AlterMirrorTopicTypeRequestData.AlterMirrorTopic().setTopicId(Uuid.fromString("AAAAAAAAAAAAAAAAAAAABQ"))
                .setTopicName("orders").setMirrorType(MirrorType.SYNC.id())));
    }

    @Test
    @DisplayName("AlterMirrorTopicType's LocalPartitionsOnly and Effective survive a round trip and are absent "
        + "from an operator's request, which encodes as the spec's version 0")
    void shouldRoundTripTheBrokerFlags()
    {
        final AlterMirrorTopicTypeRequestData plain = alter();
        final AlterMirrorTopicTypeRequestData read = read(bytes(plain), new AlterMirrorTopicTypeRequestData());
        assertFalse(read.localPartitionsOnly() || read.effective());
        assertEquals(plain, read);

        final AlterMirrorTopicTypeRequestData flagged = alter().setLocalPartitionsOnly(true).setEffective(true);
        final AlterMirrorTopicTypeRequestData back = read(bytes(flagged), new AlterMirrorTopicTypeRequestData());
        assertTrue(back.localPartitionsOnly() && back.effective());
        assertEquals(List.of(), back.unknownTaggedFields());
        assertEquals(bytes(plain).length + 2 * 3, bytes(flagged).length, "two one-byte tagged fields");
        assertArrayEquals(bytes(flagged), bytes(back));
    }

    @Test
    @DisplayName("DescribeClusterMirrors' per-partition SyncFailingForMs survives a round trip and defaults to -1")
    void shouldRoundTripSyncFailingForMs()
    {
        final DescribeClusterMirrorsResponseData response = new DescribeClusterMirrorsResponseData().setMirrors(
            List.of(new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("dr").setTopics(List.of(
                new DescribeClusterMirrorsResponseData.MirrorTopic().setTopicName("orders").setPartitions(List.of(
                    new DescribeClusterMirrorsResponseData.MirrorPartition().setPartitionIndex(0)
                        .setSyncFailingForMs(31_000L),
                    new DescribeClusterMirrorsResponseData.MirrorPartition().setPartitionIndex(1)))))));
        final DescribeClusterMirrorsResponseData back = read(bytes(response), new DescribeClusterMirrorsResponseData());
        final List<DescribeClusterMirrorsResponseData.MirrorPartition> partitions =
            back.mirrors().get(0).topics().get(0).partitions();
        assertEquals(31_000L, partitions.get(0).syncFailingForMs());
        assertEquals(-1L, partitions.get(1).syncFailingForMs());
        assertEquals(response, back);
    }

    @Test
    @DisplayName("SU-01 Register's and Unregister's DriverEpoch survive a round trip as eight-byte tagged fields, and "
        + "a request without one encodes as the spec's version 0 and reads back as -1")
    void shouldRoundTripTheDriverEpoch()
    {
        final RegisterMirrorSyncTopicRequestData register = new RegisterMirrorSyncTopicRequestData().setMirrorName("dr")
            .setTopics(List.of(new RegisterMirrorSyncTopicRequestData.TopicState()
                .setTopicId(Uuid.fromString("AAAAAAAAAAAAAAAAAAAABQ")).setTopicName("orders")));
        final byte[] plain = bytes(register);
        assertEquals(-1L, read(plain, new RegisterMirrorSyncTopicRequestData()).driverEpoch());
        final long epoch = (7L << 32) | 3L;
        final byte[] numbered = bytes(register.setDriverEpoch(epoch));
        assertEquals(plain.length + 1 + 1 + 8, numbered.length, "tag, size and eight bytes");
        final RegisterMirrorSyncTopicRequestData back = read(numbered, new RegisterMirrorSyncTopicRequestData());
        assertEquals(epoch, back.driverEpoch());
        assertEquals(List.of(), back.unknownTaggedFields());
        assertEquals(register, back);

        final UnregisterMirrorSyncTopicRequestData unregister = new UnregisterMirrorSyncTopicRequestData()
            .setMirrorName("dr").setTopics(List.of(new UnregisterMirrorSyncTopicRequestData.TopicState()
                .setTopicId(Uuid.fromString("AAAAAAAAAAAAAAAAAAAABQ")).setTopicName("orders")));
        final byte[] clean = bytes(unregister);
        assertEquals(-1L, read(clean, new UnregisterMirrorSyncTopicRequestData()).driverEpoch());
        final UnregisterMirrorSyncTopicRequestData unregisterBack = read(bytes(unregister.setDriverEpoch(epoch)),
            new UnregisterMirrorSyncTopicRequestData());
        assertEquals(epoch, unregisterBack.driverEpoch());
        assertEquals(clean.length + 10, bytes(unregisterBack).length);
    }

    @Test
    @DisplayName("CreateClusterMirror's and DescribeClusterMirrors' MirrorConfigs survive a round trip as tagged "
        + "field 0, and messages without them encode as before the field existed")
    void shouldRoundTripMirrorConfigs()
    {
        final CreateClusterMirrorRequestData create = new CreateClusterMirrorRequestData().setMirrorName("dr")
            .setSourceBootstrapServers("src:9092");
        final byte[] plain = bytes(create);
        assertEquals(List.of(), read(plain, new CreateClusterMirrorRequestData()).mirrorConfigs());
        create.setMirrorConfigs(List.of(new CreateClusterMirrorRequestData.SourceConfig().setName("acl.sync.enable")
            .setValue("true")));
        final byte[] tagged = bytes(create);
        final CreateClusterMirrorRequestData back = read(tagged, new CreateClusterMirrorRequestData());
        assertEquals("acl.sync.enable", back.mirrorConfigs().get(0).name());
        assertEquals("true", back.mirrorConfigs().get(0).value());
        assertEquals(List.of(), back.unknownTaggedFields());
        assertEquals(create, back);
        assertTrue(tagged.length > plain.length);

        final DescribeClusterMirrorsResponseData.MirrorDescription description =
            new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("dr");
        final byte[] bare = bytes(new DescribeClusterMirrorsResponseData().setMirrors(List.of(description)));
        description.setMirrorConfigs(List.of("acl.sync.enable=true"));
        final DescribeClusterMirrorsResponseData described = read(bytes(new DescribeClusterMirrorsResponseData()
            .setMirrors(List.of(description))), new DescribeClusterMirrorsResponseData());
        assertEquals(List.of("acl.sync.enable=true"), described.mirrors().get(0).mirrorConfigs());
        assertEquals(List.of(), read(bare, new DescribeClusterMirrorsResponseData()).mirrors().get(0)
            .mirrorConfigs());
    }
}

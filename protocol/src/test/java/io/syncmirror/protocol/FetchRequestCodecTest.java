package io.syncmirror.protocol;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchRequestData.ForgottenTopic;
import org.apache.kafka.common.message.FetchRequestData.ReplicaState;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(30)
class FetchRequestCodecTest
{
    private static final short V18 = 18;
    private static final short V19 = 19;
    private static final short V20 = 20;

    /** A Fetch request with every field and tag of the version 18 layout in use, drawn from {@code random}. */
    static FetchRequestData sampleFetch(final Random random)
    {
        final List<FetchTopic> topics = new ArrayList<>();
        for (int t = random.nextInt(4); t > 0; t--)
        {
            final List<FetchPartition> partitions = new ArrayList<>();
            for (int p = random.nextInt(4); p > 0; p--)
            {
                final FetchPartition partition = new FetchPartition()
                    .setPartition(random.nextInt(1000))
                    .setCurrentLeaderEpoch(random.nextInt(50))
                    .setFetchOffset(random.nextLong() & Long.MAX_VALUE)
                    .setLastFetchedEpoch(random.nextInt(50) - 1)
                    .setLogStartOffset(random.nextInt(100) - 1)
                    .setPartitionMaxBytes(random.nextInt(1 << 20));
                if (random.nextBoolean())
                {
                    partition.setReplicaDirectoryId(Uuid.randomUuid());
                }
                if (random.nextBoolean())
                {
                    partition.setHighWatermark(random.nextInt(10_000));
                }
                partitions.add(partition);
            }
            topics.add(new FetchTopic().setTopicId(Uuid.randomUuid()).setPartitions(partitions));
        }
        final List<ForgottenTopic> forgotten = new ArrayList<>();
        for (int t = random.nextInt(3); t > 0; t--)
        {
            forgotten.add(new ForgottenTopic().setTopicId(Uuid.randomUuid()).setPartitions(List.of(random.nextInt(9),
                random.nextInt(9))));
        }
        final FetchRequestData data = new FetchRequestData()
            .setMaxWaitMs(random.nextInt(1000))
            .setMinBytes(random.nextInt(100))
            .setMaxBytes(random.nextInt(1 << 24))
            .setIsolationLevel((byte)random.nextInt(2))
            .setSessionId(random.nextInt())
            .setSessionEpoch(random.nextInt(100) - 1)
            .setTopics(topics)
            .setForgottenTopicsData(forgotten)
            .setRackId(random.nextBoolean() ? "" : "rack-" + random.nextInt(3));
        if (random.nextBoolean())
        {
            data.setClusterId("cluster-" + random.nextInt(10));
        }
        if (random.nextBoolean())
        {
            data.setReplicaState(new ReplicaState().setReplicaId(random.nextInt(5)).setReplicaEpoch(random.nextInt(9)));
        }
        if (random.nextBoolean())
        {
            data.unknownTaggedFields().add(new RawTaggedField(7, new byte[] {1, 2, 3}));
        }
        return data;
    }

    static MirrorReplicaInfo sampleMirrorReplicaInfo(final Random random)
    {
        final List<MirrorReplicaInfo.MirroredTopic> topics = new ArrayList<>();
        for (int t = 1 + random.nextInt(3); t > 0; t--)
        {
            final List<MirrorReplicaInfo.MirroredTopicPartition> partitions = new ArrayList<>();
            for (int p = random.nextInt(4); p > 0; p--)
            {
                final List<MirrorReplicaInfo.ReplicaLastOffset> offsets = new ArrayList<>();
                final List<Integer> isr = new ArrayList<>();
                for (int r = random.nextInt(4); r > 0; r--)
                {
                    offsets.add(new MirrorReplicaInfo.ReplicaLastOffset().setReplicaId(r)
                        .setLastFetchOffset(random.nextInt(1_000_000)));
                    isr.add(r);
                }
                partitions.add(new MirrorReplicaInfo.MirroredTopicPartition().setPartition(random.nextInt(100))
                    .setReplicaLastOffsets(offsets).setIsr(isr).setMinIsr(1 + random.nextInt(3)));
            }
            topics.add(new MirrorReplicaInfo.MirroredTopic().setTopic("t" + random.nextInt(50))
                .setTopicId(Uuid.randomUuid()).setPartitions(partitions));
        }
        return new MirrorReplicaInfo().setMirrorName("mirror-" + random.nextInt(5)).setTopics(topics);
    }

    /** kafka-clients' own encoding of {@code data} at version 18. */
    private static byte[] kafkaV18(final FetchRequestData data)
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer buffer = ByteBuffer.allocate(data.size(cache, V18));
        data.write(new ByteBufferAccessor(buffer), cache, V18);
        return buffer.array();
    }

    private static byte[] bytes(final ByteBuffer buffer)
    {
        final byte[] out = new byte[buffer.remaining()];
        buffer.duplicate().get(out);
        return out;
    }

    @Test
    void shouldRoundTripAV20RequestWithMirrorReplicaInfo()
    {
        for (long seed = 0; seed < 200; seed++)
        {
            final Random random = new Random(seed);
            final FetchRequestData data = sampleFetch(random);
            final MirrorReplicaInfo info = sampleMirrorReplicaInfo(random);

            final FetchRequestCodec.DecodedFetchRequest decoded =
                FetchRequestCodec.parse(FetchRequestCodec.serialize(data, info, V20), V20);

            assertEquals(data, decoded.data(), "seed " + seed);
            assertEquals(Optional.of(info), decoded.mirrorReplicaInfo(), "seed " + seed);
        }
    }

    @Test
    void shouldWriteV19ExactlyAsKafkaClientsWritesV18AndReadItBackTheSame()
    {
        for (long seed = 0; seed < 200; seed++)
        {
            final FetchRequestData data = sampleFetch(new Random(seed));
            final byte[] v18 = kafkaV18(data);

            assertArrayEquals(v18, bytes(FetchRequestCodec.serialize(data, null, V19)), "seed " + seed);
            final FetchRequestCodec.DecodedFetchRequest decoded = FetchRequestCodec.parse(ByteBuffer.wrap(v18), V19);
            assertEquals(new FetchRequestData(new ByteBufferAccessor(ByteBuffer.wrap(v18)), V18), decoded.data(),
                "seed " + seed);
            assertEquals(Optional.empty(), decoded.mirrorReplicaInfo());
        }
    }

    @Test
    void shouldPlaceMirrorReplicaInfoAfterTheV18FieldsAndBeforeTheTaggedFields()
    {
        for (long seed = 0; seed < 100; seed++)
        {
            final Random random = new Random(seed);
            final FetchRequestData data = sampleFetch(random);
            final MirrorReplicaInfo info = sampleMirrorReplicaInfo(random);
            final byte[] v18 = kafkaV18(data);
            // Without tags the v18 encoding ends in the one-byte empty tagged section: what precedes it is the
            // regular fields, which the v20 encoding must share byte for byte.
            final FetchRequestData untagged = data.duplicate().setClusterId(null).setReplicaState(new ReplicaState());
            untagged.unknownTaggedFields().clear();
            final int taggedStart = kafkaV18(untagged).length - 1;
            final byte[] mirror = bytes(info.toByteBuffer());

            final ByteBuffer expected = ByteBuffer.allocate(v18.length + mirror.length)
                .put(v18, 0, taggedStart).put(mirror).put(v18, taggedStart, v18.length - taggedStart);
            assertArrayEquals(expected.array(), bytes(FetchRequestCodec.serialize(data, info, V20)), "seed " + seed);
        }
    }

    @Test
    void shouldDropMirrorReplicaInfoBelowV20AsAnIgnorableField()
    {
        final Random random = new Random(3);
        final FetchRequestData data = sampleFetch(random);
        final MirrorReplicaInfo info = sampleMirrorReplicaInfo(random);
        assertArrayEquals(kafkaV18(data), bytes(FetchRequestCodec.serialize(data, info, V19)));
        assertArrayEquals(kafkaV18(data), bytes(FetchRequestCodec.serialize(data, info, V18)));
    }

    @Test
    void shouldReadAV20RequestWithDefaultMirrorReplicaInfoAsHavingNone()
    {
        final FetchRequestData data = sampleFetch(new Random(4));
        final ByteBuffer v20 = FetchRequestCodec.serialize(data, null, V20);
        assertEquals(kafkaV18(data).length + 3, v20.remaining(), "empty name, empty topics, empty tagged section");
        final FetchRequestCodec.DecodedFetchRequest decoded = FetchRequestCodec.parse(v20, V20);
        assertEquals(data, decoded.data());
        assertFalse(decoded.mirrorReplicaInfo().isPresent());
    }

    @Test
    void shouldDelegateVersionsKafkaClientsKnowsAndRejectUnknownOnes()
    {
        final FetchRequestData data = sampleFetch(new Random(5)).setReplicaState(new ReplicaState());
        data.setReplicaId(-1);
        final short v12 = 12;
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer expected = ByteBuffer.allocate(data.size(cache, v12));
        data.write(new ByteBufferAccessor(expected), cache, v12);
        assertArrayEquals(expected.array(), bytes(FetchRequestCodec.serialize(data, null, v12)));

        assertThrows(UnsupportedVersionException.class, () -> FetchRequestCodec.serialize(data, null, (short)21));
        assertThrows(UnsupportedVersionException.class, () -> FetchRequestCodec.parse(ByteBuffer.allocate(64),
            (short)21));
        assertThrows(UnsupportedVersionException.class,
            () -> FetchRequestCodec.serialize(new FetchRequestData().setReplicaId(3), null, V20));
    }

    @ParameterizedTest
    @ValueSource(shorts = {19, 20})
    void shouldRejectEveryTruncationWithInvalidRequest(final short version)
    {
        final Random random = new Random(6);
        final FetchRequestData data = sampleFetch(random).setClusterId("c").setReplicaState(
            new ReplicaState().setReplicaId(2).setReplicaEpoch(3));
        final byte[] whole = bytes(FetchRequestCodec.serialize(data, sampleMirrorReplicaInfo(random), version));
        for (int length = 0; length < whole.length; length++)
        {
            final ByteBuffer cut = ByteBuffer.wrap(Arrays.copyOf(whole, length));
            assertThrows(InvalidRequestException.class, () -> FetchRequestCodec.parse(cut, version),
                "cut to " + length + " of " + whole.length + " bytes");
        }
    }

    @Test
    void shouldRejectTrailingBytes()
    {
        final byte[] whole = bytes(FetchRequestCodec.serialize(sampleFetch(new Random(7)), null, V20));
        final InvalidRequestException e = assertThrows(InvalidRequestException.class,
            () -> FetchRequestCodec.parse(ByteBuffer.wrap(Arrays.copyOf(whole, whole.length + 1)), V20));
        assertTrue(e.getMessage().contains("after its last field"), e.getMessage());
    }

    @Test
    void shouldRejectAHugeTopicCountWithoutAllocatingIt()
    {
        // The six fixed fields (25 bytes), then Topics with length+1 = 2^28.
        final ByteBuffer body = ByteBuffer.allocate(40);
        body.put(new byte[25]).put(new byte[] {(byte)0x80, (byte)0x80, (byte)0x80, (byte)0x80, 0x01});
        body.rewind();
        final InvalidRequestException e = assertThrows(InvalidRequestException.class,
            () -> FetchRequestCodec.parse(body, V20));
        assertTrue(e.getMessage().contains("Fetch.Topics"), e.getMessage());
    }

    @Test
    void shouldFailEveryCorruptionWithInvalidRequestOrDecodeIt()
    {
        final Random random = new Random(8);
        final byte[] whole = bytes(FetchRequestCodec.serialize(sampleFetch(random), sampleMirrorReplicaInfo(random),
            V20));
        for (int i = 0; i < 20_000; i++)
        {
            final byte[] corrupt = whole.clone();
            for (int flips = 1 + random.nextInt(3); flips > 0; flips--)
            {
                corrupt[random.nextInt(corrupt.length)] = (byte)random.nextInt(256);
            }
            try
            {
                FetchRequestCodec.parse(ByteBuffer.wrap(corrupt), V20);
            }
            catch (final InvalidRequestException e)
            {
                // Expected for most corruptions.
            }
            catch (final RuntimeException e)
            {
                fail("corruption " + i + " threw " + e, e);
            }
        }
    }
}

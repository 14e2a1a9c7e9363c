package io.syncmirror.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/** Requests and responses of every mirror RPC with every field away from its default, for the codec tests. */
final class MirrorMessageSamples
{
    static final Uuid TOPIC_ID_A = new Uuid(0x0102030405060708L, 0x090A0B0C0D0E0F10L);
    static final Uuid TOPIC_ID_B = new Uuid(-1L, 42L);
    /** Non-ASCII, to make string sizes count UTF-8 bytes rather than chars. */
    static final String UNICODE_NAME = "t\u00e9st-\u65e5\u672c-\ud83d\ude00";

    private MirrorMessageSamples()
    {
    }

    static ApiMessage request(final MirrorApiKeys key)
    {
        switch (key)
        {
            case ADD_TOPICS_TO_MIRROR:
                return new AddTopicsToMirrorRequestData().setTopics(List.of(
                    new AddTopicsToMirrorRequestData.TopicState().setTopicId(TOPIC_ID_A).setTopicName("orders")
                        .setMirrorName("east").setMirrorType(MirrorType.SYNC.id()),
                    new AddTopicsToMirrorRequestData.TopicState().setTopicId(TOPIC_ID_B)
                        .setTopicName(UNICODE_NAME).setMirrorName(null).setMirrorType((byte)7)))
                    .setTopicPatterns(List.of(
                        new AddTopicsToMirrorRequestData.TopicPattern().setPattern("orders-.*").setMirrorName("east")
                            .setMirrorType(MirrorType.SYNC.id()),
                        new AddTopicsToMirrorRequestData.TopicPattern().setPattern(UNICODE_NAME)
                            .setMirrorName("")));
            case REMOVE_TOPICS_FROM_MIRROR:
                return new RemoveTopicsFromMirrorRequestData().setTopics(List.of(
                    new RemoveTopicsFromMirrorRequestData.TopicState().setTopicId(TOPIC_ID_A).setTopicName("orders")
                        .setMirrorName("east"),
                    new RemoveTopicsFromMirrorRequestData.TopicState().setTopicId(TOPIC_ID_B).setTopicName("")
                        .setMirrorName(null)));
            case DESCRIBE_CLUSTER_MIRRORS:
                return new DescribeClusterMirrorsRequestData().setMirrorNames(List.of("east", UNICODE_NAME, ""))
                    .setLocalPartitionsOnly(true);
            case LAST_MIRRORED_OFFSETS:
                return new LastMirroredOffsetsRequestData().setTopics(List.of(
                    new LastMirroredOffsetsRequestData.TopicRequest().setTopicId(TOPIC_ID_A).setTopicName("orders")
                        .setPartitions(List.of(0, 1, Integer.MAX_VALUE, -1))));
            case REGISTER_MIRROR_SYNC_TOPIC:
                return new RegisterMirrorSyncTopicRequestData().setMirrorName("east").setTopics(List.of(
                    new RegisterMirrorSyncTopicRequestData.TopicState().setTopicId(TOPIC_ID_A).setTopicName("orders")
                        .setRecoveryPromotion(true),
                    new RegisterMirrorSyncTopicRequestData.TopicState().setTopicId(TOPIC_ID_B)
                        .setTopicName("payments")));
            case UNREGISTER_MIRROR_SYNC_TOPIC:
                return new UnregisterMirrorSyncTopicRequestData().setMirrorName("east").setTopics(List.of(
                    new UnregisterMirrorSyncTopicRequestData.TopicState().setTopicId(TOPIC_ID_A)
                        .setTopicName("orders")));
            case ALTER_MIRROR_TOPIC_TYPE:
                return new AlterMirrorTopicTypeRequestData().setMirrorName(UNICODE_NAME).setTopics(List.of(
                    new AlterMirrorTopicTypeRequestData.AlterMirrorTopic().setTopicId(TOPIC_ID_B)
                        .setTopicName("orders").setMirrorType(MirrorType.SYNC.id())));
            case CREATE_CLUSTER_MIRROR:
                return new CreateClusterMirrorRequestData().setMirrorName("east")
                    .setSourceBootstrapServers("src-1:9092,src-2:9092").setSourceConfigs(List.of(
                        new CreateClusterMirrorRequestData.SourceConfig().setName("security.protocol")
                            .setValue("SASL_SSL"),
                        new CreateClusterMirrorRequestData.SourceConfig().setName(UNICODE_NAME).setValue(null)))
                    .setIncludeTopics(List.of("orders-.*", ".*")).setExcludeTopics(List.of("__.*"));
            case DELETE_CLUSTER_MIRROR:
                return new DeleteClusterMirrorRequestData().setMirrorName(UNICODE_NAME);
            case BUMP_LEADER_EPOCHS:
                return new BumpLeaderEpochsRequestData().setMinNextProducerId(1L << 40).setTopics(List.of(
                    new BumpLeaderEpochsRequestData.TopicRequest().setTopicId(TOPIC_ID_A).setPartitions(List.of(
                        new BumpLeaderEpochsRequestData.PartitionRequest().setPartitionIndex(0).setMinLeaderEpoch(7),
                        new BumpLeaderEpochsRequestData.PartitionRequest().setPartitionIndex(Integer.MAX_VALUE)
                            .setMinLeaderEpoch(Integer.MAX_VALUE))),
                    new BumpLeaderEpochsRequestData.TopicRequest().setTopicId(TOPIC_ID_B)));
            default:
                throw new AssertionError(key);
        }
    }

    static ApiMessage response(final MirrorApiKeys key)
    {
        switch (key)
        {
            case ADD_TOPICS_TO_MIRROR:
                return new AddTopicsToMirrorResponseData().setThrottleTimeMs(17).setTopics(List.of(
                    new AddTopicsToMirrorResponseData.TopicResult().setTopicName("orders").setErrorCode((short)139)
                        .setErrorMessage("not registered"),
                    new AddTopicsToMirrorResponseData.TopicResult().setTopicName("payments")));
            case REMOVE_TOPICS_FROM_MIRROR:
                return new RemoveTopicsFromMirrorResponseData().setThrottleTimeMs(-1).setTopics(List.of(
                    new RemoveTopicsFromMirrorResponseData.TopicResult().setTopicName("orders")
                        .setErrorCode((short)3).setErrorMessage("")));
            case DESCRIBE_CLUSTER_MIRRORS:
                return new DescribeClusterMirrorsResponseData().setThrottleTimeMs(5).setErrorCode((short)0)
                    .setErrorMessage("partial").setMirrors(List.of(
                        new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("east")
                            .setErrorCode((short)1).setErrorMessage("m").setTopics(List.of(
                                new DescribeClusterMirrorsResponseData.MirrorTopic().setTopicId(TOPIC_ID_A)
                                    .setTopicName("orders").setDesiredMirrorType((byte)1)
                                    .setEffectiveMirrorType((byte)1).setRecoveryPending(true)
                                    .setStatusMessage("released by source - recovery in flight")
                                    .setPartitions(List.of(
                                        new DescribeClusterMirrorsResponseData.MirrorPartition().setPartitionIndex(3)
                                            .setState((byte)2).setDestinationOffset(1L << 40).setLag(12L)
                                            .setLeaderId(4).setSourceOffset((1L << 40) + 12L)
                                            .setLastErrorCode((short)7).setLastErrorMessage("source timed out")))))
                            .setSourceBootstrapServers("src-1:9092").setIncludeTopics(List.of("orders-.*"))
                            .setExcludeTopics(List.of(UNICODE_NAME, "")),
                        new DescribeClusterMirrorsResponseData.MirrorDescription().setMirrorName("west")));
            case LAST_MIRRORED_OFFSETS:
                return new LastMirroredOffsetsResponseData().setThrottleTimeMs(1).setTopics(List.of(
                    new LastMirroredOffsetsResponseData.TopicResult().setTopicId(TOPIC_ID_A).setTopicName("orders")
                        .setPartitions(List.of(
                            new LastMirroredOffsetsResponseData.PartitionResult().setPartitionIndex(0)
                                .setLastMirroredOffset(Long.MAX_VALUE).setLastMirrorEpoch(12),
                            new LastMirroredOffsetsResponseData.PartitionResult().setPartitionIndex(1)
                                .setErrorCode((short)6)))));
            case REGISTER_MIRROR_SYNC_TOPIC:
                return new RegisterMirrorSyncTopicResponseData().setThrottleTimeMs(100).setTopics(List.of(
                    new RegisterMirrorSyncTopicResponseData.TopicResult().setTopicName("orders")
                        .setErrorCode((short)141).setErrorMessage("released")));
            case UNREGISTER_MIRROR_SYNC_TOPIC:
                return new UnregisterMirrorSyncTopicResponseData().setThrottleTimeMs(2).setErrorCode((short)29)
                    .setErrorMessage(UNICODE_NAME);
            case ALTER_MIRROR_TOPIC_TYPE:
                return new AlterMirrorTopicTypeResponseData().setThrottleTimeMs(3).setTopics(List.of(
                    new AlterMirrorTopicTypeResponseData.TopicResult().setTopicName("orders")
                        .setErrorCode((short)142).setErrorMessage("version mismatch")));
            case CREATE_CLUSTER_MIRROR:
                return new CreateClusterMirrorResponseData().setThrottleTimeMs(4).setErrorCode((short)36)
                    .setErrorMessage("mirror east already exists");
            case DELETE_CLUSTER_MIRROR:
                return new DeleteClusterMirrorResponseData().setThrottleTimeMs(0).setErrorCode((short)0)
                    .setErrorMessage("");
            case BUMP_LEADER_EPOCHS:
                return new BumpLeaderEpochsResponseData().setThrottleTimeMs(6).setErrorCode((short)41)
                    .setErrorMessage("not controller").setTopics(List.of(
                        new BumpLeaderEpochsResponseData.TopicResult().setTopicId(TOPIC_ID_B).setPartitions(List.of(
                            new BumpLeaderEpochsResponseData.PartitionResult().setPartitionIndex(2)
                                .setLeaderEpoch(9),
                            new BumpLeaderEpochsResponseData.PartitionResult().setPartitionIndex(3)
                                .setErrorCode((short)3)))));
            default:
                throw new AssertionError(key);
        }
    }

    /** {@code message} encoded at version 0. */
    static byte[] bytes(final ApiMessage message)
    {
        final ByteBuffer buffer = MirrorMessages.toByteBuffer(message, (short)0);
        return Arrays.copyOf(buffer.array(), buffer.remaining());
    }

    /** {@code into}, read from {@code bytes} at version 0 as the wire path reads it. */
    static <T extends ApiMessage> T read(final byte[] bytes, final T into)
    {
        MirrorMessages.read(into, ByteBuffer.wrap(bytes), (short)0);
        return into;
    }

    /** Adds unknown tagged fields to the message and to the first struct of its first struct array, if any. */
    static ApiMessage withUnknownTags(final ApiMessage message)
    {
        // Tag 5: every tag up to 3 is known to some request (TopicPatterns, Release, the hop fields, DriverEpoch).
        message.unknownTaggedFields().addAll(List.of(new RawTaggedField(5, new byte[0]),
            new RawTaggedField(7, new byte[] {1, 2, 3}), new RawTaggedField(300, new byte[200])));
        final Message nested = firstNested(message);
        if (nested != null)
        {
            nested.unknownTaggedFields().add(new RawTaggedField(1, new byte[] {(byte)0xAB}));
        }
        return message;
    }

    private static Message firstNested(final ApiMessage message)
    {
        final List<Message> candidates = new ArrayList<>();
        if (message instanceof AddTopicsToMirrorRequestData)
        {
            candidates.addAll(((AddTopicsToMirrorRequestData)message).topics());
        }
        else if (message instanceof DescribeClusterMirrorsResponseData)
        {
            final DescribeClusterMirrorsResponseData data = (DescribeClusterMirrorsResponseData)message;
            // The deepest struct, to show tags survive at every nesting level.
            candidates.addAll(data.mirrors().get(0).topics().get(0).partitions());
        }
        else if (message instanceof LastMirroredOffsetsResponseData)
        {
            candidates.addAll(((LastMirroredOffsetsResponseData)message).topics().get(0).partitions());
        }
        else if (message instanceof RegisterMirrorSyncTopicRequestData)
        {
            candidates.addAll(((RegisterMirrorSyncTopicRequestData)message).topics());
        }
        else if (message instanceof AlterMirrorTopicTypeResponseData)
        {
            candidates.addAll(((AlterMirrorTopicTypeResponseData)message).topics());
        }
        else if (message instanceof CreateClusterMirrorRequestData)
        {
            candidates.addAll(((CreateClusterMirrorRequestData)message).sourceConfigs());
        }
        else if (message instanceof BumpLeaderEpochsRequestData)
        {
            candidates.addAll(((BumpLeaderEpochsRequestData)message).topics().get(0).partitions());
        }
        else if (message instanceof BumpLeaderEpochsResponseData)
        {
            candidates.addAll(((BumpLeaderEpochsResponseData)message).topics().get(0).partitions());
        }
        return candidates.isEmpty() ? null : candidates.get(0);
    }
}

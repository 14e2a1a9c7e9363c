package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The BumpLeaderEpochs response (api key 104, version 0, flexible): a top-level error and, per partition, its
 * error and the leader epoch it has after the bump. Not thread-safe.
 *
 * <p>Neither mirroring text gives this RPC a schema; the schema here is designed for this project.
 */
public final class BumpLeaderEpochsResponseData extends MirrorStruct implements ApiMessage
{
    private int throttleTimeMs = 0;
    private short errorCode = (short)0;
    private String errorMessage = null;
    private List<TopicResult> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.BUMP_LEADER_EPOCHS.id();
    }

    /** The duration in milliseconds for which the request was throttled, or zero. */
    public int throttleTimeMs()
    {
        return throttleTimeMs;
    }

    public BumpLeaderEpochsResponseData setThrottleTimeMs(final int value)
    {
        this.throttleTimeMs = value;
        return this;
    }

    /** The top-level error code, or 0 if there was no error. */
    public short errorCode()
    {
        return errorCode;
    }

    public BumpLeaderEpochsResponseData setErrorCode(final short value)
    {
        this.errorCode = value;
        return this;
    }

    /** The top-level error message, or null if there was no error. Nullable. */
    public String errorMessage()
    {
        return errorMessage;
    }

    public BumpLeaderEpochsResponseData setErrorMessage(final String value)
    {
        this.errorMessage = value;
        return this;
    }

    /** The Topics array, each element: the results for one topic. */
    public List<TopicResult> topics()
    {
        return topics;
    }

    public BumpLeaderEpochsResponseData setTopics(final List<TopicResult> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        throttleTimeMs = WireCodec.readInt32(readable, "BumpLeaderEpochsResponse.ThrottleTimeMs");
        errorCode = WireCodec.readInt16(readable, "BumpLeaderEpochsResponse.ErrorCode");
        errorMessage = WireCodec.readCompactNullableString(readable, "BumpLeaderEpochsResponse.ErrorMessage");
        topics = readStructs(readable, "BumpLeaderEpochsResponse.Topics", TopicResult::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeInt(throttleTimeMs);
        writable.writeShort(errorCode);
        WireCodec.writeCompactNullableString(writable, errorMessage, "BumpLeaderEpochsResponse.ErrorMessage");
        writeStructs(writable, topics, "BumpLeaderEpochsResponse.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return 4
            + 2
            + WireCodec.sizeOfCompactNullableString(errorMessage)
            + sizeOfStructs(topics);
    }

    @Override
    protected BumpLeaderEpochsResponseData newInstance()
    {
        return new BumpLeaderEpochsResponseData();
    }

    @Override
    protected String fieldsToString()
    {
        return "throttleTimeMs=" + throttleTimeMs + ", errorCode=" + errorCode + ", errorMessage=" + errorMessage
            + ", topics=" + topics;
    }

    /** The results for one topic. */
    public static final class TopicResult extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private List<PartitionResult> partitions = new ArrayList<>(0);

        /** The topic id. */
        public Uuid topicId()
        {
            return topicId;
        }

        public TopicResult setTopicId(final Uuid value)
        {
            this.topicId = value;
            return this;
        }

        /** The Partitions array, each element: the result for one partition. */
        public List<PartitionResult> partitions()
        {
            return partitions;
        }

        public TopicResult setPartitions(final List<PartitionResult> value)
        {
            this.partitions = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "BumpLeaderEpochsResponse.Topics.TopicId");
            partitions = readStructs(readable, "BumpLeaderEpochsResponse.Topics.Partitions", PartitionResult::new);
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "BumpLeaderEpochsResponse.Topics.TopicId");
            writeStructs(writable, partitions, "BumpLeaderEpochsResponse.Topics.Partitions");
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + sizeOfStructs(partitions);
        }

        @Override
        protected TopicResult newInstance()
        {
            return new TopicResult();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", partitions=" + partitions;
        }
    }

    /** The result for one partition. */
    public static final class PartitionResult extends MirrorStruct
    {
        private int partitionIndex = 0;
        private short errorCode = (short)0;
        private int leaderEpoch = -1;

        /** The partition index. */
        public int partitionIndex()
        {
            return partitionIndex;
        }

        public PartitionResult setPartitionIndex(final int value)
        {
            this.partitionIndex = value;
            return this;
        }

        /** The error code, or 0 if there was no error. */
        public short errorCode()
        {
            return errorCode;
        }

        public PartitionResult setErrorCode(final short value)
        {
            this.errorCode = value;
            return this;
        }

        /** The partition's leader epoch after the bump, or -1 on error. Default -1. */
        public int leaderEpoch()
        {
            return leaderEpoch;
        }

        public PartitionResult setLeaderEpoch(final int value)
        {
            this.leaderEpoch = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            partitionIndex = WireCodec.readInt32(readable, "BumpLeaderEpochsResponse.Partitions.PartitionIndex");
            errorCode = WireCodec.readInt16(readable, "BumpLeaderEpochsResponse.Partitions.ErrorCode");
            leaderEpoch = WireCodec.readInt32(readable, "BumpLeaderEpochsResponse.Partitions.LeaderEpoch");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            writable.writeInt(partitionIndex);
            writable.writeShort(errorCode);
            writable.writeInt(leaderEpoch);
        }

        @Override
        protected int fieldsSize()
        {
            return 4
                + 2
                + 4;
        }

        @Override
        protected PartitionResult newInstance()
        {
            return new PartitionResult();
        }

        @Override
        protected String fieldsToString()
        {
            return "partitionIndex=" + partitionIndex + ", errorCode=" + errorCode + ", leaderEpoch=" + leaderEpoch;
        }
    }
}

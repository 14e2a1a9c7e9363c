package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The LastMirroredOffsets response (version 0, flexible): per partition, the last mirrored offset (LMO) recorded
 * when the topic was removed from its mirror. Not thread-safe.
 *
 * <p>The KIP-1279 text names this RPC without giving its schema; the schema here is designed in the shape of the
 * mirror RPCs the sync text does give (per-topic results with error code and nullable message), and may change
 * when KIP-1279 fixes it.
 */
public final class LastMirroredOffsetsResponseData extends MirrorStruct implements ApiMessage
{
    private int throttleTimeMs = 0;
    private List<TopicResult> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.LAST_MIRRORED_OFFSETS.id();
    }

    /** The duration in milliseconds for which the request was throttled, or zero. */
    public int throttleTimeMs()
    {
        return throttleTimeMs;
    }

    public LastMirroredOffsetsResponseData setThrottleTimeMs(final int value)
    {
        this.throttleTimeMs = value;
        return this;
    }

    /** The Topics array, each element: the results for one topic. */
    public List<TopicResult> topics()
    {
        return topics;
    }

    public LastMirroredOffsetsResponseData setTopics(final List<TopicResult> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        throttleTimeMs = WireCodec.readInt32(readable, "LastMirroredOffsetsResponse.ThrottleTimeMs");
        topics = readStructs(readable, "LastMirroredOffsetsResponse.Topics", TopicResult::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeInt(throttleTimeMs);
        writeStructs(writable, topics, "LastMirroredOffsetsResponse.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return 4
            + sizeOfStructs(topics);
    }

    @Override
    protected LastMirroredOffsetsResponseData newInstance()
    {
        return new LastMirroredOffsetsResponseData();
    }

    @Override
    protected String fieldsToString()
    {
        return "throttleTimeMs=" + throttleTimeMs + ", topics=" + topics;
    }

    /** The results for one topic. */
    public static final class TopicResult extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
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

        /** The topic name. */
        public String topicName()
        {
            return topicName;
        }

        public TopicResult setTopicName(final String value)
        {
            this.topicName = value;
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
            topicId = WireCodec.readUuid(readable, "LastMirroredOffsetsResponse.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "LastMirroredOffsetsResponse.Topics.TopicName");
            partitions = readStructs(readable, "LastMirroredOffsetsResponse.Topics.Partitions", PartitionResult::new);
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "LastMirroredOffsetsResponse.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "LastMirroredOffsetsResponse.Topics.TopicName");
            writeStructs(writable, partitions, "LastMirroredOffsetsResponse.Topics.Partitions");
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
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
            return "topicId=" + topicId + ", topicName=" + topicName + ", partitions=" + partitions;
        }
    }

    /** The result for one partition. */
    public static final class PartitionResult extends MirrorStruct
    {
        private int partitionIndex = 0;
        private short errorCode = (short)0;
        private long lastMirroredOffset = -1L;
        private int lastMirrorEpoch = -1;

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

        /** The last mirrored offset, or -1 if none is recorded. Default -1. */
        public long lastMirroredOffset()
        {
            return lastMirroredOffset;
        }

        public PartitionResult setLastMirroredOffset(final long value)
        {
            this.lastMirroredOffset = value;
            return this;
        }

        /**
         * The leader epoch of the last mirrored record batch, or -1 if none is recorded; with the last mirrored
         * offset it lets a failback truncate at the point where the two histories diverge. Default -1.
         */
        public int lastMirrorEpoch()
        {
            return lastMirrorEpoch;
        }

        public PartitionResult setLastMirrorEpoch(final int value)
        {
            this.lastMirrorEpoch = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            partitionIndex = WireCodec.readInt32(readable, "LastMirroredOffsetsResponse.Partitions.PartitionIndex");
            errorCode = WireCodec.readInt16(readable, "LastMirroredOffsetsResponse.Partitions.ErrorCode");
            lastMirroredOffset = WireCodec.readInt64(readable,
                "LastMirroredOffsetsResponse.Partitions.LastMirroredOffset");
            lastMirrorEpoch = WireCodec.readInt32(readable, "LastMirroredOffsetsResponse.Partitions.LastMirrorEpoch");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            writable.writeInt(partitionIndex);
            writable.writeShort(errorCode);
            writable.writeLong(lastMirroredOffset);
            writable.writeInt(lastMirrorEpoch);
        }

        @Override
        protected int fieldsSize()
        {
            return 4
                + 2
                + 8
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
            return "partitionIndex=" + partitionIndex + ", errorCode=" + errorCode + ", lastMirroredOffset="
                + lastMirroredOffset + ", lastMirrorEpoch=" + lastMirrorEpoch;
        }
    }
}

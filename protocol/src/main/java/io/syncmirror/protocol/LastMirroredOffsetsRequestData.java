package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The LastMirroredOffsets request (version 0, flexible), sent by a cluster starting a reverse mirror to the new
 * source to learn where to truncate each partition. Not thread-safe.
 *
 * <p>The KIP-1279 text names this RPC without giving its schema; the schema here is designed in the shape of the
 * mirror RPCs the sync text does give (per-topic results with error code and nullable message), and may change
 * when KIP-1279 fixes it.
 */
public final class LastMirroredOffsetsRequestData extends MirrorStruct implements ApiMessage
{
    private List<TopicRequest> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.LAST_MIRRORED_OFFSETS.id();
    }

    /** The Topics array, each element: the partitions of one topic. */
    public List<TopicRequest> topics()
    {
        return topics;
    }

    public LastMirroredOffsetsRequestData setTopics(final List<TopicRequest> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        topics = readStructs(readable, "LastMirroredOffsetsRequest.Topics", TopicRequest::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writeStructs(writable, topics, "LastMirroredOffsetsRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return sizeOfStructs(topics);
    }

    @Override
    protected LastMirroredOffsetsRequestData newInstance()
    {
        return new LastMirroredOffsetsRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "topics=" + topics;
    }

    /** The partitions of one topic. */
    public static final class TopicRequest extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
        private List<Integer> partitions = new ArrayList<>(0);

        /** The topic id. */
        public Uuid topicId()
        {
            return topicId;
        }

        public TopicRequest setTopicId(final Uuid value)
        {
            this.topicId = value;
            return this;
        }

        /** The topic name. */
        public String topicName()
        {
            return topicName;
        }

        public TopicRequest setTopicName(final String value)
        {
            this.topicName = value;
            return this;
        }

        /** The partition indexes. */
        public List<Integer> partitions()
        {
            return partitions;
        }

        public TopicRequest setPartitions(final List<Integer> value)
        {
            this.partitions = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "LastMirroredOffsetsRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "LastMirroredOffsetsRequest.Topics.TopicName");
            partitions = WireCodec.readCompactInt32Array(readable, "LastMirroredOffsetsRequest.Topics.Partitions");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "LastMirroredOffsetsRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "LastMirroredOffsetsRequest.Topics.TopicName");
            WireCodec.writeCompactInt32Array(writable, partitions, "LastMirroredOffsetsRequest.Topics.Partitions");
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
                + WireCodec.sizeOfCompactInt32Array(partitions);
        }

        @Override
        protected TopicRequest newInstance()
        {
            return new TopicRequest();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", topicName=" + topicName + ", partitions=" + partitions;
        }
    }
}

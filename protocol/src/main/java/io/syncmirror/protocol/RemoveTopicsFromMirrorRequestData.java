package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The RemoveTopicsFromMirror request (version 0, flexible), which stops mirroring topics on the destination and
 * so starts their failover to writable. Not thread-safe.
 *
 * <p>The KIP-1279 text names this RPC without giving its schema; the schema here is designed in the shape of the
 * mirror RPCs the sync text does give (per-topic results with error code and nullable message), and may change
 * when KIP-1279 fixes it. The topic entry mirrors AddTopicsToMirror's without the mirror type.
 */
public final class RemoveTopicsFromMirrorRequestData extends MirrorStruct implements ApiMessage
{
    private List<TopicState> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.REMOVE_TOPICS_FROM_MIRROR.id();
    }

    /** The Topics array, each element: one topic to remove from its mirror. */
    public List<TopicState> topics()
    {
        return topics;
    }

    public RemoveTopicsFromMirrorRequestData setTopics(final List<TopicState> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        topics = readStructs(readable, "RemoveTopicsFromMirrorRequest.Topics", TopicState::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writeStructs(writable, topics, "RemoveTopicsFromMirrorRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return sizeOfStructs(topics);
    }

    @Override
    protected RemoveTopicsFromMirrorRequestData newInstance()
    {
        return new RemoveTopicsFromMirrorRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "topics=" + topics;
    }

    /** One topic to remove from its mirror. */
    public static final class TopicState extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
        private String mirrorName = null;

        /** The topic id. */
        public Uuid topicId()
        {
            return topicId;
        }

        public TopicState setTopicId(final Uuid value)
        {
            this.topicId = value;
            return this;
        }

        /** The topic name. */
        public String topicName()
        {
            return topicName;
        }

        public TopicState setTopicName(final String value)
        {
            this.topicName = value;
            return this;
        }

        /** The cluster mirror name, or null for whichever mirror the topic belongs to. Nullable. */
        public String mirrorName()
        {
            return mirrorName;
        }

        public TopicState setMirrorName(final String value)
        {
            this.mirrorName = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "RemoveTopicsFromMirrorRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "RemoveTopicsFromMirrorRequest.Topics.TopicName");
            mirrorName = WireCodec.readCompactNullableString(readable,
                "RemoveTopicsFromMirrorRequest.Topics.MirrorName");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "RemoveTopicsFromMirrorRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "RemoveTopicsFromMirrorRequest.Topics.TopicName");
            WireCodec.writeCompactNullableString(writable, mirrorName,
                "RemoveTopicsFromMirrorRequest.Topics.MirrorName");
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
                + WireCodec.sizeOfCompactNullableString(mirrorName);
        }

        @Override
        protected TopicState newInstance()
        {
            return new TopicState();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", topicName=" + topicName + ", mirrorName=" + mirrorName;
        }
    }
}

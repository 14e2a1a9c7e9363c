package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The UnregisterMirrorSyncTopic request (version 0, flexible), sent by the destination cluster (or an operator
 * releasing sync on the source) to unregister topics from sync mirroring. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field.
 */
public final class UnregisterMirrorSyncTopicRequestData extends MirrorStruct implements ApiMessage
{
    private String mirrorName = "";
    private List<TopicState> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.UNREGISTER_MIRROR_SYNC_TOPIC.id();
    }

    /** The cluster mirror name. */
    public String mirrorName()
    {
        return mirrorName;
    }

    public UnregisterMirrorSyncTopicRequestData setMirrorName(final String value)
    {
        this.mirrorName = value;
        return this;
    }

    /** The Topics array, each element: one topic to unregister. */
    public List<TopicState> topics()
    {
        return topics;
    }

    public UnregisterMirrorSyncTopicRequestData setTopics(final List<TopicState> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorName = WireCodec.readCompactString(readable, "UnregisterMirrorSyncTopicRequest.MirrorName");
        topics = readStructs(readable, "UnregisterMirrorSyncTopicRequest.Topics", TopicState::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactString(writable, mirrorName, "UnregisterMirrorSyncTopicRequest.MirrorName");
        writeStructs(writable, topics, "UnregisterMirrorSyncTopicRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactNullableString(mirrorName)
            + sizeOfStructs(topics);
    }

    @Override
    protected UnregisterMirrorSyncTopicRequestData newInstance()
    {
        return new UnregisterMirrorSyncTopicRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorName=" + mirrorName + ", topics=" + topics;
    }

    /** One topic to unregister. */
    public static final class TopicState extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";

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

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "UnregisterMirrorSyncTopicRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "UnregisterMirrorSyncTopicRequest.Topics.TopicName");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "UnregisterMirrorSyncTopicRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "UnregisterMirrorSyncTopicRequest.Topics.TopicName");
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName);
        }

        @Override
        protected TopicState newInstance()
        {
            return new TopicState();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", topicName=" + topicName;
        }
    }
}

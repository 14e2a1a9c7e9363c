package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The AlterMirrorTopicType request (version 0, flexible), which sets the desired mirror type of topics in a
 * mirror: promotion to SYNC is deferred until lag reaches zero, demotion to ASYNC is immediate. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field.
 */
public final class AlterMirrorTopicTypeRequestData extends MirrorStruct implements ApiMessage
{
    private String mirrorName = "";
    private List<AlterMirrorTopic> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE.id();
    }

    /** The cluster mirror name. */
    public String mirrorName()
    {
        return mirrorName;
    }

    public AlterMirrorTopicTypeRequestData setMirrorName(final String value)
    {
        this.mirrorName = value;
        return this;
    }

    /** The Topics array, each element: one topic and its desired mirror type. */
    public List<AlterMirrorTopic> topics()
    {
        return topics;
    }

    public AlterMirrorTopicTypeRequestData setTopics(final List<AlterMirrorTopic> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorName = WireCodec.readCompactString(readable, "AlterMirrorTopicTypeRequest.MirrorName");
        topics = readStructs(readable, "AlterMirrorTopicTypeRequest.Topics", AlterMirrorTopic::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactString(writable, mirrorName, "AlterMirrorTopicTypeRequest.MirrorName");
        writeStructs(writable, topics, "AlterMirrorTopicTypeRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactNullableString(mirrorName)
            + sizeOfStructs(topics);
    }

    @Override
    protected AlterMirrorTopicTypeRequestData newInstance()
    {
        return new AlterMirrorTopicTypeRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorName=" + mirrorName + ", topics=" + topics;
    }

    /** One topic and its desired mirror type. */
    public static final class AlterMirrorTopic extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
        private byte mirrorType = (byte)0;

        /** The topic id. */
        public Uuid topicId()
        {
            return topicId;
        }

        public AlterMirrorTopic setTopicId(final Uuid value)
        {
            this.topicId = value;
            return this;
        }

        /** The topic name. */
        public String topicName()
        {
            return topicName;
        }

        public AlterMirrorTopic setTopicName(final String value)
        {
            this.topicName = value;
            return this;
        }

        /** The desired mirror type: 0 = ASYNC, 1 = SYNC (see MirrorType). */
        public byte mirrorType()
        {
            return mirrorType;
        }

        public AlterMirrorTopic setMirrorType(final byte value)
        {
            this.mirrorType = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "AlterMirrorTopicTypeRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "AlterMirrorTopicTypeRequest.Topics.TopicName");
            mirrorType = WireCodec.readInt8(readable, "AlterMirrorTopicTypeRequest.Topics.MirrorType");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "AlterMirrorTopicTypeRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "AlterMirrorTopicTypeRequest.Topics.TopicName");
            writable.writeByte(mirrorType);
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
                + 1;
        }

        @Override
        protected AlterMirrorTopic newInstance()
        {
            return new AlterMirrorTopic();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", topicName=" + topicName + ", mirrorType=" + mirrorType;
        }
    }
}

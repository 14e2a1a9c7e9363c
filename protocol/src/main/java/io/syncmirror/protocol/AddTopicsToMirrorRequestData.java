package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The AddTopicsToMirror request (api key 95, version 0, flexible), which asks the destination cluster to mirror
 * topics, each with its desired mirror type. Not thread-safe.
 *
 * <p>Version 0 with the MirrorType field added by the sync mirroring text; the schema is the one the sync
 * cluster mirroring text gives, field for field.
 */
public final class AddTopicsToMirrorRequestData extends MirrorStruct implements ApiMessage
{
    private List<TopicState> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.ADD_TOPICS_TO_MIRROR.id();
    }

    /** The Topics array, each element: the state of one topic to add to a mirror. */
    public List<TopicState> topics()
    {
        return topics;
    }

    public AddTopicsToMirrorRequestData setTopics(final List<TopicState> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        topics = readStructs(readable, "AddTopicsToMirrorRequest.Topics", TopicState::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writeStructs(writable, topics, "AddTopicsToMirrorRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return sizeOfStructs(topics);
    }

    @Override
    protected AddTopicsToMirrorRequestData newInstance()
    {
        return new AddTopicsToMirrorRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "topics=" + topics;
    }

    /** The state of one topic to add to a mirror. */
    public static final class TopicState extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
        private String mirrorName = null;
        private byte mirrorType = (byte)0;

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

        /** The cluster mirror name. Nullable. */
        public String mirrorName()
        {
            return mirrorName;
        }

        public TopicState setMirrorName(final String value)
        {
            this.mirrorName = value;
            return this;
        }

        /**
         * The desired mirror type: 0 = ASYNC, 1 = SYNC (see MirrorType). The topic starts in effective ASYNC and
         * auto-promotes once lag reaches zero. Default 0.
         */
        public byte mirrorType()
        {
            return mirrorType;
        }

        public TopicState setMirrorType(final byte value)
        {
            this.mirrorType = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "AddTopicsToMirrorRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "AddTopicsToMirrorRequest.Topics.TopicName");
            mirrorName = WireCodec.readCompactNullableString(readable, "AddTopicsToMirrorRequest.Topics.MirrorName");
            mirrorType = WireCodec.readInt8(readable, "AddTopicsToMirrorRequest.Topics.MirrorType");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "AddTopicsToMirrorRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "AddTopicsToMirrorRequest.Topics.TopicName");
            WireCodec.writeCompactNullableString(writable, mirrorName, "AddTopicsToMirrorRequest.Topics.MirrorName");
            writable.writeByte(mirrorType);
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
                + WireCodec.sizeOfCompactNullableString(mirrorName)
                + 1;
        }

        @Override
        protected TopicState newInstance()
        {
            return new TopicState();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicId=" + topicId + ", topicName=" + topicName + ", mirrorName=" + mirrorName + ", mirrorType="
                + mirrorType;
        }
    }
}

package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The RegisterMirrorSyncTopic request (version 0, flexible), sent by the destination cluster to the source to
 * register topics for sync mirroring. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field.
 */
public final class RegisterMirrorSyncTopicRequestData extends MirrorStruct implements ApiMessage
{
    private String mirrorName = "";
    private List<TopicState> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC.id();
    }

    /** The cluster mirror name. */
    public String mirrorName()
    {
        return mirrorName;
    }

    public RegisterMirrorSyncTopicRequestData setMirrorName(final String value)
    {
        this.mirrorName = value;
        return this;
    }

    /** The Topics array, each element: one topic to register. */
    public List<TopicState> topics()
    {
        return topics;
    }

    public RegisterMirrorSyncTopicRequestData setTopics(final List<TopicState> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        mirrorName = WireCodec.readCompactString(readable, "RegisterMirrorSyncTopicRequest.MirrorName");
        topics = readStructs(readable, "RegisterMirrorSyncTopicRequest.Topics", TopicState::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        WireCodec.writeCompactString(writable, mirrorName, "RegisterMirrorSyncTopicRequest.MirrorName");
        writeStructs(writable, topics, "RegisterMirrorSyncTopicRequest.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return WireCodec.sizeOfCompactNullableString(mirrorName)
            + sizeOfStructs(topics);
    }

    @Override
    protected RegisterMirrorSyncTopicRequestData newInstance()
    {
        return new RegisterMirrorSyncTopicRequestData();
    }

    @Override
    protected String fieldsToString()
    {
        return "mirrorName=" + mirrorName + ", topics=" + topics;
    }

    /** One topic to register. */
    public static final class TopicState extends MirrorStruct
    {
        private Uuid topicId = Uuid.ZERO_UUID;
        private String topicName = "";
        private boolean recoveryPromotion = false;

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

        /**
         * True when this entry is a post-release recovery, which lets the source clear a sticky Released marker for
         * this mirror and topic. Default false.
         */
        public boolean recoveryPromotion()
        {
            return recoveryPromotion;
        }

        public TopicState setRecoveryPromotion(final boolean value)
        {
            this.recoveryPromotion = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicId = WireCodec.readUuid(readable, "RegisterMirrorSyncTopicRequest.Topics.TopicId");
            topicName = WireCodec.readCompactString(readable, "RegisterMirrorSyncTopicRequest.Topics.TopicName");
            recoveryPromotion = WireCodec.readBool(readable, "RegisterMirrorSyncTopicRequest.Topics.RecoveryPromotion");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeUuid(writable, topicId, "RegisterMirrorSyncTopicRequest.Topics.TopicId");
            WireCodec.writeCompactString(writable, topicName, "RegisterMirrorSyncTopicRequest.Topics.TopicName");
            WireCodec.writeBool(writable, recoveryPromotion);
        }

        @Override
        protected int fieldsSize()
        {
            return 16
                + WireCodec.sizeOfCompactNullableString(topicName)
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
            return "topicId=" + topicId + ", topicName=" + topicName + ", recoveryPromotion=" + recoveryPromotion;
        }
    }
}

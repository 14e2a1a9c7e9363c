package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The RegisterMirrorSyncTopic response (version 0, flexible), one result per topic so the destination can tell
 * admitted topics from rejected ones. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field.
 */
public final class RegisterMirrorSyncTopicResponseData extends MirrorStruct implements ApiMessage
{
    private int throttleTimeMs = 0;
    private List<TopicResult> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.REGISTER_MIRROR_SYNC_TOPIC.id();
    }

    /** The duration in milliseconds for which the request was throttled, or zero. */
    public int throttleTimeMs()
    {
        return throttleTimeMs;
    }

    public RegisterMirrorSyncTopicResponseData setThrottleTimeMs(final int value)
    {
        this.throttleTimeMs = value;
        return this;
    }

    /** The Topics array, each element: the result for one topic. */
    public List<TopicResult> topics()
    {
        return topics;
    }

    public RegisterMirrorSyncTopicResponseData setTopics(final List<TopicResult> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        throttleTimeMs = WireCodec.readInt32(readable, "RegisterMirrorSyncTopicResponse.ThrottleTimeMs");
        topics = readStructs(readable, "RegisterMirrorSyncTopicResponse.Topics", TopicResult::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeInt(throttleTimeMs);
        writeStructs(writable, topics, "RegisterMirrorSyncTopicResponse.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return 4
            + sizeOfStructs(topics);
    }

    @Override
    protected RegisterMirrorSyncTopicResponseData newInstance()
    {
        return new RegisterMirrorSyncTopicResponseData();
    }

    @Override
    protected String fieldsToString()
    {
        return "throttleTimeMs=" + throttleTimeMs + ", topics=" + topics;
    }

    /** The result for one topic. */
    public static final class TopicResult extends MirrorStruct
    {
        private String topicName = "";
        private short errorCode = (short)0;
        private String errorMessage = null;

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

        /** The error code, or 0 if there was no error. */
        public short errorCode()
        {
            return errorCode;
        }

        public TopicResult setErrorCode(final short value)
        {
            this.errorCode = value;
            return this;
        }

        /** The error message, or null if there was no error. Nullable. */
        public String errorMessage()
        {
            return errorMessage;
        }

        public TopicResult setErrorMessage(final String value)
        {
            this.errorMessage = value;
            return this;
        }

        @Override
        protected void readFields(final Readable readable)
        {
            topicName = WireCodec.readCompactString(readable, "RegisterMirrorSyncTopicResponse.Topics.TopicName");
            errorCode = WireCodec.readInt16(readable, "RegisterMirrorSyncTopicResponse.Topics.ErrorCode");
            errorMessage = WireCodec.readCompactNullableString(readable,
                "RegisterMirrorSyncTopicResponse.Topics.ErrorMessage");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeCompactString(writable, topicName, "RegisterMirrorSyncTopicResponse.Topics.TopicName");
            writable.writeShort(errorCode);
            WireCodec.writeCompactNullableString(writable, errorMessage,
                "RegisterMirrorSyncTopicResponse.Topics.ErrorMessage");
        }

        @Override
        protected int fieldsSize()
        {
            return WireCodec.sizeOfCompactNullableString(topicName)
                + 2
                + WireCodec.sizeOfCompactNullableString(errorMessage);
        }

        @Override
        protected TopicResult newInstance()
        {
            return new TopicResult();
        }

        @Override
        protected String fieldsToString()
        {
            return "topicName=" + topicName + ", errorCode=" + errorCode + ", errorMessage=" + errorMessage;
        }
    }
}

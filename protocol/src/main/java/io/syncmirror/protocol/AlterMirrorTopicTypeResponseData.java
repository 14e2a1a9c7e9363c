package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The AlterMirrorTopicType response (version 0, flexible), one result per topic. Not thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field.
 */
public final class AlterMirrorTopicTypeResponseData extends MirrorStruct implements ApiMessage
{
    private int throttleTimeMs = 0;
    private List<TopicResult> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.ALTER_MIRROR_TOPIC_TYPE.id();
    }

    /** The duration in milliseconds for which the request was throttled, or zero. */
    public int throttleTimeMs()
    {
        return throttleTimeMs;
    }

    public AlterMirrorTopicTypeResponseData setThrottleTimeMs(final int value)
    {
        this.throttleTimeMs = value;
        return this;
    }

    /** The Topics array, each element: the result for one topic. */
    public List<TopicResult> topics()
    {
        return topics;
    }

    public AlterMirrorTopicTypeResponseData setTopics(final List<TopicResult> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        throttleTimeMs = WireCodec.readInt32(readable, "AlterMirrorTopicTypeResponse.ThrottleTimeMs");
        topics = readStructs(readable, "AlterMirrorTopicTypeResponse.Topics", TopicResult::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeInt(throttleTimeMs);
        writeStructs(writable, topics, "AlterMirrorTopicTypeResponse.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return 4
            + sizeOfStructs(topics);
    }

    @Override
    protected AlterMirrorTopicTypeResponseData newInstance()
    {
        return new AlterMirrorTopicTypeResponseData();
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
            topicName = WireCodec.readCompactString(readable, "AlterMirrorTopicTypeResponse.Topics.TopicName");
            errorCode = WireCodec.readInt16(readable, "AlterMirrorTopicTypeResponse.Topics.ErrorCode");
            errorMessage = WireCodec.readCompactNullableString(readable,
                "AlterMirrorTopicTypeResponse.Topics.ErrorMessage");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeCompactString(writable, topicName, "AlterMirrorTopicTypeResponse.Topics.TopicName");
            writable.writeShort(errorCode);
            WireCodec.writeCompactNullableString(writable, errorMessage,
                "AlterMirrorTopicTypeResponse.Topics.ErrorMessage");
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

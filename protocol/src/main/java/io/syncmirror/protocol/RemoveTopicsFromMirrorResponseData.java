package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The RemoveTopicsFromMirror response (version 0, flexible), one result per topic. Not thread-safe.
 *
 * <p>The KIP-1279 text names this RPC without giving its schema; the schema here is designed in the shape of the
 * mirror RPCs the sync text does give (per-topic results with error code and nullable message), and may change
 * when KIP-1279 fixes it.
 */
public final class RemoveTopicsFromMirrorResponseData extends MirrorStruct implements ApiMessage
{
    private int throttleTimeMs = 0;
    private List<TopicResult> topics = new ArrayList<>(0);

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.REMOVE_TOPICS_FROM_MIRROR.id();
    }

    /** The duration in milliseconds for which the request was throttled, or zero. */
    public int throttleTimeMs()
    {
        return throttleTimeMs;
    }

    public RemoveTopicsFromMirrorResponseData setThrottleTimeMs(final int value)
    {
        this.throttleTimeMs = value;
        return this;
    }

    /** The Topics array, each element: the result for one topic. */
    public List<TopicResult> topics()
    {
        return topics;
    }

    public RemoveTopicsFromMirrorResponseData setTopics(final List<TopicResult> value)
    {
        this.topics = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        throttleTimeMs = WireCodec.readInt32(readable, "RemoveTopicsFromMirrorResponse.ThrottleTimeMs");
        topics = readStructs(readable, "RemoveTopicsFromMirrorResponse.Topics", TopicResult::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeInt(throttleTimeMs);
        writeStructs(writable, topics, "RemoveTopicsFromMirrorResponse.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return 4
            + sizeOfStructs(topics);
    }

    @Override
    protected RemoveTopicsFromMirrorResponseData newInstance()
    {
        return new RemoveTopicsFromMirrorResponseData();
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
            topicName = WireCodec.readCompactString(readable, "RemoveTopicsFromMirrorResponse.Topics.TopicName");
            errorCode = WireCodec.readInt16(readable, "RemoveTopicsFromMirrorResponse.Topics.ErrorCode");
            errorMessage = WireCodec.readCompactNullableString(readable,
                "RemoveTopicsFromMirrorResponse.Topics.ErrorMessage");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeCompactString(writable, topicName, "RemoveTopicsFromMirrorResponse.Topics.TopicName");
            writable.writeShort(errorCode);
            WireCodec.writeCompactNullableString(writable, errorMessage,
                "RemoveTopicsFromMirrorResponse.Topics.ErrorMessage");
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

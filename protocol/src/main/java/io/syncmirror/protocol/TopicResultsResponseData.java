package io.syncmirror.protocol;

import java.util.ArrayList;
import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The response shape several mirror RPCs share (version 0, flexible): a throttle time and one result per topic,
 * each a topic name, an error code and a nullable error message. A subclass only names its api key, as
 * {@code class X extends TopicResultsResponseData<X>}. Not thread-safe.
 */
public abstract class TopicResultsResponseData<T extends TopicResultsResponseData<T>> extends MirrorStruct
    implements ApiMessage
{
    private final MirrorApiKeys key;
    private int throttleTimeMs = 0;
    private List<TopicResult> topics = new ArrayList<>(0);

    protected TopicResultsResponseData(final MirrorApiKeys key)
    {
        this.key = key;
    }

    @Override
    public short apiKey()
    {
        return key.id();
    }

    /** This object as its own type, for the fluent setters. */
    @SuppressWarnings("unchecked") // T is the concrete subclass by construction: class X extends ...<X>
    private T self()
    {
        return (T)this;
    }

    /** The duration in milliseconds for which the request was throttled, or zero. */
    public int throttleTimeMs()
    {
        return throttleTimeMs;
    }

    public T setThrottleTimeMs(final int value)
    {
        this.throttleTimeMs = value;
        return self();
    }

    /** The Topics array, each element: the result for one topic. */
    public List<TopicResult> topics()
    {
        return topics;
    }

    public T setTopics(final List<TopicResult> value)
    {
        this.topics = value;
        return self();
    }

    @Override
    protected void readFields(final Readable readable)
    {
        throttleTimeMs = WireCodec.readInt32(readable, key.apiName() + "Response.ThrottleTimeMs");
        topics = readStructs(readable, key.apiName() + "Response.Topics", TopicResult::new);
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeInt(throttleTimeMs);
        writeStructs(writable, topics, key.apiName() + "Response.Topics");
    }

    @Override
    protected int fieldsSize()
    {
        return 4
            + sizeOfStructs(topics);
    }

    @Override
    protected abstract T newInstance();

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
            topicName = WireCodec.readCompactString(readable, "Response.Topics.TopicName");
            errorCode = WireCodec.readInt16(readable, "Response.Topics.ErrorCode");
            errorMessage = WireCodec.readCompactNullableString(readable,
                "Response.Topics.ErrorMessage");
        }

        @Override
        protected void writeFields(final Writable writable)
        {
            WireCodec.writeCompactString(writable, topicName, "Response.Topics.TopicName");
            writable.writeShort(errorCode);
            WireCodec.writeCompactNullableString(writable, errorMessage,
                "Response.Topics.ErrorMessage");
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

package io.syncmirror.protocol;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The response shape of the mirror RPCs that succeed or fail as a whole (version 0, flexible): a throttle time,
 * an error code and a nullable error message. A subclass only names its api key, as
 * {@code class X extends ErrorOnlyResponseData<X>}. Not thread-safe.
 */
public abstract class ErrorOnlyResponseData<T extends ErrorOnlyResponseData<T>> extends MirrorStruct
    implements ApiMessage
{
    private final MirrorApiKeys key;
    private int throttleTimeMs = 0;
    private short errorCode = (short)0;
    private String errorMessage = null;

    protected ErrorOnlyResponseData(final MirrorApiKeys key)
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

    /** The error code, or 0 if there was no error. */
    public short errorCode()
    {
        return errorCode;
    }

    public T setErrorCode(final short value)
    {
        this.errorCode = value;
        return self();
    }

    /** The error message, or null if there was no error. Nullable. */
    public String errorMessage()
    {
        return errorMessage;
    }

    public T setErrorMessage(final String value)
    {
        this.errorMessage = value;
        return self();
    }

    @Override
    protected void readFields(final Readable readable)
    {
        throttleTimeMs = WireCodec.readInt32(readable, key.apiName() + "Response.ThrottleTimeMs");
        errorCode = WireCodec.readInt16(readable, key.apiName() + "Response.ErrorCode");
        errorMessage = WireCodec.readCompactNullableString(readable, key.apiName() + "Response.ErrorMessage");
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeInt(throttleTimeMs);
        writable.writeShort(errorCode);
        WireCodec.writeCompactNullableString(writable, errorMessage, key.apiName() + "Response.ErrorMessage");
    }

    @Override
    protected int fieldsSize()
    {
        return 4
            + 2
            + WireCodec.sizeOfCompactNullableString(errorMessage);
    }

    @Override
    protected abstract T newInstance();

    @Override
    protected String fieldsToString()
    {
        return "throttleTimeMs=" + throttleTimeMs + ", errorCode=" + errorCode + ", errorMessage=" + errorMessage;
    }
}

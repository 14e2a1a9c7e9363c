package io.syncmirror.protocol;

import java.util.List;

import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;

/**
 * The UnregisterMirrorSyncTopic response (version 0, flexible), one error for the whole request. Not
 * thread-safe.
 *
 * <p>The schema is the one the sync cluster mirroring text gives, field for field.
 */
public final class UnregisterMirrorSyncTopicResponseData extends MirrorStruct implements ApiMessage
{
    private int throttleTimeMs = 0;
    private short errorCode = (short)0;
    private String errorMessage = null;

    @Override
    public short apiKey()
    {
        return MirrorApiKeys.UNREGISTER_MIRROR_SYNC_TOPIC.id();
    }

    /** The duration in milliseconds for which the request was throttled, or zero. */
    public int throttleTimeMs()
    {
        return throttleTimeMs;
    }

    public UnregisterMirrorSyncTopicResponseData setThrottleTimeMs(final int value)
    {
        this.throttleTimeMs = value;
        return this;
    }

    /** The error code, or 0 if there was no error. */
    public short errorCode()
    {
        return errorCode;
    }

    public UnregisterMirrorSyncTopicResponseData setErrorCode(final short value)
    {
        this.errorCode = value;
        return this;
    }

    /** The error message, or null if there was no error. Nullable. */
    public String errorMessage()
    {
        return errorMessage;
    }

    public UnregisterMirrorSyncTopicResponseData setErrorMessage(final String value)
    {
        this.errorMessage = value;
        return this;
    }

    @Override
    protected void readFields(final Readable readable)
    {
        throttleTimeMs = WireCodec.readInt32(readable, "UnregisterMirrorSyncTopicResponse.ThrottleTimeMs");
        errorCode = WireCodec.readInt16(readable, "UnregisterMirrorSyncTopicResponse.ErrorCode");
        errorMessage = WireCodec.readCompactNullableString(readable, "UnregisterMirrorSyncTopicResponse.ErrorMessage");
    }

    @Override
    protected void writeFields(final Writable writable)
    {
        writable.writeInt(throttleTimeMs);
        writable.writeShort(errorCode);
        WireCodec.writeCompactNullableString(writable, errorMessage, "UnregisterMirrorSyncTopicResponse.ErrorMessage");
    }

    @Override
    protected int fieldsSize()
    {
        return 4
            + 2
            + WireCodec.sizeOfCompactNullableString(errorMessage);
    }

    @Override
    protected UnregisterMirrorSyncTopicResponseData newInstance()
    {
        return new UnregisterMirrorSyncTopicResponseData();
    }

    @Override
    protected String fieldsToString()
    {
        return "throttleTimeMs=" + throttleTimeMs + ", errorCode=" + errorCode + ", errorMessage=" + errorMessage;
    }
}

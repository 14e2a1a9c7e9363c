package io.syncmirror.protocol;

import java.nio.ByteBuffer;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Whole-frame helpers for the mirror RPCs: a body read after a header, and a header plus body written into one
 * buffer. Stateless and thread-safe.
 *
 * <p>Frames carry no size prefix here; the socket layer adds and strips the int32 length as it does for every
 * Kafka request. A body must be consumed exactly: extensions travel in tagged fields, so trailing bytes can only
 * be garbage, and they are rejected.
 */
public final class MirrorMessages
{
    private MirrorMessages()
    {
    }

    /**
     * Reads the request body that follows {@code header} in {@code body}, from its position to its limit.
     *
     * @throws UnsupportedVersionException if the header's api version is not one this RPC has
     * @throws InvalidRequestException     if the body is truncated, malformed or followed by extra bytes
     */
    public static ApiMessage parseRequest(final MirrorRequestHeader header, final ByteBuffer body)
    {
        final ApiMessage data = header.apiKey().newRequestData();
        readExactly(data, header.apiKey(), header.apiVersion(), body);
        return data;
    }

    /**
     * Reads a response body of {@code apiKey} at {@code version} from {@code body}'s position to its limit.
     *
     * @throws UnsupportedVersionException if the version is not one this RPC has
     * @throws InvalidRequestException     if the body is truncated, malformed or followed by extra bytes
     */
    public static ApiMessage parseResponse(final MirrorApiKeys apiKey, final short version, final ByteBuffer body)
    {
        final ApiMessage data = apiKey.newResponseData();
        readExactly(data, apiKey, version, body);
        return data;
    }

    /** Writes {@code header} then {@code data} at the header's api version into a new buffer positioned at 0. */
    public static ByteBuffer serializeRequest(final MirrorRequestHeader header, final ApiMessage data)
    {
        checkKey(header.apiKey(), data);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer buffer = ByteBuffer.allocate(header.size() + data.size(cache, header.apiVersion()));
        header.write(buffer);
        data.write(new ByteBufferAccessor(buffer), cache, header.apiVersion());
        return buffer.flip();
    }

    /** Writes {@code header} then {@code data} at {@code version} into a new buffer positioned at 0. */
    public static ByteBuffer serializeResponse(final MirrorResponseHeader header, final ApiMessage data,
        final short version)
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer buffer = ByteBuffer.allocate(header.size() + data.size(cache, version));
        header.write(buffer);
        data.write(new ByteBufferAccessor(buffer), cache, version);
        return buffer.flip();
    }

    private static void readExactly(final ApiMessage data, final MirrorApiKeys apiKey, final short version,
        final ByteBuffer body)
    {
        if (!apiKey.isVersionSupported(version))
        {
            throw new UnsupportedVersionException(apiKey.apiName() + " has no version " + version);
        }
        data.read(new ByteBufferAccessor(body), version);
        if (body.hasRemaining())
        {
            throw new InvalidRequestException(apiKey.apiName() + " body has " + body.remaining()
                + " bytes after its last field");
        }
    }

    private static void checkKey(final MirrorApiKeys apiKey, final ApiMessage data)
    {
        if (data.apiKey() != apiKey.id())
        {
            throw new IllegalArgumentException("Header is for " + apiKey.apiName() + " but the body has api key "
                + data.apiKey());
        }
    }
}

package io.syncmirror.protocol;

import java.nio.ByteBuffer;
import java.util.function.Consumer;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

/**
 * Whole-frame helpers for the mirror RPCs: a body read after a header, and a header plus body written into one
 * buffer. Stateless and thread-safe.
 *
 * <p>Every read of a mirror message from the wire goes through {@link #read}: the message classes are generated
 * by Kafka's message generator from {@code src/main/resources/message/*.json}, and their own
 * {@code read(Readable, short)} trusts its input (see {@link SchemaCheck} for what it lets through).
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

    /**
     * Reads {@code into} at {@code version} from {@code buffer}, from its position, after checking the bytes
     * against the message's schema; the position ends after the message. Bytes after the message are left for
     * the caller.
     *
     * @throws UnsupportedVersionException if {@code into} has no such version
     * @throws InvalidRequestException     naming the field, if the bytes are truncated or malformed
     */
    public static void read(final Message into, final ByteBuffer buffer, final short version)
    {
        checkVersion(into, version);
        SchemaCheck.check(into, buffer, version);
        into.read(new ByteBufferAccessor(buffer), version);
    }

    /**
     * {@code message} encoded at {@code version}, in a new heap buffer positioned at 0.
     *
     * @throws UnsupportedVersionException if {@code message} has no such version
     */
    public static ByteBuffer toByteBuffer(final Message message, final short version)
    {
        return encode(0, buffer -> { }, message, version);
    }

    /** Writes {@code header} then {@code data} at the header's api version into a new buffer positioned at 0. */
    public static ByteBuffer serializeRequest(final MirrorRequestHeader header, final ApiMessage data)
    {
        checkKey(header.apiKey(), data);
        return encode(header.size(), header::write, data, header.apiVersion());
    }

    /** Writes {@code header} then {@code data} at {@code version} into a new buffer positioned at 0. */
    public static ByteBuffer serializeResponse(final MirrorResponseHeader header, final ApiMessage data,
        final short version)
    {
        return encode(header.size(), header::write, data, version);
    }

    /**
     * The header, then the message, in a new buffer positioned at 0. The message's bytes are walked as a reader
     * would walk them before they are handed out: Kafka's generated writer writes a tag that is set both as a
     * known field and among the unknown tagged fields twice, which every reader here rejects, so such a message
     * fails here, at its sender.
     *
     * @throws IllegalStateException if the bytes written would not read back
     */
    private static ByteBuffer encode(final int headerSize, final Consumer<ByteBuffer> header, final Message message,
        final short version)
    {
        checkVersion(message, version);
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer buffer = ByteBuffer.allocate(headerSize + message.size(cache, version));
        header.accept(buffer);
        final int bodyStart = buffer.position();
        message.write(new ByteBufferAccessor(buffer), cache, version);
        buffer.flip();
        try
        {
            SchemaCheck.check(message, buffer.duplicate().position(bodyStart), version);
        }
        catch (final InvalidRequestException e)
        {
            throw new IllegalStateException(message.getClass().getSimpleName() + " would not read back: "
                + e.getMessage(), e);
        }
        return buffer;
    }

    private static void readExactly(final ApiMessage data, final MirrorApiKeys apiKey, final short version,
        final ByteBuffer body)
    {
        if (!apiKey.isVersionSupported(version))
        {
            throw new UnsupportedVersionException(apiKey.apiName() + " has no version " + version);
        }
        read(data, body, version);
        if (body.hasRemaining())
        {
            throw new InvalidRequestException(apiKey.apiName() + " body has " + body.remaining()
                + " bytes after its last field");
        }
    }

    /** Kafka's generated classes check the version only in nested structs, so the whole message is checked here. */
    private static void checkVersion(final Message message, final short version)
    {
        if (version < message.lowestSupportedVersion() || version > message.highestSupportedVersion())
        {
            throw new UnsupportedVersionException(message.getClass().getSimpleName() + " has no version " + version);
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

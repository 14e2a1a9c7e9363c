package io.syncmirror.protocol;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * A Kafka request header, version 2, for the mirror RPCs, whose api keys kafka-clients'
 * {@code RequestHeader.parse} rejects because {@code ApiKeys} does not know them. Immutable once built; the
 * list of unknown tagged fields is copied in and handed out read-only.
 *
 * <p>Layout (Kafka's RequestHeader schema at version 2): int16 api key, int16 api version, int32 correlation
 * id, client id as a nullable <em>classic</em> string (int16 length, -1 for null: the schema marks ClientId
 * {@code "flexibleVersions": "none"} so that any broker can read it before knowing the header version), then a
 * compact tagged field section. Every mirror RPC version is flexible, so version 2 is the only header version
 * they use; {@link #parse} accepts only mirror api keys, since every other key either belongs to
 * {@code RequestHeader.parse} or is not a request this broker knows. The api version is not checked here:
 * {@link #isApiVersionSupported()} leaves that to the caller, which decides how to answer.
 */
public final class MirrorRequestHeader
{
    /** The request header version of every mirror RPC. */
    public static final short HEADER_VERSION = 2;

    /** Api key, api version, correlation id and the client id's length. */
    private static final int FIXED_BYTES = 2 + 2 + 4 + 2;

    private final MirrorApiKeys apiKey;
    private final short apiVersion;
    private final int correlationId;
    private final String clientId;
    private final List<RawTaggedField> unknownTaggedFields;

    public MirrorRequestHeader(final MirrorApiKeys apiKey, final short apiVersion, final int correlationId,
        final String clientId)
    {
        this(apiKey, apiVersion, correlationId, clientId, List.of());
    }

    public MirrorRequestHeader(final MirrorApiKeys apiKey, final short apiVersion, final int correlationId,
        final String clientId, final List<RawTaggedField> unknownTaggedFields)
    {
        this.apiKey = Objects.requireNonNull(apiKey, "apiKey");
        this.apiVersion = apiVersion;
        this.correlationId = correlationId;
        if (clientId != null && WireCodec.utf8Length(clientId) > WireCodec.MAX_STRING_BYTES)
        {
            throw new IllegalArgumentException("client id longer than " + WireCodec.MAX_STRING_BYTES + " bytes");
        }
        this.clientId = clientId;
        this.unknownTaggedFields = List.copyOf(unknownTaggedFields);
    }

    /**
     * The api key of the request in {@code buffer} starting at its position, without consuming anything, or -1
     * if fewer than two bytes remain. Lets a socket server choose between {@code RequestHeader.parse} and
     * {@link #parse}.
     */
    public static short peekApiKey(final ByteBuffer buffer)
    {
        return buffer.remaining() < 2 ? -1 : buffer.getShort(buffer.position());
    }

    /** Whether {@code apiKey} is one of the mirror RPCs this header is for. */
    public static boolean isMirrorApiKey(final short apiKey)
    {
        return MirrorApiKeys.forId(apiKey) != null;
    }

    /**
     * Reads a version 2 request header from {@code buffer}, leaving its position at the first byte of the body.
     *
     * @throws InvalidRequestException if the api key is not a mirror RPC, or the header is truncated or
     *                                 malformed; the buffer's position is then unspecified
     */
    public static MirrorRequestHeader parse(final ByteBuffer buffer)
    {
        if (buffer.remaining() < FIXED_BYTES)
        {
            throw new InvalidRequestException("Request header needs at least " + FIXED_BYTES + " bytes, got "
                + buffer.remaining());
        }
        final short apiKeyId = buffer.getShort();
        final MirrorApiKeys apiKey = MirrorApiKeys.forId(apiKeyId);
        if (apiKey == null)
        {
            throw new InvalidRequestException("Api key " + apiKeyId + " is not a mirror RPC");
        }
        final short apiVersion = buffer.getShort();
        final int correlationId = buffer.getInt();
        final short clientIdLength = buffer.getShort();
        final String clientId;
        if (clientIdLength == -1)
        {
            clientId = null;
        }
        else if (clientIdLength < 0)
        {
            throw new InvalidRequestException("Request header client id has negative length " + clientIdLength);
        }
        else if (clientIdLength > buffer.remaining())
        {
            throw new InvalidRequestException("Request header client id of " + clientIdLength
                + " bytes overruns the " + buffer.remaining() + " bytes that remain");
        }
        else
        {
            final byte[] bytes = new byte[clientIdLength];
            buffer.get(bytes);
            clientId = new String(bytes, StandardCharsets.UTF_8);
        }
        final List<RawTaggedField> tagged = WireCodec.readTaggedFields(new ByteBufferAccessor(buffer),
            "RequestHeader");
        return new MirrorRequestHeader(apiKey, apiVersion, correlationId, clientId, tagged);
    }

    /** Writes this header at {@code buffer}'s position, advancing it by {@link #size()}. */
    public void write(final ByteBuffer buffer)
    {
        buffer.putShort(apiKey.id());
        buffer.putShort(apiVersion);
        buffer.putInt(correlationId);
        if (clientId == null)
        {
            buffer.putShort((short)-1);
        }
        else
        {
            final byte[] bytes = clientId.getBytes(StandardCharsets.UTF_8);
            buffer.putShort((short)bytes.length);
            buffer.put(bytes);
        }
        WireCodec.writeTaggedFields(new ByteBufferAccessor(buffer), unknownTaggedFields);
    }

    /** The encoded size of this header in bytes. */
    public int size()
    {
        return FIXED_BYTES + (clientId == null ? 0 : WireCodec.utf8Length(clientId))
            + WireCodec.sizeOfTaggedFields(unknownTaggedFields);
    }

    /** The response header that answers this request: same correlation id, version 1. */
    public MirrorResponseHeader toResponseHeader()
    {
        return new MirrorResponseHeader(correlationId);
    }

    public MirrorApiKeys apiKey()
    {
        return apiKey;
    }

    public short apiVersion()
    {
        return apiVersion;
    }

    public boolean isApiVersionSupported()
    {
        return apiKey.isVersionSupported(apiVersion);
    }

    public int correlationId()
    {
        return correlationId;
    }

    /** The client id, or null if the client sent none. */
    public String clientId()
    {
        return clientId;
    }

    public short headerVersion()
    {
        return HEADER_VERSION;
    }

    public List<RawTaggedField> unknownTaggedFields()
    {
        return unknownTaggedFields;
    }

    @Override
    public boolean equals(final Object other)
    {
        if (!(other instanceof MirrorRequestHeader))
        {
            return false;
        }
        final MirrorRequestHeader that = (MirrorRequestHeader)other;
        return apiKey == that.apiKey && apiVersion == that.apiVersion && correlationId == that.correlationId
            && Objects.equals(clientId, that.clientId) && unknownTaggedFields.equals(that.unknownTaggedFields);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(apiKey, apiVersion, correlationId, clientId, unknownTaggedFields);
    }

    @Override
    public String toString()
    {
        return "MirrorRequestHeader(apiKey=" + apiKey + ", apiVersion=" + apiVersion + ", correlationId="
            + correlationId + ", clientId=" + clientId + ", unknownTaggedFields=" + unknownTaggedFields.size()
            + ")";
    }
}

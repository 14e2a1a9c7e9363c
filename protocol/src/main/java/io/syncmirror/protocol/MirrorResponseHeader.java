package io.syncmirror.protocol;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * A Kafka response header, version 1, as every mirror RPC answers with: int32 correlation id, then a compact
 * tagged field section. Immutable.
 *
 * <p>kafka-clients' {@code ResponseHeader} could write the same bytes, but choosing its version goes through
 * {@code ApiKeys}, which does not know the mirror keys; this class keeps the mirror path free of that lookup.
 */
public final class MirrorResponseHeader
{
    /** The response header version of every mirror RPC. */
    public static final short HEADER_VERSION = 1;

    private final int correlationId;
    private final List<RawTaggedField> unknownTaggedFields;

    public MirrorResponseHeader(final int correlationId)
    {
        this(correlationId, List.of());
    }

    public MirrorResponseHeader(final int correlationId, final List<RawTaggedField> unknownTaggedFields)
    {
        this.correlationId = correlationId;
        this.unknownTaggedFields = List.copyOf(unknownTaggedFields);
    }

    /**
     * Reads a version 1 response header, leaving {@code buffer}'s position at the first byte of the body.
     *
     * @throws InvalidRequestException if the header is truncated or malformed
     */
    public static MirrorResponseHeader parse(final ByteBuffer buffer)
    {
        if (buffer.remaining() < 4)
        {
            throw new InvalidRequestException("Response header needs at least 4 bytes, got " + buffer.remaining());
        }
        final int correlationId = buffer.getInt();
        return new MirrorResponseHeader(correlationId,
            WireCodec.readTaggedFields(new ByteBufferAccessor(buffer), "ResponseHeader"));
    }

    /** Writes this header at {@code buffer}'s position, advancing it by {@link #size()}. */
    public void write(final ByteBuffer buffer)
    {
        buffer.putInt(correlationId);
        WireCodec.writeTaggedFields(new ByteBufferAccessor(buffer), unknownTaggedFields);
    }

    public int size()
    {
        return 4 + WireCodec.sizeOfTaggedFields(unknownTaggedFields);
    }

    public int correlationId()
    {
        return correlationId;
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
        return other instanceof MirrorResponseHeader
            && correlationId == ((MirrorResponseHeader)other).correlationId
            && unknownTaggedFields.equals(((MirrorResponseHeader)other).unknownTaggedFields);
    }

    @Override
    public int hashCode()
    {
        return Objects.hash(correlationId, unknownTaggedFields);
    }

    @Override
    public String toString()
    {
        return "MirrorResponseHeader(correlationId=" + correlationId + ", unknownTaggedFields="
            + unknownTaggedFields.size() + ")";
    }
}

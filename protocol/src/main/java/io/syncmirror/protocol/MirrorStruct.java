package io.syncmirror.protocol;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.MessageSizeAccumulator;
import org.apache.kafka.common.protocol.ObjectSerializationCache;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The skeleton of {@link MirrorReplicaInfo} and the structs nested in it: a Kafka {@link Message} whose only
 * version is 0 and whose version 0 is flexible, so each instance ends with a tagged field section. Not
 * thread-safe; like Kafka's generated {@code *Data} classes, an instance is mutable and owned by one thread.
 *
 * <p>Why this is still written by hand when the mirror RPCs are generated from {@code src/main/resources/message}
 * by Kafka's message generator: MirrorReplicaInfo rides in every Fetch a destination sends, and a source reads it
 * on the fetch path. Read here, each field is bounds-checked as it is read ({@link WireCodec}), in one pass;
 * a generated class would need {@link SchemaCheck}'s walk before its own read, two passes per Fetch, because the
 * generated reader does not name the field that ran out or reject out-of-order tags. The RPC messages are
 * control-plane traffic and pay that second pass.
 *
 * <p>A subclass writes only its fields. One with tagged fields of its own decodes them in
 * {@link #readKnownTaggedField} and encodes them in {@link #knownTaggedFields}; every other tag read is kept in
 * {@link #unknownTaggedFields()} and written back unchanged, merged in tag order with the known ones, which is
 * what lets a newer peer's tags survive a pass through this code. A known tagged field at its default is not
 * written, so a message that does not use one encodes exactly as it did before the field existed.
 *
 * <p>Equality is field equality. It is computed by comparing the version 0 encodings, which is exact here
 * because each field has exactly one encoding at the single version (null and empty strings encode
 * differently).
 */
public abstract class MirrorStruct implements Message
{
    /** The only version of every mirror message. */
    public static final short VERSION_0 = 0;

    private List<RawTaggedField> unknownTaggedFields = new ArrayList<>(0);

    @Override
    public final short lowestSupportedVersion()
    {
        return VERSION_0;
    }

    @Override
    public final short highestSupportedVersion()
    {
        return VERSION_0;
    }

    @Override
    public final List<RawTaggedField> unknownTaggedFields()
    {
        return unknownTaggedFields;
    }

    @Override
    public final void read(final Readable readable, final short version)
    {
        checkVersion(version);
        readFields(readable);
        readTaggedSection(readable, getClass().getSimpleName());
    }

    @Override
    public final void write(final Writable writable, final ObjectSerializationCache cache, final short version)
    {
        checkVersion(version);
        writeFields(writable);
        writeTaggedSection(writable);
    }

    @Override
    public final void addSize(final MessageSizeAccumulator size, final ObjectSerializationCache cache,
        final short version)
    {
        checkVersion(version);
        size.addBytes(fieldsSize() + taggedSectionSize());
    }

    /** This message encoded at version 0, in a new heap buffer positioned at 0. */
    public final ByteBuffer toByteBuffer()
    {
        final ObjectSerializationCache cache = new ObjectSerializationCache();
        final ByteBuffer buffer = ByteBuffer.allocate(size(cache, VERSION_0));
        write(new ByteBufferAccessor(buffer), cache, VERSION_0);
        if (buffer.hasRemaining())
        {
            throw new IllegalStateException(getClass().getSimpleName() + " wrote " + buffer.position()
                + " bytes but sized itself at " + buffer.limit());
        }
        return buffer.flip();
    }

    @Override
    public final MirrorStruct duplicate()
    {
        final MirrorStruct copy = newInstance();
        copy.read(new ByteBufferAccessor(toByteBuffer()), VERSION_0);
        return copy;
    }

    @Override
    public final boolean equals(final Object other)
    {
        return other != null && other.getClass() == getClass()
            && toByteBuffer().equals(((MirrorStruct)other).toByteBuffer());
    }

    @Override
    public final int hashCode()
    {
        return toByteBuffer().hashCode();
    }

    @Override
    public String toString()
    {
        return getClass().getSimpleName() + "(" + fieldsToString() + ", unknownTaggedFields="
            + unknownTaggedFields.size() + ")";
    }

    /** Reads the fields before the tagged field section, overwriting every field. */
    protected abstract void readFields(Readable readable);

    /** Writes the fields before the tagged field section. */
    protected abstract void writeFields(Writable writable);

    /** The encoded size of the fields before the tagged field section. */
    protected abstract int fieldsSize();

    /** A new instance with every field at its schema default. */
    protected abstract MirrorStruct newInstance();

    /** The fields for {@link #toString()}. */
    protected abstract String fieldsToString();

    /**
     * Decodes the known tagged field {@code tag} from its {@code data}, or returns false if this struct has no
     * tagged field with that tag, in which case the field is kept as unknown. This default knows none.
     *
     * @throws org.apache.kafka.common.errors.InvalidRequestException if the data is malformed
     */
    protected boolean readKnownTaggedField(final int tag, final Readable data)
    {
        return false;
    }

    /**
     * This struct's known tagged fields that are away from their defaults, encoded, in ascending tag order.
     * This default has none.
     */
    protected List<RawTaggedField> knownTaggedFields()
    {
        return List.of();
    }

    /** Resets every known tagged field to its default before a read; this default has none to reset. */
    protected void resetKnownTaggedFields()
    {
    }

    private void readTaggedSection(final Readable readable, final String owner)
    {
        resetKnownTaggedFields();
        final List<RawTaggedField> raw = WireCodec.readTaggedFields(readable, owner);
        final List<RawTaggedField> unknown = new ArrayList<>(raw.size());
        for (final RawTaggedField field : raw)
        {
            final ByteBufferAccessor data = new ByteBufferAccessor(ByteBuffer.wrap(field.data()));
            if (!readKnownTaggedField(field.tag(), data))
            {
                unknown.add(field);
            }
            else if (data.remaining() != 0)
            {
                throw WireCodec.malformed(owner + ".TaggedFields", "tag " + field.tag() + " has "
                    + data.remaining() + " bytes after its value");
            }
        }
        unknownTaggedFields = unknown;
    }

    /** The known and unknown tagged fields merged in ascending tag order. */
    private List<RawTaggedField> allTaggedFields()
    {
        final List<RawTaggedField> known = knownTaggedFields();
        if (known.isEmpty())
        {
            return unknownTaggedFields;
        }
        final List<RawTaggedField> merged = new ArrayList<>(known.size() + unknownTaggedFields.size());
        int k = 0;
        int u = 0;
        while (k < known.size() || u < unknownTaggedFields.size())
        {
            if (u == unknownTaggedFields.size()
                || k < known.size() && known.get(k).tag() < unknownTaggedFields.get(u).tag())
            {
                merged.add(known.get(k++));
            }
            else if (k == known.size() || unknownTaggedFields.get(u).tag() < known.get(k).tag())
            {
                merged.add(unknownTaggedFields.get(u++));
            }
            else
            {
                throw new IllegalStateException(getClass().getSimpleName() + " has tag " + known.get(k).tag()
                    + " both as a known field and among its unknown tagged fields");
            }
        }
        return merged;
    }

    private void writeTaggedSection(final Writable writable)
    {
        WireCodec.writeTaggedFields(writable, allTaggedFields());
    }

    private int taggedSectionSize()
    {
        return WireCodec.sizeOfTaggedFields(allTaggedFields());
    }

    private void checkVersion(final short version)
    {
        if (version != VERSION_0)
        {
            throw new UnsupportedVersionException(getClass().getSimpleName() + " has only version 0, not "
                + version);
        }
    }

    /** Reads a compact array of structs, each read by a new instance from {@code factory}. */
    protected static <T extends MirrorStruct> List<T> readStructs(final Readable readable, final String field,
        final Supplier<T> factory)
    {
        // The smallest struct is its empty tagged field section: one byte.
        final int count = WireCodec.readCompactArrayLength(readable, field, false, 1);
        final List<T> structs = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            final T struct = factory.get();
            final MirrorStruct base = struct;
            base.readFields(readable);
            base.readTaggedSection(readable, field);
            structs.add(struct);
        }
        return structs;
    }

    protected static void writeStructs(final Writable writable, final List<? extends MirrorStruct> structs,
        final String field)
    {
        Objects.requireNonNull(structs, field);
        WireCodec.writeCompactArrayLength(writable, structs);
        for (final MirrorStruct struct : structs)
        {
            struct.writeFields(writable);
            struct.writeTaggedSection(writable);
        }
    }

    protected static int sizeOfStructs(final List<? extends MirrorStruct> structs)
    {
        int size = WireCodec.sizeOfCompactArrayLength(structs);
        for (final MirrorStruct struct : structs)
        {
            size += struct.fieldsSize() + struct.taggedSectionSize();
        }
        return size;
    }

    /** Replaces the unknown tagged fields, e.g. to carry a newer peer's tags; tags must ascend. */
    public final void setUnknownTaggedFields(final List<RawTaggedField> fields)
    {
        unknownTaggedFields = new ArrayList<>(fields);
    }
}

package io.syncmirror.protocol;

import java.nio.BufferUnderflowException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.Writable;
import org.apache.kafka.common.protocol.types.RawTaggedField;

/**
 * The primitive encodings of Kafka's flexible message versions (compact strings and arrays, uuids, tagged field
 * sections), with bounds checks on every read. Stateless and thread-safe.
 *
 * <p>Every read checks the bytes it needs against {@link Readable#remaining()} before it consumes or allocates
 * anything, so a truncated buffer or a hostile length (negative, or larger than what is left) fails at once with
 * an {@link InvalidRequestException} naming the field, which {@code Errors.forException} maps to
 * {@code INVALID_REQUEST}. A length can never make a reader allocate more than the buffer holds, and every
 * element of a collection consumes at least one byte, so no input makes a read loop run longer than the
 * buffer is long.
 */
final class WireCodec
{
    /** Kafka limits every string on the wire to a signed 16-bit length. */
    static final int MAX_STRING_BYTES = Short.MAX_VALUE;

    private WireCodec()
    {
    }

    static InvalidRequestException malformed(final String field, final String why)
    {
        return new InvalidRequestException("Malformed field " + field + ": " + why);
    }

    private static void need(final Readable readable, final int bytes, final String field)
    {
        final int remaining = readable.remaining();
        if (remaining < bytes)
        {
            throw malformed(field, "needs " + bytes + " bytes but only " + remaining + " remain");
        }
    }

    /** Steps over {@code bytes} bytes of field {@code field}, checking they are there. */
    static void skip(final Readable readable, final int bytes, final String field)
    {
        need(readable, bytes, field);
        readable.readByteBuffer(bytes);
    }

    static byte readInt8(final Readable readable, final String field)
    {
        need(readable, 1, field);
        return readable.readByte();
    }

    static boolean readBool(final Readable readable, final String field)
    {
        need(readable, 1, field);
        return readable.readByte() != 0;
    }

    static short readInt16(final Readable readable, final String field)
    {
        need(readable, 2, field);
        return readable.readShort();
    }

    static int readInt32(final Readable readable, final String field)
    {
        need(readable, 4, field);
        return readable.readInt();
    }

    static long readInt64(final Readable readable, final String field)
    {
        need(readable, 8, field);
        return readable.readLong();
    }

    static Uuid readUuid(final Readable readable, final String field)
    {
        need(readable, 16, field);
        return new Uuid(readable.readLong(), readable.readLong());
    }

    static int readUnsignedVarint(final Readable readable, final String field)
    {
        try
        {
            return readable.readUnsignedVarint();
        }
        catch (final BufferUnderflowException | IllegalArgumentException e)
        {
            // A varint cut off by the end of the buffer, or one longer than five bytes.
            throw malformed(field, "bad unsigned varint (" + e.getClass().getSimpleName() + ")");
        }
    }

    /** Reads a compact length (the length plus one, 0 meaning null); returns -1 for null. */
    private static int readCompactLength(final Readable readable, final String field)
    {
        final int lengthPlusOne = readUnsignedVarint(readable, field);
        if (lengthPlusOne < 0)
        {
            // A five-byte varint above Integer.MAX_VALUE: a negative length, not a null.
            throw malformed(field, "negative length " + Integer.toUnsignedLong(lengthPlusOne));
        }
        return lengthPlusOne - 1;
    }

    /** Reads a compact string that may not be null. */
    static String readCompactString(final Readable readable, final String field)
    {
        final String value = readCompactNullableString(readable, field);
        if (value == null)
        {
            throw malformed(field, "null for a non-nullable string");
        }
        return value;
    }

    /** Reads a compact string whose length+1 may be 0, meaning null. */
    static String readCompactNullableString(final Readable readable, final String field)
    {
        final int length = readCompactLength(readable, field);
        if (length < 0)
        {
            return null;
        }
        if (length > MAX_STRING_BYTES)
        {
            throw malformed(field, "string of " + length + " bytes exceeds " + MAX_STRING_BYTES);
        }
        need(readable, length, field);
        return readable.readString(length);
    }

    /**
     * Reads a compact array length (length+1, 0 meaning null) and checks it against the bytes left, assuming
     * every element takes at least {@code minElementBytes}.
     *
     * @return the element count, or -1 for a null array
     */
    static int readCompactArrayLength(final Readable readable, final String field, final boolean nullable,
        final int minElementBytes)
    {
        final int length = readCompactLength(readable, field);
        if (length < 0)
        {
            if (!nullable)
            {
                throw malformed(field, "null for a non-nullable array");
            }
            return -1;
        }
        final int remaining = readable.remaining();
        if ((long)length * minElementBytes > remaining)
        {
            throw malformed(field, "array of " + length + " elements cannot fit in the " + remaining
                + " bytes that remain");
        }
        return length;
    }

    /** Reads a tagged field section as raw fields, checking that tags ascend and that each fits. */
    static List<RawTaggedField> readTaggedFields(final Readable readable, final String owner)
    {
        final String field = owner + ".TaggedFields";
        final int count = readUnsignedVarint(readable, field);
        final int remaining = readable.remaining();
        // Each tagged field takes at least two bytes (its tag and size varints).
        if (count < 0 || (long)count * 2 > remaining)
        {
            throw malformed(field, count + " tagged fields cannot fit in the " + remaining + " bytes that remain");
        }
        return readTaggedFieldEntries(readable, field, count);
    }

    private static List<RawTaggedField> readTaggedFieldEntries(final Readable readable, final String field,
        final int count)
    {
        final List<RawTaggedField> fields = new ArrayList<>(count);
        int previousTag = -1;
        for (int i = 0; i < count; i++)
        {
            final int tag = readUnsignedVarint(readable, field);
            if (tag <= previousTag)
            {
                throw malformed(field, "tag " + tag + " follows tag " + previousTag + "; tags must ascend");
            }
            previousTag = tag;
            final int size = readUnsignedVarint(readable, field);
            if (size < 0)
            {
                throw malformed(field, "tag " + tag + " has negative size " + size);
            }
            need(readable, size, field);
            fields.add(new RawTaggedField(tag, readable.readArray(size)));
        }
        return fields;
    }

    /** Reads a compact array of int32. */
    static List<Integer> readCompactInt32Array(final Readable readable, final String field)
    {
        final int count = readCompactArrayLength(readable, field, false, 4);
        final List<Integer> values = new ArrayList<>(count);
        for (int i = 0; i < count; i++)
        {
            values.add(readable.readInt());
        }
        return values;
    }

    static void writeCompactInt32Array(final Writable writable, final List<Integer> values, final String field)
    {
        writeCompactArrayLength(writable, Objects.requireNonNull(values, field));
        for (final Integer value : values)
        {
            writable.writeInt(value);
        }
    }

    static int sizeOfCompactInt32Array(final List<Integer> values)
    {
        return sizeOfCompactArrayLength(values) + 4 * values.size();
    }

    static void writeUuid(final Writable writable, final Uuid value, final String field)
    {
        Objects.requireNonNull(value, field);
        writable.writeLong(value.getMostSignificantBits());
        writable.writeLong(value.getLeastSignificantBits());
    }

    static void writeCompactString(final Writable writable, final String value, final String field)
    {
        writeCompactNullableString(writable, Objects.requireNonNull(value, field), field);
    }

    static void writeCompactNullableString(final Writable writable, final String value, final String field)
    {
        if (value == null)
        {
            writable.writeUnsignedVarint(0);
            return;
        }
        final byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        if (bytes.length > MAX_STRING_BYTES)
        {
            throw new IllegalArgumentException(field + " is " + bytes.length + " bytes, more than "
                + MAX_STRING_BYTES);
        }
        writable.writeUnsignedVarint(bytes.length + 1);
        writable.writeByteArray(bytes);
    }

    static void writeCompactArrayLength(final Writable writable, final List<?> list)
    {
        writable.writeUnsignedVarint(list == null ? 0 : list.size() + 1);
    }

    static void writeTaggedFields(final Writable writable, final List<RawTaggedField> fields)
    {
        writable.writeUnsignedVarint(fields.size());
        for (final RawTaggedField field : fields)
        {
            writable.writeUnsignedVarint(field.tag());
            writable.writeUnsignedVarint(field.data().length);
            writable.writeByteArray(field.data());
        }
    }

    static int sizeOfUnsignedVarint(final int value)
    {
        // Seven payload bits per byte; an int needs at most five.
        final int bits = 32 - Integer.numberOfLeadingZeros(value);
        return Math.max(1, (bits + 6) / 7);
    }

    static int sizeOfCompactNullableString(final String value)
    {
        if (value == null)
        {
            return 1;
        }
        final int bytes = utf8Length(value);
        return sizeOfUnsignedVarint(bytes + 1) + bytes;
    }

    static int sizeOfCompactArrayLength(final List<?> list)
    {
        return sizeOfUnsignedVarint(list == null ? 0 : list.size() + 1);
    }

    static int sizeOfTaggedFields(final List<RawTaggedField> fields)
    {
        int size = sizeOfUnsignedVarint(fields.size());
        for (final RawTaggedField field : fields)
        {
            size += sizeOfUnsignedVarint(field.tag()) + sizeOfUnsignedVarint(field.data().length)
                + field.data().length;
        }
        return size;
    }

    /** The UTF-8 length of a string without encoding it. */
    static int utf8Length(final CharSequence value)
    {
        int bytes = 0;
        final int length = value.length();
        for (int i = 0; i < length; i++)
        {
            final char c = value.charAt(i);
            if (c < 0x80)
            {
                bytes += 1;
            }
            else if (c < 0x800)
            {
                bytes += 2;
            }
            else if (Character.isHighSurrogate(c) && i + 1 < length && Character.isLowSurrogate(value.charAt(i + 1)))
            {
                bytes += 4;
                i++;
            }
            else
            {
                // Includes a lone surrogate, which String.getBytes replaces with the 1-byte '?'.
                bytes += Character.isSurrogate(c) ? 1 : 3;
            }
        }
        return bytes;
    }
}

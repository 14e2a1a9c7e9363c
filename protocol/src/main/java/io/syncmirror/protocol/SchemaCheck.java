package io.syncmirror.protocol;

import java.nio.ByteBuffer;
import java.util.Map;

import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.Readable;
import org.apache.kafka.common.protocol.types.BoundField;
import org.apache.kafka.common.protocol.types.CompactArrayOf;
import org.apache.kafka.common.protocol.types.Field;
import org.apache.kafka.common.protocol.types.RawTaggedField;
import org.apache.kafka.common.protocol.types.Schema;
import org.apache.kafka.common.protocol.types.TaggedFields;
import org.apache.kafka.common.protocol.types.Type;

/**
 * Walks bytes against the {@link Schema} that Kafka's message generator writes into each generated class
 * ({@code SCHEMAS}), so that malformed input fails with an {@link InvalidRequestException} naming the field
 * before the generated reader sees it. Stateless and thread-safe.
 *
 * <p>Why a walk before the read rather than a catch around it: the generated {@code read(Readable, short)} throws
 * whatever its buffer throws ({@code BufferUnderflowException} without a message for a cut-off int, a bare
 * {@code RuntimeException} for a null non-nullable field), so a catch could not say which field ran out; it
 * also takes tagged fields in any order, keeps a repeated tag, and reads a known tagged field without checking
 * that it used the bytes its size claimed. This walk checks all of that with {@link WireCodec}'s bounds-checked
 * reads, which check every length against the bytes left before anything is allocated.
 *
 * <p>Field names follow the schemas: {@code Message.Field} at the top level and {@code Message.Array.Field} inside
 * an array's elements, e.g. {@code AddTopicsToMirrorRequest.Topics.TopicName}. The generated schemas name fields
 * in snake case; {@link #fieldName} turns them back into the JSON schemas' names.
 */
final class SchemaCheck
{
    private static final ClassValue<Schema[]> SCHEMAS = new ClassValue<>()
    {
        @Override
        protected Schema[] computeValue(final Class<?> type)
        {
            try
            {
                return (Schema[])type.getField("SCHEMAS").get(null);
            }
            catch (final ReflectiveOperationException e)
            {
                throw new IllegalArgumentException(type.getName() + " is not a generated message class", e);
            }
        }
    };

    /** The encoded size of each type that has one. */
    private static final Map<Type, Integer> FIXED_SIZES = Map.of(Type.BOOLEAN, 1, Type.INT8, 1, Type.INT16, 2,
        Type.UINT16, 2, Type.INT32, 4, Type.UNSIGNED_INT32, 4, Type.INT64, 8, Type.FLOAT64, 8, Type.UUID, 16);

    private SchemaCheck()
    {
    }

    /**
     * Checks that {@code buffer}, from its position, starts with a well-formed encoding of {@code message} at
     * {@code version}; the buffer's position is left where it was.
     *
     * @throws InvalidRequestException naming the field, if it does not
     */
    static void check(final Message message, final ByteBuffer buffer, final short version)
    {
        final Schema[] schemas = SCHEMAS.get(message.getClass());
        if (version < 0 || version >= schemas.length || schemas[version] == null)
        {
            // The generated reader rejects the version itself, with UnsupportedVersionException.
            return;
        }
        final String name = message.getClass().getSimpleName().replaceFirst("Data$", "");
        checkStruct(new ByteBufferAccessor(buffer.duplicate()), schemas[version], name, name);
    }

    private static void checkStruct(final Readable readable, final Schema schema, final String owner,
        final String tagOwner)
    {
        for (final BoundField bound : schema.fields())
        {
            final Field field = bound.def;
            if (field.type instanceof TaggedFields)
            {
                checkTaggedFields(readable, (TaggedFields)field.type, owner, tagOwner);
            }
            else
            {
                checkValue(readable, field.type, owner, fieldName(field.name));
            }
        }
    }

    private static void checkValue(final Readable readable, final Type type, final String owner,
        final String name)
    {
        final String field = owner + "." + name;
        final Integer fixedSize = FIXED_SIZES.get(type);
        if (fixedSize != null)
        {
            WireCodec.skip(readable, fixedSize, field);
        }
        else if (type == Type.COMPACT_STRING)
        {
            WireCodec.readCompactString(readable, field);
        }
        else if (type == Type.COMPACT_NULLABLE_STRING)
        {
            WireCodec.readCompactNullableString(readable, field);
        }
        else if (type instanceof CompactArrayOf)
        {
            checkArray(readable, (CompactArrayOf)type, owner, name);
        }
        else
        {
            // A schema with a type this walk does not know fails every read, so a test finds it at once.
            throw new IllegalStateException("No check for " + field + " of type " + type);
        }
    }

    private static void checkArray(final Readable readable, final CompactArrayOf array, final String owner,
        final String name)
    {
        final Type element = array.arrayElementType().orElseThrow();
        final String field = owner + "." + name;
        final int count = WireCodec.readCompactArrayLength(readable, field, array.isNullable(),
            minimumSize(element));
        for (int i = 0; i < count; i++)
        {
            if (element instanceof Schema)
            {
                // Inside an element, fields are named after the innermost array: Message.Array.Field.
                final String elementOwner = owner.substring(0, owner.indexOf('.') < 0 ? owner.length()
                    : owner.indexOf('.')) + "." + name;
                checkStruct(readable, (Schema)element, elementOwner, elementOwner);
            }
            else
            {
                checkValue(readable, element, owner, name);
            }
        }
    }

    private static void checkTaggedFields(final Readable readable, final TaggedFields tagged, final String owner,
        final String tagOwner)
    {
        final Map<Integer, Field> known = tagged.fields();
        for (final RawTaggedField raw : WireCodec.readTaggedFields(readable, tagOwner))
        {
            final Field field = known.get(raw.tag());
            if (field == null)
            {
                continue;
            }
            final ByteBufferAccessor data = new ByteBufferAccessor(ByteBuffer.wrap(raw.data()));
            checkValue(data, field.type, owner, fieldName(field.name));
            if (data.remaining() != 0)
            {
                throw WireCodec.malformed(tagOwner + ".TaggedFields", "tag " + raw.tag() + " has "
                    + data.remaining() + " bytes after its value");
            }
        }
    }

    /** The fewest bytes one value of {@code type} takes, which bounds how many a length can claim. */
    private static int minimumSize(final Type type)
    {
        // A compact string or array is at least its length varint; a struct at least its tag count.
        return FIXED_SIZES.getOrDefault(type, 1);
    }

    /** {@code topic_name} back to {@code TopicName}, the name the JSON schema gives the field. */
    static String fieldName(final String snakeCase)
    {
        final StringBuilder name = new StringBuilder(snakeCase.length());
        boolean upper = true;
        for (int i = 0; i < snakeCase.length(); i++)
        {
            final char c = snakeCase.charAt(i);
            if (c == '_')
            {
                upper = true;
            }
            else
            {
                name.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return name.toString();
    }
}

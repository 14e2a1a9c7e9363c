package io.syncmirror.protocol;

import java.util.Locale;

/**
 * The mirror type of a mirrored topic, with its int8 wire id as the mirror RPC schemas and the
 * MirrorTopicTypeChangeRecord carry it. Immutable.
 */
public enum MirrorType
{
    /** Replication does not gate the source's high watermark. */
    ASYNC((byte)0),
    /** The source gates its high watermark on this destination's ISR. */
    SYNC((byte)1);

    private final byte id;

    MirrorType(final byte id)
    {
        this.id = id;
    }

    public byte id()
    {
        return id;
    }

    /**
     * The type with this wire id.
     *
     * @throws IllegalArgumentException for an id no type has
     */
    public static MirrorType fromId(final byte id)
    {
        for (final MirrorType type : values())
        {
            if (type.id == id)
            {
                return type;
            }
        }
        throw new IllegalArgumentException("Unknown MirrorType id: " + id);
    }

    /**
     * Parses a user-supplied type name case-insensitively; null or empty means {@link #ASYNC}, as the spec's
     * helper has it.
     *
     * @throws IllegalArgumentException for any other name
     */
    public static MirrorType fromString(final String value)
    {
        if (value == null || value.isEmpty())
        {
            return ASYNC;
        }
        return valueOf(value.toUpperCase(Locale.ROOT));
    }
}

package io.syncmirror.hwgate;

import io.syncmirror.protocol.MirrorError;

/**
 * An ack outcome packed in an int, so the hot path passes outcomes without objects: the {@link MirrorError}
 * code in the low 16 bits and, for the errors that name a mirror, the mirror link index plus one in the next 8.
 * Stateless.
 */
public final class AckOutcome
{
    /** No error, no mirror. */
    public static final int SUCCESS = 0;
    /** Not decided yet: the code no error enum uses. */
    public static final int PENDING = 0xFFFF;

    private static final int MIRROR_SHIFT = 16;

    private AckOutcome()
    {
    }

    /** An outcome with no mirror named. */
    public static int of(final MirrorError error)
    {
        return error.code();
    }

    /** An outcome naming mirror link {@code mirror} (or none when {@code mirror} is negative). */
    public static int of(final MirrorError error, final int mirror)
    {
        return mirror < 0 ? error.code() : ((mirror + 1) << MIRROR_SHIFT) | error.code();
    }

    /** The wire error code. */
    public static short errorCode(final int outcome)
    {
        return (short)(outcome & 0xFFFF);
    }

    /** The mirror link the outcome names, or -1. */
    public static int mirror(final int outcome)
    {
        return ((outcome >>> MIRROR_SHIFT) & 0xFF) - 1;
    }

    public static String toString(final int outcome)
    {
        if (outcome == PENDING)
        {
            return "PENDING";
        }
        final MirrorError error = MirrorError.forCode(errorCode(outcome));
        final String name = error == null ? "code " + errorCode(outcome) : error.name();
        return mirror(outcome) < 0 ? name : name + "(mirror " + mirror(outcome) + ')';
    }
}

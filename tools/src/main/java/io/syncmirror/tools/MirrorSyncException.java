package io.syncmirror.tools;

import org.apache.kafka.common.errors.ApiException;

import io.syncmirror.protocol.MirrorError;

/**
 * A per-topic or per-request error code of a mirror RPC that kafka-clients' {@code Errors} does not know, such as
 * the sync mirroring codes 137 to 142, with the code and its name. Immutable, so thread-safe.
 */
public final class MirrorSyncException extends ApiException
{
    private static final long serialVersionUID = 1L;

    private final short code;
    private final String errorName;

    public MirrorSyncException(final short code, final String message)
    {
        super(text(code, message));
        this.code = code;
        final MirrorError error = MirrorError.forCode(code);
        this.errorName = error != null ? error.name() : "ERROR_" + code;
    }

    private static String text(final short code, final String message)
    {
        final MirrorError error = MirrorError.forCode(code);
        final String name = error != null ? error.name() : "ERROR_" + code;
        final String detail = message != null && !message.isEmpty() ? message : error != null ? error.message() : "";
        return detail.isEmpty() ? name : name + ": " + detail;
    }

    /** The error code the broker sent. */
    public short code()
    {
        return code;
    }

    /** The code's name from {@link MirrorError}, or {@code ERROR_<code>} for a code it does not know either. */
    public String errorName()
    {
        return errorName;
    }
}

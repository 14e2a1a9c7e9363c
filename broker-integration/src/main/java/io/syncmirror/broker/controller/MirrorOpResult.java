package io.syncmirror.broker.controller;

import java.util.Objects;

import org.apache.kafka.common.protocol.Errors;

/**
 * The outcome of one controller mirror operation: a Kafka error code and a message for the user (null when the
 * code's own message says enough). Immutable, so thread-safe.
 */
public record MirrorOpResult(Errors error, String message)
{
    public static final MirrorOpResult OK = new MirrorOpResult(Errors.NONE, null);

    public MirrorOpResult
    {
        Objects.requireNonNull(error, "error");
    }

    public static MirrorOpResult ok(final String message)
    {
        return new MirrorOpResult(Errors.NONE, message);
    }

    public static MirrorOpResult error(final Errors error, final String message)
    {
        return new MirrorOpResult(error, message);
    }

    public boolean isOk()
    {
        return error == Errors.NONE;
    }

    /** The message, or the code's default message when none was given. */
    public String messageOrDefault()
    {
        return message != null ? message : error.message();
    }
}

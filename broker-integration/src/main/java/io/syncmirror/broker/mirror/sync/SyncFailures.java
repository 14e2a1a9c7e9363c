package io.syncmirror.broker.mirror.sync;

import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

import org.apache.kafka.common.protocol.Errors;

import io.syncmirror.protocol.MirrorError;

/** How the sync control names the errors and failures of its requests in its logs and promotion errors. */
final class SyncFailures
{
    private SyncFailures()
    {
    }

    static String errorName(final short code)
    {
        final MirrorError mirror = MirrorError.forCode(code);
        return mirror != null ? mirror.name() : Errors.forCode(code).name();
    }

    static Throwable causeOf(final CompletableFuture<?> failed)
    {
        try
        {
            failed.join();
            return null;
        }
        catch (final CompletionException | CancellationException e)
        {
            return e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        }
    }

    static String causeMessage(final CompletableFuture<?> failed)
    {
        return messageOf(causeOf(failed));
    }

    static String messageOf(final Throwable failure)
    {
        Throwable cause = failure;
        while (cause instanceof CompletionException && cause.getCause() != null)
        {
            cause = cause.getCause();
        }
        return cause == null ? "" : cause.getMessage() != null ? cause.getMessage() : cause.toString();
    }
}

package io.syncmirror.broker.mirror;

import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * A byte-rate bound shared by threads that each do a request and then account for its bytes (the mirror
 * fetchers under {@code mirror.replication.throttled.rate}): a token bucket of one second's worth of bytes that
 * may go negative by one response; a thread asking for budget while it is negative sleeps until it is repaid.
 * Thread-safe (synchronized; a few calls per fetch round trip). {@code Long.MAX_VALUE} means unbounded.
 */
final class ByteRateLimiter
{
    private final long bytesPerSec;
    private final LongSupplier clockMs;
    private double tokens;
    private long lastRefillMs;

    ByteRateLimiter(final long bytesPerSec, final LongSupplier clockMs)
    {
        if (bytesPerSec <= 0)
        {
            throw new IllegalArgumentException("a throttled rate must be positive: " + bytesPerSec);
        }
        this.bytesPerSec = bytesPerSec;
        this.clockMs = clockMs;
        this.tokens = Math.min(bytesPerSec, Integer.MAX_VALUE);
        this.lastRefillMs = clockMs.getAsLong();
    }

    boolean unbounded()
    {
        return bytesPerSec == Long.MAX_VALUE;
    }

    /** Waits until the bucket is not in debt. */
    void awaitBudget()
    {
        if (unbounded())
        {
            return;
        }
        long waitMs;
        while ((waitMs = debtWaitMs()) > 0)
        {
            LockSupport.parkNanos(waitMs * 1_000_000L);
            if (Thread.currentThread().isInterrupted())
            {
                return;
            }
        }
    }

    /** Takes {@code bytes} from the bucket (it may go into debt). */
    synchronized void consumed(final long bytes)
    {
        if (!unbounded())
        {
            refill();
            tokens -= bytes;
        }
    }

    /** How long until the debt is repaid, 0 when there is none. */
    synchronized long debtWaitMs()
    {
        refill();
        return tokens >= 0 ? 0L : (long)Math.ceil(-tokens * 1000.0 / bytesPerSec);
    }

    private void refill()
    {
        final long nowMs = clockMs.getAsLong();
        if (nowMs > lastRefillMs)
        {
            tokens = Math.min((double)bytesPerSec, tokens + (nowMs - lastRefillMs) * (double)bytesPerSec / 1000.0);
            lastRefillMs = nowMs;
        }
    }
}

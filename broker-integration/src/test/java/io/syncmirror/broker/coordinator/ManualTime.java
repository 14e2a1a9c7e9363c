package io.syncmirror.broker.coordinator;

import java.util.concurrent.TimeUnit;

import org.apache.kafka.common.utils.Time;

/** A clock that moves only when a test says so. Thread-safe. */
final class ManualTime implements Time
{
    private volatile long nowMs = 1_000_000L;

    @Override
    public long milliseconds()
    {
        return nowMs;
    }

    @Override
    public long nanoseconds()
    {
        return TimeUnit.MILLISECONDS.toNanos(nowMs);
    }

    @Override
    public void sleep(final long ms)
    {
        advance(ms);
    }

    void advance(final long ms)
    {
        nowMs += ms;
    }
}

package io.syncmirror.broker.storage;

import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.common.utils.Time;

/** A clock that moves only when a test moves it; thread-safe. */
final class ManualTime implements Time
{
    private final AtomicLong nowMs;

    ManualTime(final long startMs)
    {
        nowMs = new AtomicLong(startMs);
    }

    void advanceMs(final long ms)
    {
        nowMs.addAndGet(ms);
    }

    @Override
    public long milliseconds()
    {
        return nowMs.get();
    }

    @Override
    public long nanoseconds()
    {
        return nowMs.get() * 1_000_000L;
    }

    @Override
    public void sleep(final long ms)
    {
        advanceMs(ms);
    }
}

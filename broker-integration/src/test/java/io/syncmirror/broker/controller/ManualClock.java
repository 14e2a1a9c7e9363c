package io.syncmirror.broker.controller;

import java.util.function.LongSupplier;

/** A clock tests move by hand. Not thread-safe beyond a volatile read. */
final class ManualClock implements LongSupplier
{
    private volatile long nowMs;

    ManualClock(final long startMs)
    {
        this.nowMs = startMs;
    }

    void advance(final long ms)
    {
        nowMs += ms;
    }

    @Override
    public long getAsLong()
    {
        return nowMs;
    }
}

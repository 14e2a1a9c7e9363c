package io.syncmirror.broker.replica;

/**
 * Lets one line of a repeated condition through per interval and counts the ones held back, so that a condition
 * hit for every partition of a large cluster (tens of thousands at once) logs a few lines, each saying how many it
 * stands for. Not thread-safe: its owner's lock guards it.
 */
final class LogThrottle
{
    private final long intervalMs;
    private long lastLoggedMs;
    private boolean logged;
    private long heldBack;

    LogThrottle(final long intervalMs)
    {
        this.intervalMs = intervalMs;
    }

    /**
     * One more occurrence at {@code nowMs}.
     *
     * @return -1 to hold this one back, else the number held back since the last line let through (this call's line
     *         should say so), after which the count starts again
     */
    long occurrence(final long nowMs)
    {
        // A clock that went back (a wall clock set back) lets the line through rather than silence it for as long.
        if (logged && nowMs >= lastLoggedMs && nowMs - lastLoggedMs < intervalMs)
        {
            heldBack++;
            return -1L;
        }
        final long count = heldBack;
        heldBack = 0;
        logged = true;
        lastLoggedMs = nowMs;
        return count;
    }
}

package io.syncmirror.broker.replica;

import java.util.Arrays;

/**
 * The fetch sessions watching one partition, as an immutable array replaced on every change (copy on write).
 * A partition is watched by a handful of sessions (its followers' and mirrors'), which join and leave rarely and
 * are told of every append: an array is read without allocation, and an unwatched partition holds only the shared
 * empty array. A concurrent set per partition cost about 300 bytes of heap per replica at 100k partitions.
 */
final class ChangeWatchers
{
    /** No watchers; shared by every unwatched partition. */
    static final Runnable[] NONE = new Runnable[0];

    private ChangeWatchers()
    {
    }

    /** {@code watchers} with {@code watcher} added, or the same array when it holds an equal one already. */
    static Runnable[] with(final Runnable[] watchers, final Runnable watcher)
    {
        if (indexOf(watchers, watcher) >= 0)
        {
            return watchers;
        }
        final Runnable[] next = Arrays.copyOf(watchers, watchers.length + 1);
        next[watchers.length] = watcher;
        return next;
    }

    /** {@code watchers} without {@code watcher}, or the same array when it does not hold it. */
    static Runnable[] without(final Runnable[] watchers, final Runnable watcher)
    {
        final int index = indexOf(watchers, watcher);
        if (index < 0)
        {
            return watchers;
        }
        if (watchers.length == 1)
        {
            return NONE;
        }
        final Runnable[] next = new Runnable[watchers.length - 1];
        System.arraycopy(watchers, 0, next, 0, index);
        System.arraycopy(watchers, index + 1, next, index, watchers.length - index - 1);
        return next;
    }

    private static int indexOf(final Runnable[] watchers, final Runnable watcher)
    {
        for (int i = 0; i < watchers.length; i++)
        {
            if (watchers[i].equals(watcher))
            {
                return i;
            }
        }
        return -1;
    }
}

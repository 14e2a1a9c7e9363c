package io.syncmirror.hwgate;

import java.util.Arrays;

/**
 * A hierarchical timing wheel over primitive arrays: timers are dense int ids (a request's index), each with at
 * most one deadline, linked into buckets through {@code next}/{@code prev} arrays, so schedule and cancel are
 * O(1) and no timer is an object. Not thread-safe: owned by one thread, as agrona's DeadlineTimerWheel is.
 *
 * <p>Levels of {@code 2^bitsPerLevel} buckets each: level 0 holds timers due within the current rotation of
 * ticks, level {@code l} those whose deadline agrees with the current tick on every digit above level l. When
 * the level-0 digit of the current tick wraps to zero, the level-1 bucket for the new digit is cascaded into
 * level 0, and so on upwards (Kafka's TimingWheel and the Linux kernel's timer wheel work alike, Kafka's with a
 * DelayQueue of buckets and an object per timer). Timers beyond the top level wait in an overflow list that is
 * re-sorted each time the top level wraps. With 1 ms ticks, 6 bits and 4 levels the wheel spans 4.6 hours
 * before the overflow list is used.
 *
 * <p>{@link #poll} walks tick by tick up to now; an idle wheel (no timers) jumps straight to now, so a long
 * pause costs nothing when nothing waits.
 */
public final class HierarchicalTimingWheel
{
    /** The handler of expired timers. */
    @FunctionalInterface
    public interface ExpiryHandler
    {
        /** Timer {@code timerId} reached its deadline; it is no longer scheduled. */
        void onExpiry(int timerId);
    }

    private static final int NIL = -1;
    private static final int NOT_SCHEDULED = -2;

    private final long tickMs;
    private final int tickShift;
    private final int bitsPerLevel;
    private final int levels;
    private final int bucketMask;
    private final int overflowBucket;
    private final int dueBucket;
    private final int[] heads;
    private final int[] next;
    private final int[] prev;
    private final int[] bucketOf;
    private final long[] deadlineTick;
    private long currentTick;
    private int size;

    /**
     * @param capacity     timer ids are 0 .. capacity-1.
     * @param tickMs       the resolution, a power of two (ticks are shifts, not divisions, on the hot path).
     * @param bitsPerLevel log2 of the buckets per level.
     * @param levels       number of levels.
     * @param startMs      the time the wheel starts at.
     */
    public HierarchicalTimingWheel(
        final int capacity, final long tickMs, final int bitsPerLevel, final int levels, final long startMs)
    {
        if (capacity < 1 || tickMs < 1 || Long.bitCount(tickMs) != 1 || bitsPerLevel < 1 || levels < 1 ||
            bitsPerLevel * levels > 40)
        {
            throw new IllegalArgumentException("bad timing wheel shape: capacity=" + capacity + " tickMs=" + tickMs +
                " bitsPerLevel=" + bitsPerLevel + " levels=" + levels);
        }
        this.tickMs = tickMs;
        this.tickShift = Long.numberOfTrailingZeros(tickMs);
        this.bitsPerLevel = bitsPerLevel;
        this.levels = levels;
        this.bucketMask = (1 << bitsPerLevel) - 1;
        this.overflowBucket = levels << bitsPerLevel;
        this.dueBucket = overflowBucket + 1;
        this.heads = new int[dueBucket + 1];
        Arrays.fill(heads, NIL);
        this.next = new int[capacity];
        this.prev = new int[capacity];
        this.bucketOf = new int[capacity];
        Arrays.fill(bucketOf, NOT_SCHEDULED);
        this.deadlineTick = new long[capacity];
        this.currentTick = startMs >> tickShift;
    }

    /** A wheel of 1 ms ticks, 64 buckets a level and 4 levels. */
    public HierarchicalTimingWheel(final int capacity, final long startMs)
    {
        this(capacity, 1, 6, 4, startMs);
    }

    /** Number of scheduled timers. */
    public int size()
    {
        return size;
    }

    public boolean isScheduled(final int timerId)
    {
        return bucketOf[timerId] != NOT_SCHEDULED;
    }

    /** The deadline of a scheduled timer, in ms, rounded down to a tick. */
    public long deadlineMs(final int timerId)
    {
        return deadlineTick[timerId] << tickShift;
    }

    /** The start of the first tick {@link #poll} has not processed yet. */
    public long currentTimeMs()
    {
        return currentTick << tickShift;
    }

    /**
     * Schedules timer {@code timerId} to expire at the first poll at or after {@code deadlineMs} (rounded up to
     * a tick); a deadline in the past expires at the next poll. Rescheduling a scheduled timer moves it.
     */
    public void schedule(final int timerId, final long deadlineMs)
    {
        if (bucketOf[timerId] != NOT_SCHEDULED)
        {
            unlink(timerId);
        }
        else
        {
            size++;
        }
        final long tick = (deadlineMs + tickMs - 1) >> tickShift;
        deadlineTick[timerId] = tick;
        // A deadline in a tick already processed goes to the due list, which the next poll expires first.
        link(timerId, tick < currentTick ? dueBucket : bucketFor(tick));
    }

    /** Cancels timer {@code timerId}; false when it was not scheduled. */
    public boolean cancel(final int timerId)
    {
        if (bucketOf[timerId] == NOT_SCHEDULED)
        {
            return false;
        }
        unlink(timerId);
        bucketOf[timerId] = NOT_SCHEDULED;
        size--;
        return true;
    }

    /**
     * Expires every timer due at or before {@code nowMs}, in deadline order by tick.
     *
     * @return the number of timers expired.
     */
    public int poll(final long nowMs, final ExpiryHandler handler)
    {
        final long nowTick = nowMs >> tickShift;
        int expired = expireBucket(dueBucket, handler);
        while (currentTick <= nowTick)
        {
            if (size == 0)
            {
                currentTick = nowTick + 1;
                break;
            }
            expired += expireBucket((int)(currentTick & bucketMask), handler);
            currentTick++;
            if ((currentTick & bucketMask) == 0)
            {
                cascade(1);
            }
        }
        return expired;
    }

    private int expireBucket(final int bucket, final ExpiryHandler handler)
    {
        int expired = 0;
        int timer;
        while ((timer = heads[bucket]) != NIL)
        {
            unlink(timer);
            bucketOf[timer] = NOT_SCHEDULED;
            size--;
            expired++;
            handler.onExpiry(timer);
        }
        return expired;
    }

    /** Moves the level-{@code level} bucket that the current tick has just entered down to lower levels. */
    private void cascade(final int level)
    {
        if (level == levels)
        {
            redistribute(overflowBucket);
            return;
        }
        final int digit = (int)((currentTick >>> (level * bitsPerLevel)) & bucketMask);
        if (digit == 0)
        {
            cascade(level + 1); // the higher bucket feeds this level's bucket 0, which is cascaded next
        }
        redistribute((level << bitsPerLevel) | digit);
    }

    private void redistribute(final int bucket)
    {
        int timer = heads[bucket];
        heads[bucket] = NIL;
        while (timer != NIL)
        {
            final int following = next[timer];
            link(timer, bucketFor(deadlineTick[timer]));
            timer = following;
        }
    }

    private int bucketFor(final long tick)
    {
        final long differing = tick ^ currentTick;
        for (int level = 0; level < levels; level++)
        {
            if ((differing >>> ((level + 1) * bitsPerLevel)) == 0)
            {
                return (level << bitsPerLevel) | (int)((tick >>> (level * bitsPerLevel)) & bucketMask);
            }
        }
        return overflowBucket;
    }

    private void link(final int timer, final int bucket)
    {
        final int head = heads[bucket];
        next[timer] = head;
        prev[timer] = NIL;
        if (head != NIL)
        {
            prev[head] = timer;
        }
        heads[bucket] = timer;
        bucketOf[timer] = bucket;
    }

    private void unlink(final int timer)
    {
        final int before = prev[timer];
        final int after = next[timer];
        if (before == NIL)
        {
            heads[bucketOf[timer]] = after;
        }
        else
        {
            next[before] = after;
        }
        if (after != NIL)
        {
            prev[after] = before;
        }
    }
}

package io.syncmirror.hwgate;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.TreeMap;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class HierarchicalTimingWheelTest
{
    private final List<Integer> expired = new ArrayList<>();

    @Test
    void shouldExpireAtTheDeadlineAndNotBefore()
    {
        final HierarchicalTimingWheel wheel = new HierarchicalTimingWheel(8, 1000);
        wheel.schedule(3, 1005);
        assertEquals(0, wheel.poll(1004, expired::add));
        assertTrue(wheel.isScheduled(3));
        assertEquals(1, wheel.poll(1005, expired::add));
        assertEquals(List.of(3), expired);
        assertFalse(wheel.isScheduled(3));
        assertEquals(0, wheel.size());
    }

    @Test
    void shouldExpireAPastDeadlineAtTheNextPoll()
    {
        final HierarchicalTimingWheel wheel = new HierarchicalTimingWheel(8, 1000);
        wheel.poll(2000, expired::add);
        wheel.schedule(1, 1500);
        wheel.poll(2001, expired::add);
        assertEquals(List.of(1), expired);
    }

    @Test
    void shouldCancelInConstantTimeAndReportWhetherItWasScheduled()
    {
        final HierarchicalTimingWheel wheel = new HierarchicalTimingWheel(8, 0);
        wheel.schedule(0, 10);
        wheel.schedule(1, 10);
        wheel.schedule(2, 10);
        assertTrue(wheel.cancel(1));
        assertFalse(wheel.cancel(1));
        assertFalse(wheel.cancel(5));
        wheel.poll(10, expired::add);
        expired.sort(Integer::compare);
        assertEquals(List.of(0, 2), expired);
    }

    @Test
    void shouldCascadeDeadlinesThroughEveryLevelAndTheOverflow()
    {
        // 2 bits a level, 3 levels: level 0 spans 4 ticks, level 2 up to 64, beyond that the overflow list.
        final HierarchicalTimingWheel wheel = new HierarchicalTimingWheel(16, 1, 2, 3, 0);
        final long[] deadlines = {1, 3, 4, 5, 15, 16, 17, 63, 64, 65, 200, 1000};
        for (int i = 0; i < deadlines.length; i++)
        {
            wheel.schedule(i, deadlines[i]);
        }
        for (long now = 0; now <= 1000; now++)
        {
            final int before = expired.size();
            wheel.poll(now, expired::add);
            for (int i = before; i < expired.size(); i++)
            {
                assertEquals(deadlines[expired.get(i)], now, "timer " + expired.get(i) + " fired at " + now);
            }
        }
        assertEquals(deadlines.length, expired.size());
    }

    @Test
    void shouldRescheduleAScheduledTimer()
    {
        final HierarchicalTimingWheel wheel = new HierarchicalTimingWheel(4, 0);
        wheel.schedule(0, 100);
        wheel.schedule(0, 5);
        assertEquals(1, wheel.size());
        wheel.poll(5, expired::add);
        assertEquals(List.of(0), expired);
        wheel.poll(200, expired::add);
        assertEquals(1, expired.size());
    }

    @Test
    void shouldJumpAnIdleWheelToNow()
    {
        final HierarchicalTimingWheel wheel = new HierarchicalTimingWheel(4, 0);
        wheel.poll(10_000_000_000L, expired::add);
        assertEquals(10_000_000_001L, wheel.currentTimeMs());
        wheel.schedule(2, 10_000_000_050L);
        wheel.poll(10_000_000_049L, expired::add);
        assertTrue(expired.isEmpty());
        wheel.poll(10_000_000_050L, expired::add);
        assertEquals(List.of(2), expired);
    }

    @Test
    void shouldMatchAnOrderedMapUnderRandomScheduleCancelAndPoll()
    {
        for (long seed = 1; seed <= 20; seed++)
        {
            final Random random = new Random(seed);
            final int capacity = 64;
            final HierarchicalTimingWheel wheel = new HierarchicalTimingWheel(capacity, 1, 3, 3, 0);
            final long[] model = new long[capacity];
            java.util.Arrays.fill(model, -1);
            long now = 0;
            for (int step = 0; step < 5000; step++)
            {
                final int id = random.nextInt(capacity);
                switch (random.nextInt(4))
                {
                    case 0:
                    case 1:
                        final long deadline = now + (random.nextInt(10) == 0 ? random.nextInt(5000) : random.nextInt(40));
                        wheel.schedule(id, deadline);
                        model[id] = Math.max(deadline, now);
                        break;
                    case 2:
                        assertEquals(model[id] >= 0, wheel.cancel(id), "seed " + seed + " step " + step);
                        model[id] = -1;
                        break;
                    default:
                        now += random.nextInt(30);
                        expired.clear();
                        wheel.poll(now, expired::add);
                        final TreeMap<Integer, Long> due = new TreeMap<>();
                        for (int t = 0; t < capacity; t++)
                        {
                            if (model[t] >= 0 && model[t] <= now)
                            {
                                due.put(t, model[t]);
                                model[t] = -1;
                            }
                        }
                        expired.sort(Integer::compare);
                        assertEquals(new ArrayList<>(due.keySet()), expired, "seed " + seed + " step " + step);
                }
            }
            int scheduled = 0;
            for (final long deadline : model)
            {
                scheduled += deadline >= 0 ? 1 : 0;
            }
            assertEquals(scheduled, wheel.size(), "seed " + seed);
        }
    }
}

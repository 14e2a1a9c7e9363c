package io.syncmirror.broker.replica;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

class LogThrottleTest
{
    @Test
    void shouldLetOneLinePerIntervalThroughAndCountTheRest()
    {
        final LogThrottle throttle = new LogThrottle(10_000);

        assertEquals(0, throttle.occurrence(0), "the first occurrence is logged at once, even at time 0");
        for (int i = 0; i < 5; i++)
        {
            assertEquals(-1, throttle.occurrence(1_000 + i));
        }
        assertEquals(-1, throttle.occurrence(9_999));
        assertEquals(6, throttle.occurrence(10_000), "the next line says how many it stands for");
        assertEquals(-1, throttle.occurrence(10_001));
        assertEquals(1, throttle.occurrence(25_000));
        assertEquals(0, throttle.occurrence(40_000), "nothing held back since the last line");
    }

    @Test
    void shouldLogAgainWhenTheClockGoesBack()
    {
        final LogThrottle throttle = new LogThrottle(10_000);

        assertEquals(0, throttle.occurrence(50_000));
        assertEquals(-1, throttle.occurrence(50_001));
        assertEquals(1, throttle.occurrence(20_000), "a clock set back does not silence the line until it catches up");
    }
}

package io.syncmirror.benchmarks;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TimerBenchmarkTest
{
    private static final int OPERATIONS = 10_000;

    @Test
    void shouldKeepTheWheelsPopulationSteady()
    {
        final TimerBenchmark.Population population = population(500);
        final TimerBenchmark.Wheel wheel = new TimerBenchmark.Wheel();
        wheel.setUp(population);
        assertEquals(500, wheel.wheel.size());

        for (int i = 0; i < OPERATIONS; i++)
        {
            assertTrue(wheel.scheduleAndCancel());
        }

        assertEquals(500, wheel.wheel.size());
    }

    @Test
    void shouldKeepKafkasPopulationSteady() throws Exception
    {
        final TimerBenchmark.Population population = population(500);
        final TimerBenchmark.Kafka kafka = new TimerBenchmark.Kafka();
        kafka.setUp(population);
        try
        {
            assertEquals(500, kafka.timer.size());
            for (int i = 0; i < OPERATIONS; i++)
            {
                assertTrue(kafka.scheduleAndCancel());
            }
            assertEquals(500, kafka.timer.size());
        }
        finally
        {
            kafka.tearDown();
        }
    }

    @Test
    void shouldSpreadThePopulationOverTheSecondHalfMinute()
    {
        final TimerBenchmark.Population population = population(1000);
        assertEquals(30_000L, population.delayMs(0));
        assertEquals(59_970L, population.delayMs(999));
    }

    private static TimerBenchmark.Population population(final int pendingTimers)
    {
        final TimerBenchmark.Population population = new TimerBenchmark.Population();
        population.pendingTimers = pendingTimers;
        return population;
    }
}

package io.syncmirror.benchmarks;

import java.util.concurrent.TimeUnit;

import io.syncmirror.hwgate.HierarchicalTimingWheel;
import org.apache.kafka.server.util.timer.SystemTimer;
import org.apache.kafka.server.util.timer.SystemTimerReaper;
import org.apache.kafka.server.util.timer.TimerTask;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * JMH benchmark of scheduling a request deadline 30 s ahead and cancelling it (what every acks=all request that
 * completes in time costs the timer), in our {@link HierarchicalTimingWheel} and in Kafka 4.4's
 * {@link SystemTimer}, each holding a steady population of {@code pendingTimers} other deadlines. Per JMH thread
 * state.
 *
 * <p>The population's deadlines are spread over 30 to 60 s ahead, so none fires during a trial and both timers
 * keep the same number of entries throughout. Kafka's timer is driven as in a broker, by a reaper thread that
 * advances its clock ({@link SystemTimerReaper}); an add reads the system clock and allocates a task and its
 * entry. Ours takes the owner's clock reading as an argument (a fake clock that does not move here) and reuses
 * request ids, as a {@code RequestShard} does.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(value = 3, jvmArgsAppend = { BenchmarkFlags.ADD_EXPORTS, BenchmarkFlags.DISABLE_BOUNDS_CHECKS })
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
public class TimerBenchmark
{
    /** The deadline of the timer each operation schedules and cancels. */
    public static final long DELAY_MS = 30_000L;

    /** The number of other deadlines pending in the timer, shared by both sides' states. Immutable once set. */
    @State(Scope.Thread)
    public static class Population
    {
        @Param({ "0", "10000" })
        public int pendingTimers;

        /** The delay of the {@code i}th pending timer: spread over [30 s, 60 s). */
        long delayMs(final int i)
        {
            return DELAY_MS + i * DELAY_MS / Math.max(1, pendingTimers);
        }
    }

    /**
     * Our wheel, owned by one benchmark thread: timer ids below {@code pendingTimers} hold the population, the
     * next {@link #WINDOW} ids cycle through the operations.
     */
    @State(Scope.Thread)
    public static class Wheel
    {
        /** Ids the operation cycles through, as a shard reuses a window of request rows. */
        static final int WINDOW = 1024;

        HierarchicalTimingWheel wheel;
        private final long nowMs = 1_000_000L;
        private int firstId;
        private int cursor;

        @Setup
        public void setUp(final Population population)
        {
            firstId = population.pendingTimers;
            wheel = new HierarchicalTimingWheel(firstId + WINDOW, nowMs);
            for (int i = 0; i < population.pendingTimers; i++)
            {
                wheel.schedule(i, nowMs + population.delayMs(i));
            }
        }

        boolean scheduleAndCancel()
        {
            final int id = firstId + (cursor++ & (WINDOW - 1));
            wheel.schedule(id, nowMs + DELAY_MS);
            return wheel.cancel(id);
        }
    }

    /**
     * Kafka's SystemTimer with its clock-advancing reaper, as Kafka's coordinators run it. Thread-safe, as Kafka's
     * timer is; driven by one benchmark thread.
     */
    @State(Scope.Thread)
    public static class Kafka
    {
        SystemTimerReaper timer;

        @Setup
        public void setUp(final Population population)
        {
            timer = new SystemTimerReaper("benchmark-reaper", new SystemTimer("benchmark"));
            for (int i = 0; i < population.pendingTimers; i++)
            {
                timer.add(new NoopTimerTask(population.delayMs(i)));
            }
        }

        @TearDown
        public void tearDown() throws Exception
        {
            timer.close();
        }

        boolean scheduleAndCancel()
        {
            final NoopTimerTask task = new NoopTimerTask(DELAY_MS);
            timer.add(task);
            task.cancel();
            return task.isCancelled();
        }
    }

    /** A Kafka timer task that does nothing when it fires. Thread-safe as TimerTask is. */
    static final class NoopTimerTask extends TimerTask
    {
        NoopTimerTask(final long delayMs)
        {
            super(delayMs);
        }

        @Override
        public void run()
        {
        }
    }

    @Benchmark
    public boolean hierarchicalWheel(final Wheel wheel)
    {
        return wheel.scheduleAndCancel();
    }

    @Benchmark
    public boolean kafkaSystemTimer(final Kafka kafka)
    {
        return kafka.scheduleAndCancel();
    }
}

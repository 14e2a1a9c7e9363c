package io.syncmirror.fetch;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongSupplier;

/**
 * A daemon thread that runs one {@link FetcherEngine}: it steps the engine and parks for as long as the engine
 * says nothing is due, woken by commands, {@link FetcherEngine#wakeup()} and response completions (park/unpark
 * keeps a wakeup that arrives before the park). Thread-safety: {@link #start()} and {@link #close()} from any
 * thread; the engine's own thread-safe methods may be used while it runs.
 */
public final class FetcherThread implements AutoCloseable
{
    /** Longest single park, so that a lost signal (there should be none) costs at most this much latency. */
    private static final long MAX_PARK_MS = 1_000L;
    private static final long CLOSE_JOIN_MS = 10_000L;

    private final FetcherEngine engine;
    private final LongSupplier clockMs;
    private final Thread thread;
    private volatile boolean running = true;

    /**
     * @param clockMs a monotonic millisecond clock (e.g. {@code () -> System.nanoTime() / 1_000_000}).
     */
    public FetcherThread(final String name, final FetcherEngine engine, final LongSupplier clockMs)
    {
        this.engine = engine;
        this.clockMs = clockMs;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        engine.onSignal(() -> LockSupport.unpark(thread));
    }

    public FetcherEngine engine()
    {
        return engine;
    }

    public void start()
    {
        thread.start();
    }

    public boolean isAlive()
    {
        return thread.isAlive();
    }

    /**
     * Stops the loop and waits for the thread to end. A request in flight is abandoned (its late answer is
     * ignored); the source evicts the session in time.
     */
    @Override
    public void close()
    {
        running = false;
        LockSupport.unpark(thread);
        if (Thread.currentThread() == thread || !thread.isAlive())
        {
            return;
        }
        try
        {
            thread.join(CLOSE_JOIN_MS);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
    }

    private void run()
    {
        while (running)
        {
            long waitMs;
            try
            {
                waitMs = engine.doWork(clockMs.getAsLong());
            }
            catch (final RuntimeException e)
            {
                // doWork guards the network and the target; this is a bug. Keep the thread, but do not spin on it.
                waitMs = MAX_PARK_MS;
            }
            if (waitMs > 0 && running)
            {
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(Math.min(waitMs, MAX_PARK_MS)));
            }
            if (Thread.interrupted() && !running)
            {
                return;
            }
        }
    }
}

package io.syncmirror.broker.simulation;

import java.util.ArrayDeque;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Simulated time for the seeded simulations: events scheduled at a delay run in time order (ties in the order
 * they were scheduled, so a seed replays exactly), and a trace keeps the last lines that describe them, which a
 * failing seed prints. Single-threaded.
 */
public final class SimulatedEvents
{
    private record Event(long atMs, long seq, Runnable action, String what)
    {
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.atMs != b.atMs ?
        Long.compare(a.atMs, b.atMs) : Long.compare(a.seq, b.seq));
    private final ArrayDeque<String> trace = new ArrayDeque<>();
    private final int traceLines;
    private long seq;
    private long nowMs;

    /**
     * @param startMs    the simulated clock's start
     * @param traceLines how many of the last trace lines to keep
     */
    public SimulatedEvents(final long startMs, final int traceLines)
    {
        this.nowMs = startMs;
        this.traceLines = traceLines;
    }

    /**
     * The random source of seed {@code seed}. Not {@code new Random(seed)}: its first draws for neighbouring seeds
     * are nearly the same (a first {@code nextInt(4)} is 0 for no seed from 0 to 999), so runs that decide their
     * shape first would all take the same one.
     */
    public static Random random(final long seed)
    {
        return new Random(new SplittableRandom(seed).nextLong());
    }

    public long nowMs()
    {
        return nowMs;
    }

    /** Adds a line to the trace, stamped with the simulated time. */
    public void note(final String line)
    {
        trace.addLast(nowMs + " " + line);
        if (trace.size() > traceLines)
        {
            trace.removeFirst();
        }
    }

    /** The last trace lines, oldest first. */
    public String trace()
    {
        return String.join("\n", trace);
    }

    /** Runs {@code action}, named {@code what}, {@code delayMs} from now. */
    public void schedule(final long delayMs, final String what, final Runnable action)
    {
        events.add(new Event(nowMs + delayMs, seq++, action, what));
    }

    /**
     * Moves the clock {@code ms} forward, running the events due on the way in time order; after each, calls
     * {@code afterEach} with its name (where the invariants are checked).
     */
    public void advance(final long ms, final Consumer<String> afterEach)
    {
        final long until = nowMs + ms;
        while (!events.isEmpty() && events.peek().atMs() <= until)
        {
            final Event event = events.poll();
            nowMs = Math.max(nowMs, event.atMs());
            event.action().run();
            afterEach.accept(event.what());
        }
        nowMs = until;
    }
}

package io.syncmirror.bench.e2e;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.syncmirror.protocol.MirrorType;

/**
 * A progress line on stderr every {@link #PERIOD_NS} during a run's long phases: the phase, how long it has run
 * (of how long it should), the run's elapsed time and the time still to come as planned. Phases of unknown length
 * (setup, promotion) say so, and the remaining time then counts the planned phases after them only ("at least").
 *
 * <p>Thread-safe: the run's thread calls {@link #enter}; a daemon thread prints. A quiet instance prints nothing.
 */
final class Progress implements AutoCloseable
{
    /** How often a line is printed. */
    static final long PERIOD_NS = TimeUnit.SECONDS.toNanos(5);

    /** A planned phase; {@code expectedNs} is -1 when its length is not known in advance. */
    record Phase(String name, long expectedNs)
    {
    }

    private final PrintStream err;
    private final List<Phase> plan;
    private final long startNs = System.nanoTime();
    private final Thread printer;
    private volatile int current = -1;
    private volatile long phaseStartNs = startNs;
    private volatile boolean running = true;

    private Progress(final PrintStream err, final List<Phase> plan, final boolean quiet)
    {
        this.err = err;
        this.plan = List.copyOf(plan);
        this.printer = new Thread(this::loop, "sync-bench-progress");
        printer.setDaemon(true);
        if (!quiet)
        {
            printer.start();
        }
    }

    /** Starts printing the progress of {@code plan} to {@code err}, unless {@code quiet}. */
    static Progress start(final PrintStream err, final List<Phase> plan, final boolean quiet)
    {
        return new Progress(err, plan, quiet);
    }

    /**
     * The plan of a run of {@code options}: setup, then each mode's promotion (SYNC), warm-up and window; a served
     * run's plan is its setup alone (its caller times the windows).
     */
    static List<Phase> plan(final SyncBenchOptions options)
    {
        final List<Phase> plan = new ArrayList<>();
        plan.add(new Phase("setup", -1));
        if (options.serve())
        {
            return plan;
        }
        for (final MirrorType mode : options.modes())
        {
            if (mode == MirrorType.SYNC)
            {
                plan.add(new Phase(mode + " promotion", -1));
            }
            plan.add(new Phase(mode + " warm-up", TimeUnit.SECONDS.toNanos(options.warmupSeconds())));
            plan.add(new Phase(mode + " measured", TimeUnit.SECONDS.toNanos(options.durationSeconds())));
        }
        if (options.idleSeconds() > 0)
        {
            plan.add(new Phase("idle", TimeUnit.SECONDS.toNanos(options.idleSeconds())));
        }
        return plan;
    }

    /** Marks the start of the planned phase named {@code name}; a name not in the plan is ignored. */
    void enter(final String name)
    {
        for (int i = 0; i < plan.size(); i++)
        {
            if (plan.get(i).name().equals(name))
            {
                phaseStartNs = System.nanoTime();
                current = i;
                return;
            }
        }
    }

    @Override
    public void close()
    {
        running = false;
        LockSupport.unpark(printer);
    }

    private void loop()
    {
        long nextNs = startNs + PERIOD_NS;
        while (running)
        {
            final long remainingNs = nextNs - System.nanoTime();
            if (remainingNs > 0)
            {
                LockSupport.parkNanos(remainingNs);
                continue;
            }
            final int index = current;
            if (index >= 0)
            {
                final long now = System.nanoTime();
                err.println(line(plan, index, now - phaseStartNs, now - startNs));
            }
            nextNs += PERIOD_NS;
        }
    }

    /** The line printed {@code phaseElapsedNs} into phase {@code index} of {@code plan}, {@code runElapsedNs} in. */
    static String line(final List<Phase> plan, final int index, final long phaseElapsedNs, final long runElapsedNs)
    {
        final Phase phase = plan.get(index);
        long remainingNs = 0;
        boolean known = true;
        if (phase.expectedNs() < 0)
        {
            known = false;
        }
        else
        {
            remainingNs += Math.max(0L, phase.expectedNs() - phaseElapsedNs);
        }
        for (int i = index + 1; i < plan.size(); i++)
        {
            final long expected = plan.get(i).expectedNs();
            if (expected < 0)
            {
                known = false;
            }
            else
            {
                remainingNs += expected;
            }
        }
        final String ofExpected = phase.expectedNs() < 0 ? "" : " of " + clock(phase.expectedNs());
        final String remaining = known ? "~" + clock(remainingNs) : remainingNs == 0 ? "unknown" :
            "at least " + clock(remainingNs);
        return String.format(Locale.ROOT, "progress: %s %s%s | elapsed %s | remaining %s", phase.name(),
            clock(phaseElapsedNs), ofExpected, clock(runElapsedNs), remaining);
    }

    /** {@code m:ss}. */
    static String clock(final long nanos)
    {
        final long seconds = TimeUnit.NANOSECONDS.toSeconds(Math.max(0L, nanos));
        return String.format(Locale.ROOT, "%d:%02d", seconds / 60, seconds % 60);
    }
}

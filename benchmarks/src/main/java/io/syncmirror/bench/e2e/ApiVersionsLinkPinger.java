package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;

import io.syncmirror.protocol.MirrorWireClient;

/**
 * A stand-in for the mirror report connection's own round trips: per destination cluster, one daemon thread that
 * sends ApiVersions over a {@link MirrorWireClient} to the source brokers in turn, waiting the injected one-way
 * delay before each send and after each receive, as the destination's mirror transport does with
 * {@code mirror.link.injected.delay.ms}, and reports each round trip in nanoseconds. Thread-safe: {@link #start}
 * and {@link #close} are called from one controlling thread; the sink is called from the pinging threads.
 *
 * <p>It measures what a report request's round trip costs apart from the report's own work on the source: one
 * TCP round trip on loopback, a request through the source broker's network layer, and twice the injected delay.
 * The pings are paced ({@link #PING_INTERVAL_NS} apart, parked, never spinning) so that they add little load.
 */
public final class ApiVersionsLinkPinger implements LinkRoundTripSource
{
    /** The pause between one ping's end and the next one's start. */
    public static final long PING_INTERVAL_NS = TimeUnit.MILLISECONDS.toNanos(10);
    private static final int TIMEOUT_MS = 5_000;
    private static final long RETRY_BACKOFF_NS = TimeUnit.MILLISECONDS.toNanos(200);

    private final List<MirrorWireClient.HostPort> sourceBrokers;
    private final int pingers;
    private final long injectedDelayNs;
    private final List<Thread> threads = new ArrayList<>();
    private final AtomicLong failures = new AtomicLong();
    private volatile boolean running;

    /**
     * @param sourceBrokers   the source cluster's brokers, pinged in turn
     * @param pingers         how many pinging threads, one per destination cluster
     * @param injectedDelayMs the one-way delay to wait before each send and after each receive
     */
    public ApiVersionsLinkPinger(final List<MirrorWireClient.HostPort> sourceBrokers, final int pingers,
        final double injectedDelayMs)
    {
        if (sourceBrokers.isEmpty() || pingers < 1)
        {
            throw new IllegalArgumentException("need at least one source broker and one pinger");
        }
        this.sourceBrokers = List.copyOf(sourceBrokers);
        this.pingers = pingers;
        this.injectedDelayNs = Math.round(injectedDelayMs * 1_000_000.0);
    }

    @Override
    public synchronized void start(final LongConsumer nanosSink)
    {
        if (running || !threads.isEmpty())
        {
            throw new IllegalStateException("already started");
        }
        running = true;
        for (int i = 0; i < pingers; i++)
        {
            // Each pinger starts at a different source broker, so that the brokers share the pings evenly.
            final int first = i % sourceBrokers.size();
            final Thread thread = new Thread(() -> pingLoop(first, nanosSink), "link-rtt-pinger-" + (i + 1));
            thread.setDaemon(true);
            thread.start();
            threads.add(thread);
        }
    }

    @Override
    public String describe()
    {
        return String.format(Locale.ROOT, "ApiVersions round trips from each destination to the source brokers over "
            + "a MirrorWireClient, with the injected delay (%.3f ms one way) waited before each send and after each "
            + "receive; %d failed pings", injectedDelayNs / 1e6, failures.get());
    }

    /** Pings that failed (a source broker not answering); each is followed by a short backoff. */
    public long failures()
    {
        return failures.get();
    }

    @Override
    public synchronized void close()
    {
        running = false;
        for (final Thread thread : threads)
        {
            thread.interrupt();
        }
        for (final Thread thread : threads)
        {
            try
            {
                // A ping in flight ends within its own timeout; the sink is not called once running is false.
                thread.join(TIMEOUT_MS + TimeUnit.NANOSECONDS.toMillis(2 * injectedDelayNs) + 1_000);
            }
            catch (final InterruptedException ex)
            {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    private void pingLoop(final int first, final LongConsumer nanosSink)
    {
        final List<MirrorWireClient.HostPort> brokers = sourceBrokers;
        final MirrorWireClient[] clients = new MirrorWireClient[brokers.size()];
        int next = first;
        try
        {
            while (running)
            {
                final int index = next;
                next = (next + 1) % brokers.size();
                try
                {
                    if (clients[index] == null)
                    {
                        final MirrorWireClient.HostPort broker = brokers.get(index);
                        clients[index] = MirrorWireClient.connect(broker.host(), broker.port(), "link-rtt-pinger",
                            TIMEOUT_MS, TIMEOUT_MS);
                    }
                    final long startNs = System.nanoTime();
                    parkFor(injectedDelayNs);
                    clients[index].apiVersions();
                    parkFor(injectedDelayNs);
                    final long roundTripNs = System.nanoTime() - startNs;
                    if (running)
                    {
                        nanosSink.accept(roundTripNs);
                    }
                    parkFor(PING_INTERVAL_NS);
                }
                catch (final IOException ex)
                {
                    failures.incrementAndGet();
                    parkFor(RETRY_BACKOFF_NS);
                }
            }
        }
        finally
        {
            for (final MirrorWireClient client : clients)
            {
                if (client != null)
                {
                    client.close();
                }
            }
        }
    }

    /** Parks for {@code durationNs} (parkNanos may return early), or until the pinger is closed. */
    private void parkFor(final long durationNs)
    {
        final long deadlineNs = System.nanoTime() + durationNs;
        long remainingNs;
        while (running && (remainingNs = deadlineNs - System.nanoTime()) > 0)
        {
            LockSupport.parkNanos(remainingNs);
        }
    }
}

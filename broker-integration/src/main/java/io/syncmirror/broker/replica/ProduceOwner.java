package io.syncmirror.broker.replica;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.agrona.collections.Long2ObjectHashMap;

import io.netty.util.concurrent.EventExecutor;
import io.syncmirror.broker.adapter.HotPathAdapter;
import io.syncmirror.hwgate.OwnerWakeup;
import io.syncmirror.hwgate.ProduceCompletionHandler;
import io.syncmirror.hwgate.RequestShard;

/**
 * The acks=all produces in flight on one owner thread (a Netty event loop, or the broker's internal executor):
 * its {@link RequestShard} and, by cookie, what each request answers when its waits are decided. Owner thread
 * only, except the wake-up, which any thread that finishes one of its requests runs.
 *
 * <p>The shard's contract for idling: after each burst of work the owner calls {@code prepareToIdle}; when it
 * says the owner may idle, a finisher on another thread calls the wake-up, which schedules one drain on the
 * owner's executor. Deadlines are polled by a ticker that runs only while requests are in flight.
 */
final class ProduceOwner implements ProduceCompletionHandler, OwnerWakeup
{
    /** What a request does when all its waits are decided: builds and sends its response. */
    interface PendingProduce
    {
        void onComplete(RequestShard shard, int request);
    }

    private static final long TICK_MS = 5;

    private final EventExecutor executor;
    private final LongSupplier clockMs;
    private final RequestShard shard;
    private final Long2ObjectHashMap<PendingProduce> pending = new Long2ObjectHashMap<>();
    private final Runnable drain = this::drain;
    private final Runnable tick = this::tick;
    private ScheduledFuture<?> ticker;
    private long nextCookie;
    private boolean draining;
    private boolean drainAgain;

    ProduceOwner(final EventExecutor executor, final HotPathAdapter hotPath, final LongSupplier clockMs,
        final int maxRequests, final int maxWaits)
    {
        this.executor = executor;
        this.clockMs = clockMs;
        this.shard = hotPath.newShard(maxRequests, maxWaits, this, this, clockMs.getAsLong());
    }

    EventExecutor executor()
    {
        return executor;
    }

    RequestShard shard()
    {
        return shard;
    }

    /**
     * Begins a request that waits on {@code waits} partitions until {@code timeoutMs} from now.
     *
     * @return the shard's request, or {@link RequestShard#NO_REQUEST} when the shard is full.
     */
    int begin(final int waits, final long timeoutMs, final PendingProduce onComplete)
    {
        final long cookie = nextCookie++;
        final int request = shard.begin(cookie, waits, clockMs.getAsLong() + timeoutMs);
        if (request != RequestShard.NO_REQUEST)
        {
            pending.put(cookie, onComplete);
            if (ticker == null)
            {
                ticker = executor.scheduleAtFixedRate(tick, TICK_MS, TICK_MS, TimeUnit.MILLISECONDS);
            }
        }
        return request;
    }

    /**
     * Delivers what finished (on this thread or elsewhere) and re-arms the wake-up; call after each burst. A call
     * from inside a delivery (a response callback that appends again) only asks the running drain to go round
     * once more: a nested poll would deliver the outer poll's requests a second time.
     */
    void drain()
    {
        if (draining)
        {
            drainAgain = true;
            return;
        }
        draining = true;
        try
        {
            do
            {
                drainAgain = false;
                shard.onWake();
                do
                {
                    shard.poll(clockMs.getAsLong());
                }
                while (!shard.prepareToIdle());
            }
            while (drainAgain);
        }
        finally
        {
            draining = false;
        }
        if (shard.inFlight() == 0 && ticker != null)
        {
            ticker.cancel(false);
            ticker = null;
        }
    }

    private void tick()
    {
        drain();
    }

    @Override
    public void onProduceComplete(final RequestShard shard, final int request, final long cookie)
    {
        final PendingProduce produce = pending.remove(cookie);
        if (produce != null)
        {
            produce.onComplete(shard, request);
        }
    }

    @Override
    public void wake()
    {
        executor.execute(drain);
    }
}

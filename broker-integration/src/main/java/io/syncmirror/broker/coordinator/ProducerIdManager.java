package io.syncmirror.broker.coordinator;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.errors.CoordinatorLoadInProgressException;
import org.apache.kafka.common.message.AllocateProducerIdsRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AllocateProducerIdsRequest;
import org.apache.kafka.common.requests.AllocateProducerIdsResponse;
import org.apache.kafka.common.utils.Time;

import io.syncmirror.broker.network.NodeClient;

/**
 * Hands out producer ids from blocks the controller allocates (AllocateProducerIds, API 67). Thread-safe.
 *
 * <p>The next block is requested when 10% of the current one remain, so an InitProducerId rarely waits. When no id
 * is at hand the caller's future waits for the block in flight; a failed allocation fails the waiters with
 * COORDINATOR_LOAD_IN_PROGRESS (clients retry InitProducerId on it) and blocks new requests to the controller
 * for {@code retryBackoffMs}. Ids are never reused: a block that does not start above the last one is ignored.
 */
public final class ProducerIdManager
{
    private final int brokerId;
    private final LongSupplier brokerEpoch;
    private final Supplier<NodeClient> controllerClient;
    private final Time time;
    private final long retryBackoffMs;

    private final Object lock = new Object();
    private final ArrayDeque<CompletableFuture<Long>> waiters = new ArrayDeque<>();
    private long nextId = 0;
    private long blockEnd = 0;
    private long blockLength = 0;
    private long prefetchedStart = -1;
    private long prefetchedEnd = -1;
    private long highestAllocatedEnd = 0;
    private boolean fetching;
    private long retryAtMs;
    private final LongSupplier producerIdFloor;

    /**
     * @param brokerEpoch      the epoch of this broker's registration, sent with each request
     * @param controllerClient the client of the current controller (asked on every allocation, as the controller
     *                         may move)
     */
    public ProducerIdManager(final int brokerId, final LongSupplier brokerEpoch,
        final Supplier<NodeClient> controllerClient, final Time time, final long retryBackoffMs)
    {
        this(brokerId, brokerEpoch, controllerClient, time, retryBackoffMs, () -> -1L);
    }

    /**
     * @param producerIdFloor the cluster's producer id floor as this broker's metadata shows it: a mirror failover
     *                        raises it above every mirrored producer id, and ids of blocks allocated before that
     *                        are skipped (hazard 8).
     */
    public ProducerIdManager(final int brokerId, final LongSupplier brokerEpoch,
        final Supplier<NodeClient> controllerClient, final Time time, final long retryBackoffMs,
        final LongSupplier producerIdFloor)
    {
        this.producerIdFloor = producerIdFloor;
        this.brokerId = brokerId;
        this.brokerEpoch = brokerEpoch;
        this.controllerClient = controllerClient;
        this.time = time;
        this.retryBackoffMs = retryBackoffMs;
    }

    /** The cluster's producer id floor as this broker's metadata shows it, -1 when none. */
    public long floor()
    {
        return producerIdFloor.getAsLong();
    }

    /** A new producer id: completed at once when one is at hand, else when the next block arrives. */
    public CompletableFuture<Long> generateProducerId()
    {
        final CompletableFuture<Long> result;
        final boolean fetch;
        synchronized (lock)
        {
            final long floor = producerIdFloor.getAsLong();
            if (nextId < floor)
            {
                nextId = Math.min(floor, blockEnd);
            }
            if (prefetchedStart >= 0 && prefetchedStart < floor)
            {
                prefetchedStart = floor < prefetchedEnd ? floor : -1;
                prefetchedEnd = prefetchedStart < 0 ? -1 : prefetchedEnd;
            }
            if (nextId >= blockEnd && prefetchedStart >= 0)
            {
                useBlock(prefetchedStart, prefetchedEnd);
                prefetchedStart = -1;
                prefetchedEnd = -1;
            }
            if (nextId < blockEnd)
            {
                result = CompletableFuture.completedFuture(nextId++);
            }
            else if (!fetching && time.milliseconds() < retryAtMs)
            {
                return CompletableFuture.failedFuture(
                    new CoordinatorLoadInProgressException("producer id block not yet allocated"));
            }
            else
            {
                result = new CompletableFuture<>();
                waiters.add(result);
            }
            fetch = shouldFetch();
        }
        if (fetch)
        {
            fetchBlock();
        }
        return result;
    }

    /** Ids left in the current block (for tests and metrics). */
    public long remainingInBlock()
    {
        synchronized (lock)
        {
            return Math.max(0, blockEnd - nextId);
        }
    }

    private boolean shouldFetch()
    {
        if (fetching || prefetchedStart >= 0 || time.milliseconds() < retryAtMs)
        {
            return false;
        }
        final long remaining = Math.max(0, blockEnd - nextId);
        final boolean fetch = !waiters.isEmpty() || remaining <= blockLength / 10;
        if (fetch)
        {
            fetching = true;
        }
        return fetch;
    }

    private void useBlock(final long start, final long end)
    {
        nextId = start;
        blockEnd = end;
        blockLength = end - start;
    }

    private void fetchBlock()
    {
        final CompletableFuture<AllocateProducerIdsResponse> sent;
        try
        {
            sent = controllerClient.get().send(new AllocateProducerIdsRequest.Builder(
                new AllocateProducerIdsRequestData().setBrokerId(brokerId).setBrokerEpoch(brokerEpoch.getAsLong())));
        }
        catch (final RuntimeException e)
        {
            onBlock(null, e);
            return;
        }
        sent.whenComplete(this::onBlock);
    }

    private void onBlock(final AllocateProducerIdsResponse response, final Throwable error)
    {
        final List<CompletableFuture<Long>> served = new ArrayList<>();
        final List<Long> ids = new ArrayList<>();
        final List<CompletableFuture<Long>> failed = new ArrayList<>();
        final boolean fetchAgain;
        synchronized (lock)
        {
            fetching = false;
            final boolean ok = error == null && response != null
                && response.data().errorCode() == Errors.NONE.code() && response.data().producerIdLen() > 0
                && response.data().producerIdStart() >= highestAllocatedEnd;
            if (ok)
            {
                final long start = response.data().producerIdStart();
                final long end = start + response.data().producerIdLen();
                highestAllocatedEnd = end;
                if (nextId >= blockEnd)
                {
                    useBlock(start, end);
                }
                else
                {
                    prefetchedStart = start;
                    prefetchedEnd = end;
                }
                while (!waiters.isEmpty() && nextId < blockEnd)
                {
                    served.add(waiters.poll());
                    ids.add(nextId++);
                }
            }
            else
            {
                retryAtMs = time.milliseconds() + retryBackoffMs;
                failed.addAll(waiters);
                waiters.clear();
            }
            fetchAgain = shouldFetch();
        }
        for (int i = 0; i < served.size(); i++)
        {
            served.get(i).complete(ids.get(i));
        }
        for (final CompletableFuture<Long> waiter : failed)
        {
            waiter.completeExceptionally(new CoordinatorLoadInProgressException("producer id block allocation failed"));
        }
        if (fetchAgain)
        {
            fetchBlock();
        }
    }
}

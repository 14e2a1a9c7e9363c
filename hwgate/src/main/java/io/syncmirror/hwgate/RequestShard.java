package io.syncmirror.hwgate;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

import static io.syncmirror.hwgate.RequestShardDescriptor.CELL_NEXT_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.CELL_REQUEST_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.CELL_REQUIRED_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.CELL_RESULT_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.CELL_ROW_BYTES;
import static io.syncmirror.hwgate.RequestShardDescriptor.CELL_SLOT_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.REQUEST_CELL_COUNT_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.REQUEST_COOKIE_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.REQUEST_DEADLINE_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.REQUEST_FIRST_CELL_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.REQUEST_REMAINING_OFFSET;
import static io.syncmirror.hwgate.RequestShardDescriptor.REQUEST_ROW_BYTES;
import static io.syncmirror.hwgate.RequestShardDescriptor.REQUEST_UNFILLED_CELL_OFFSET;

import io.syncmirror.protocol.MirrorError;

/**
 * The in-flight acks=all produce requests of one owner thread (a connection's event loop): their rows, their
 * wait cells, their deadlines in a {@link HierarchicalTimingWheel} and an inbox of finished requests. Owner
 * thread only, except {@link #resolve}, which any thread calls when it decides a wait, and which hands a
 * finished request back to the owner through the inbox.
 *
 * <p>A request's life, on the owner: {@link #begin} reserves a row and its cells and schedules the deadline (so a
 * request that cannot be tracked is refused before anything is appended); inside each partition's append critical section
 * {@link #watch} registers one wait (or {@link #skip} records an outcome that needs no wait); {@link #poll}
 * expires deadlines and delivers finished requests to the {@link ProduceCompletionHandler}, then recycles
 * them. No step allocates.
 *
 * <p>A request finished by the owner itself (its own append already reached the HW, an expiry, a skip) goes to a
 * private list instead of the inbox: no atomics for what no other thread sees. The owner is the first thread
 * that calls {@link #begin}.
 *
 * <p>Idle without spinning: an owner with nothing to do calls {@link #prepareToIdle()} and, when it returns
 * true, parks; the thread that finishes one of its requests then calls the {@link OwnerWakeup} once.
 */
public final class RequestShard implements HierarchicalTimingWheel.ExpiryHandler
{
    /** Returned by {@link #begin} when the shard has no room for the request. */
    public static final int NO_REQUEST = -1;
    /** Ends a request's cell list. */
    public static final int NO_CELL = -1;

    private static final VarHandle OWNER_IDLE;

    static
    {
        try
        {
            OWNER_IDLE = MethodHandles.lookup().findVarHandle(RequestShard.class, "ownerIdle", int.class);
        }
        catch (final ReflectiveOperationException ex)
        {
            throw new ExceptionInInitializerError(ex);
        }
    }

    private final int shardId;
    private final DelayedProducePurgatory purgatory;
    private final HighWatermarkGate gate;
    private final ProduceCompletionHandler handler;
    private final OwnerWakeup wakeup;
    private final AtomicBuffer requests;
    private final AtomicBuffer cells;
    private final HierarchicalTimingWheel wheel;
    private final CompletionInbox inbox;
    private final int[] freeRequests;
    private final int[] freeCells;
    private final int[] finishedByOwner;
    private int freeRequestCount;
    private int freeCellCount;
    private int finishedByOwnerCount;
    private Thread owner;
    @SuppressWarnings("unused") // accessed through OWNER_IDLE
    private volatile int ownerIdle;

    RequestShard(
        final int shardId,
        final DelayedProducePurgatory purgatory,
        final int maxRequests,
        final int maxWaits,
        final ProduceCompletionHandler handler,
        final OwnerWakeup wakeup,
        final long startMs)
    {
        if (maxRequests < 1 || maxWaits < 1 || maxWaits > RequestShardDescriptor.MAX_CELLS)
        {
            throw new IllegalArgumentException("maxRequests must be positive and maxWaits in [1, 2^24]: " +
                maxRequests + ", " + maxWaits);
        }
        this.shardId = shardId;
        this.purgatory = purgatory;
        this.gate = purgatory.gate();
        this.handler = handler;
        this.wakeup = wakeup;
        this.requests = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            maxRequests * REQUEST_ROW_BYTES, BitUtil.CACHE_LINE_LENGTH));
        this.cells = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            maxWaits * CELL_ROW_BYTES, BitUtil.CACHE_LINE_LENGTH));
        this.wheel = new HierarchicalTimingWheel(maxRequests, startMs);
        this.inbox = new CompletionInbox(2 * maxRequests);
        this.freeRequests = new int[maxRequests];
        this.finishedByOwner = new int[maxRequests];
        this.freeCells = new int[maxWaits];
        for (int i = 0; i < maxRequests; i++)
        {
            freeRequests[i] = maxRequests - 1 - i;
        }
        for (int i = 0; i < maxWaits; i++)
        {
            freeCells[i] = maxWaits - 1 - i;
            cells.putLong(i * CELL_ROW_BYTES + CELL_RESULT_OFFSET, RequestShardDescriptor.resultWord(0, 0));
        }
        this.freeRequestCount = maxRequests;
        this.freeCellCount = maxWaits;
    }

    public int shardId()
    {
        return shardId;
    }

    /** Requests begun and not yet delivered. Owner only. */
    public int inFlight()
    {
        return freeRequests.length - freeRequestCount;
    }

    /** Deadlines scheduled. Owner only. */
    public int scheduledDeadlines()
    {
        return wheel.size();
    }

    /**
     * Reserves a request that will wait on {@code waits} partitions and answer by {@code deadlineMs}, and
     * schedules that deadline. Register every wait next, with {@link #watch} or {@link #skip}.
     *
     * @return the request, or {@link #NO_REQUEST} when the shard is full: the caller answers the produce with a
     * retriable error before appending anything.
     */
    public int begin(final long cookie, final int waits, final long deadlineMs)
    {
        if (waits < 1 || freeRequestCount == 0 || freeCellCount < waits)
        {
            return NO_REQUEST;
        }
        if (owner == null)
        {
            owner = Thread.currentThread(); // the first thread to begin a request owns the shard from then on
        }
        final int request = freeRequests[--freeRequestCount];
        final int row = request * REQUEST_ROW_BYTES;
        int previous = NO_CELL;
        int first = NO_CELL;
        for (int i = 0; i < waits; i++)
        {
            final int cell = freeCells[--freeCellCount];
            final int cellRow = cell * CELL_ROW_BYTES;
            final long oldWord = cells.getLong(cellRow + CELL_RESULT_OFFSET);
            cells.putLongRelease(cellRow + CELL_RESULT_OFFSET,
                RequestShardDescriptor.resultWord((int)(oldWord >>> 32) + 1, AckOutcome.PENDING));
            cells.putInt(cellRow + CELL_REQUEST_OFFSET, request);
            cells.putInt(cellRow + CELL_NEXT_OFFSET, NO_CELL);
            cells.putInt(cellRow + CELL_SLOT_OFFSET, -1);
            if (previous == NO_CELL)
            {
                first = cell;
            }
            else
            {
                cells.putInt(previous * CELL_ROW_BYTES + CELL_NEXT_OFFSET, cell);
            }
            previous = cell;
        }
        requests.putInt(row + REQUEST_CELL_COUNT_OFFSET, waits);
        requests.putInt(row + REQUEST_FIRST_CELL_OFFSET, first);
        requests.putInt(row + REQUEST_UNFILLED_CELL_OFFSET, first);
        requests.putLong(row + REQUEST_COOKIE_OFFSET, cookie);
        requests.putLong(row + REQUEST_DEADLINE_OFFSET, deadlineMs);
        requests.putIntRelease(row + REQUEST_REMAINING_OFFSET, waits);
        // Scheduled now, before any wait can be decided: the request cannot finish before its last wait is
        // registered (the count only reaches zero once every cell was decided), nor expire in between (deadlines
        // fire in poll, on this thread).
        wheel.schedule(request, deadlineMs);
        return request;
    }

    /**
     * Registers the request's next wait: its ack needs {@code slot}'s HW to reach {@code requiredOffset} (the
     * appended batch's last offset plus one). Call inside the partition's append critical section, after the
     * append, so that waits enter the slot's FIFO in offset order.
     */
    public void watch(final int request, final int slot, final long requiredOffset)
    {
        final int cell = nextUnfilledCell(request);
        final int cellRow = cell * CELL_ROW_BYTES;
        cells.putInt(cellRow + CELL_SLOT_OFFSET, slot);
        cells.putLong(cellRow + CELL_REQUIRED_OFFSET, requiredOffset);
        final int generation = (int)(cells.getLong(cellRow + CELL_RESULT_OFFSET) >>> 32);
        purgatory.watch(this, cell, RequestShardDescriptor.waiterRef(shardId, cell, generation), slot, requiredOffset);
    }

    /** Records an outcome for the request's next wait that is known without waiting (e.g. the append failed). */
    public void skip(final int request, final int outcome)
    {
        final int cell = nextUnfilledCell(request);
        final int cellRow = cell * CELL_ROW_BYTES;
        cells.putLong(cellRow + CELL_REQUIRED_OFFSET, -1L);
        // No other thread knows this cell (it never entered a FIFO): a store decides it, no CAS needed.
        final long word = cells.getLong(cellRow + CELL_RESULT_OFFSET);
        cells.putLongRelease(cellRow + CELL_RESULT_OFFSET,
            RequestShardDescriptor.resultWord((int)(word >>> 32), outcome));
        countDown(request);
    }

    /**
     * Expires the deadlines due at {@code nowMs} and delivers every finished request to the handler.
     *
     * @return the number of requests delivered.
     */
    public int poll(final long nowMs)
    {
        wheel.poll(nowMs, this);
        int delivered = 0;
        // The count is re-read on every pass: a handler that begins and finishes a request of its own appends
        // to this list while it is walked.
        for (int i = 0; i < finishedByOwnerCount; i++)
        {
            deliver(finishedByOwner[i]);
            delivered++;
        }
        finishedByOwnerCount = 0;
        int request;
        while ((request = inbox.poll()) >= 0)
        {
            deliver(request);
            delivered++;
        }
        return delivered;
    }

    /**
     * The owner is about to park: returns false if a finished request is already waiting (poll instead), true
     * if it may park, in which case the next finishing thread calls the {@link OwnerWakeup}.
     */
    public boolean prepareToIdle()
    {
        if (finishedByOwnerCount > 0)
        {
            return false;
        }
        OWNER_IDLE.setVolatile(this, 1);
        if (inbox.hasReady())
        {
            OWNER_IDLE.setVolatile(this, 0);
            return false;
        }
        return true;
    }

    /** The owner woke up (for any reason); a later finish need not wake it. */
    public void onWake()
    {
        OWNER_IDLE.setVolatile(this, 0);
    }

    // ------------------------------------------------------------------------------------------------------
    // Results, during ProduceCompletionHandler.onProduceComplete.
    // ------------------------------------------------------------------------------------------------------

    public int waitCount(final int request)
    {
        return requests.getInt(request * REQUEST_ROW_BYTES + REQUEST_CELL_COUNT_OFFSET);
    }

    public int firstCell(final int request)
    {
        return requests.getInt(request * REQUEST_ROW_BYTES + REQUEST_FIRST_CELL_OFFSET);
    }

    /** The cell after {@code cell} in watch order, or {@link #NO_CELL}. */
    public int nextCell(final int cell)
    {
        return cells.getInt(cell * CELL_ROW_BYTES + CELL_NEXT_OFFSET);
    }

    /** The decided outcome of {@code cell}, an {@link AckOutcome}. */
    public int cellOutcome(final int cell)
    {
        return (int)cells.getLongVolatile(cell * CELL_ROW_BYTES + CELL_RESULT_OFFSET);
    }

    public int cellSlot(final int cell)
    {
        return cells.getInt(cell * CELL_ROW_BYTES + CELL_SLOT_OFFSET);
    }

    public long cellRequiredOffset(final int cell)
    {
        return cells.getLong(cell * CELL_ROW_BYTES + CELL_REQUIRED_OFFSET);
    }

    // ------------------------------------------------------------------------------------------------------
    // Any thread.
    // ------------------------------------------------------------------------------------------------------

    /**
     * Decides wait cell {@code cell} of generation {@code generation} with {@code outcome}, if nobody decided it
     * first; the deciding thread counts the request down and, at zero, hands it to the owner.
     *
     * @return whether this call decided the cell.
     */
    boolean resolve(final int cell, final int generation, final int outcome)
    {
        final int cellRow = cell * CELL_ROW_BYTES;
        if (!cells.compareAndSetLong(cellRow + CELL_RESULT_OFFSET,
            RequestShardDescriptor.resultWord(generation, AckOutcome.PENDING),
            RequestShardDescriptor.resultWord(generation, outcome)))
        {
            return false;
        }
        countDown(cells.getInt(cellRow + CELL_REQUEST_OFFSET));
        return true;
    }

    /** Whether cell {@code cell} of generation {@code generation} still waits for its outcome. */
    boolean isPending(final int cell, final int generation)
    {
        return cells.getLongVolatile(cell * CELL_ROW_BYTES + CELL_RESULT_OFFSET) ==
            RequestShardDescriptor.resultWord(generation, AckOutcome.PENDING);
    }

    private void countDown(final int request)
    {
        if (requests.getAndAddInt(request * REQUEST_ROW_BYTES + REQUEST_REMAINING_OFFSET, -1) == 1)
        {
            if (Thread.currentThread() == owner)
            {
                // The owner finished its own request (its own append reached the HW, an expiry, a skip): no
                // other thread is involved, so it skips the inbox's atomics and the wake-up check.
                finishedByOwner[finishedByOwnerCount++] = request;
                return;
            }
            inbox.offer(request);
            if ((int)OWNER_IDLE.getVolatile(this) == 1 && OWNER_IDLE.compareAndSet(this, 1, 0))
            {
                wakeup.wake();
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Owner.
    // ------------------------------------------------------------------------------------------------------

    /** A deadline fired: decide every still-pending wait of the request by what is lagging now. */
    @Override
    public void onExpiry(final int request)
    {
        for (int cell = firstCell(request); cell != NO_CELL; cell = nextCell(cell))
        {
            final int cellRow = cell * CELL_ROW_BYTES;
            final long word = cells.getLongVolatile(cellRow + CELL_RESULT_OFFSET);
            if ((int)word == AckOutcome.PENDING)
            {
                final int slot = cells.getInt(cellRow + CELL_SLOT_OFFSET);
                // A wait the caller never registered (it gave up on the request half way) has nothing to classify.
                final int outcome = slot < 0 ? AckOutcome.of(MirrorError.REQUEST_TIMED_OUT) :
                    gate.expiryOutcome(slot, cells.getLong(cellRow + CELL_REQUIRED_OFFSET));
                resolve(cell, (int)(word >>> 32), outcome);
            }
        }
    }

    private void deliver(final int request)
    {
        final int row = request * REQUEST_ROW_BYTES;
        wheel.cancel(request);
        handler.onProduceComplete(this, request, requests.getLong(row + REQUEST_COOKIE_OFFSET));
        for (int cell = firstCell(request); cell != NO_CELL; cell = nextCell(cell))
        {
            freeCells[freeCellCount++] = cell;
        }
        freeRequests[freeRequestCount++] = request;
    }

    private int nextUnfilledCell(final int request)
    {
        final int row = request * REQUEST_ROW_BYTES;
        final int cell = requests.getInt(row + REQUEST_UNFILLED_CELL_OFFSET);
        if (cell == NO_CELL)
        {
            throw new IllegalStateException("request " + request + " has no wait left to register");
        }
        requests.putInt(row + REQUEST_UNFILLED_CELL_OFFSET, nextCell(cell));
        return cell;
    }

    /** A request shard's deliveries are owner-thread work; this is for diagnostics. */
    @Override
    public String toString()
    {
        return "RequestShard{id=" + shardId + ", inFlight=" + inFlight() + ", deadlines=" + wheel.size() + '}';
    }
}

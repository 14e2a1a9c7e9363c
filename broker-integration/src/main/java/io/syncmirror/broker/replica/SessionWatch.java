package io.syncmirror.broker.replica;

import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import io.syncmirror.fetch.FetchSession;

/**
 * What the broker keeps with one fetch session so that a fetch reads only the partitions that may answer
 * differently from last time, not the whole session: a {@link PartitionWatch} on each of the session's partitions,
 * which the partition runs on every change (append, HW, truncation, role); the queue of partitions changed since
 * they were last read; the slots a response sent records for or left with more to read; and the session's parked
 * fetch, if any.
 *
 * <p>A fetch of an incremental session reads the slots its request names (the fetcher moved on or changed its
 * epochs), the changed ones and the ones left over; a partition in none of them would be answered exactly as the
 * session already holds, so the response would leave it out anyway. That makes a fetch O(changed partitions)
 * where walking the session was O(session size): at 100k partitions a follower's session holds tens of thousands
 * of partitions and is woken by every append to any of them.
 *
 * <p>Threads: partitions mark changes from any thread ({@link PartitionWatch#run()}, lock-free). Everything else
 * is used by the fetch holding the session, one at a time: the session cache hands the session from one fetch to
 * the next under its lock, and the attempts of one fetch run one after another.
 */
final class SessionWatch
{
    private final FetchSession session;
    private final AtomicReference<Runnable> parked = new AtomicReference<>();
    private final ConcurrentLinkedQueue<PartitionWatch> changed = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    private PartitionWatch[] bySlot = new PartitionWatch[16];
    /**
     * The slots this fetch reads, each as (fetch order << 24 | slot) so that sorting puts them in fetch order
     * (the order counts moves to the session's tail: 2^39 of them before it wraps).
     */
    private long[] reads = new long[16];
    private int readCount;
    /** Which fetch last queued each slot in {@link #reads}: a slot is read once per attempt. */
    private long[] queuedInFetch = new long[16];
    private long fetchNumber;
    private long lastReadShape = Long.MIN_VALUE;
    private boolean readsAll;
    private int[] leftOver = new int[16];
    private int leftOverCount;

    private static final int SLOT_BITS = 24;
    private static final long SLOT_MASK = (1L << SLOT_BITS) - 1;

    SessionWatch(final FetchSession session)
    {
        this.session = session;
    }

    /** A session's standing interest in one of its partitions. */
    static final class PartitionWatch implements Runnable
    {
        final SessionWatch owner;
        final int slot;
        final Partition partition;
        /** 1 while the watch is in its session's changed queue, so a busy partition is queued once per read. */
        private final AtomicInteger queued = new AtomicInteger();

        PartitionWatch(final SessionWatch owner, final int slot, final Partition partition)
        {
            this.owner = owner;
            this.slot = slot;
            this.partition = partition;
        }

        /** The partition changed: queue it for the session's next read and wake its parked fetch. */
        @Override
        public void run()
        {
            if (owner.closed || owner.session.removedFromCache())
            {
                // Nothing fetches this session again; a watch left on an idle partition goes with its next change.
                partition.unwatch(this);
                return;
            }
            if (queued.compareAndSet(0, 1))
            {
                owner.changed.offer(this);
            }
            final Runnable attempt = owner.parked.getAndSet(null);
            if (attempt != null)
            {
                attempt.run();
            }
        }
    }

    /**
     * Starts a fetch: forgets the partitions requests took out of the session since the last fetch, and clears
     * the slots read. Call at the fetch's first attempt. Returns false when the fetch reads differently from the
     * session's last one ({@code readShape}: its isolation, fetcher and mirror link), so that a partition read
     * then can answer differently now without having changed: the fetch must read every partition. A sync
     * mirror's fetch that arrived before its link was known read its partitions only up to the HW, and the
     * record waiting above it (whose ack waits for this very mirror) would otherwise never be read.
     */
    boolean beginFetch(final long readShape)
    {
        final boolean sameShape = readShape == lastReadShape;
        lastReadShape = readShape;
        beginFetch();
        return sameShape;
    }

    /** {@link #beginFetch(long)} for a caller that reads every partition anyway. */
    void beginFetch()
    {
        for (int i = 0; i < session.removedCount(); i++)
        {
            final int slot = session.removedSlot(i);
            if (slot < bySlot.length && bySlot[slot] != null)
            {
                bySlot[slot].partition.unwatch(bySlot[slot]);
                bySlot[slot] = null;
            }
        }
        session.clearRemovedSlots();
        fetchNumber++;
        readCount = 0;
        if (queuedInFetch.length < bySlot.length)
        {
            queuedInFetch = Arrays.copyOf(queuedInFetch, bySlot.length);
        }
    }

    /** Whether the fetch holding the session reads every partition (set at its first attempt). */
    boolean readsAll()
    {
        return readsAll;
    }

    void readsAll(final boolean value)
    {
        readsAll = value;
        if (value)
        {
            // Read anyway; the fetch's answers leave their own.
            leftOverCount = 0;
        }
    }

    /** Adds what an incremental fetch reads besides changes: the slots its request names and those left over. */
    void queueRequestedAndLeftOver()
    {
        for (int i = 0; i < session.requestedCount(); i++)
        {
            queueRead(session.requestedSlot(i));
        }
        for (int i = 0; i < leftOverCount; i++)
        {
            queueRead(leftOver[i]);
        }
        leftOverCount = 0;
    }

    /**
     * Takes the partitions changed since they were last read into this fetch's reads. Their change marks clear
     * first: a change after this is queued again, so a read that follows never misses one.
     */
    void drainChanged()
    {
        PartitionWatch watch;
        while ((watch = changed.poll()) != null)
        {
            watch.queued.set(0);
            if (watch.slot < bySlot.length && bySlot[watch.slot] == watch)
            {
                queueRead(watch.slot);
            }
        }
    }

    /**
     * Adds one slot to this fetch's reads (once), if the session still holds it. A slot left over by the last
     * response (an error, records) may have been forgotten by this fetch's request: a fetcher that backs off a
     * partition answered with an error forgets it in its next request, as a follower does with the partitions of
     * a topic its leader does not know yet. Read, it would be answered again and watched again, and the response
     * would carry a partition the fetcher no longer asks for, which makes it drop its session and send a full
     * fetch of every partition. A request frees slots only after adding its own partitions, so a slot freed by
     * this fetch's request holds no other partition yet.
     */
    void queueRead(final int slot)
    {
        if (!session.holds(slot))
        {
            return;
        }
        if (slot >= queuedInFetch.length)
        {
            queuedInFetch = Arrays.copyOf(queuedInFetch, Math.max(slot + 1, queuedInFetch.length << 1));
        }
        if (queuedInFetch[slot] == fetchNumber)
        {
            return;
        }
        queuedInFetch[slot] = fetchNumber;
        if (readCount == reads.length)
        {
            reads = Arrays.copyOf(reads, readCount << 1);
        }
        reads[readCount++] = (session.fetchOrder(slot) << SLOT_BITS) | slot;
    }

    /** Sorts this fetch's reads into the session's fetch order (round robin under a max-bytes cap). */
    void sortReads()
    {
        Arrays.sort(reads, 0, readCount);
    }

    int readCount()
    {
        return readCount;
    }

    int readSlot(final int i)
    {
        return (int)(reads[i] & SLOT_MASK);
    }

    /** Whether some partition changed since {@link #drainChanged()}: a fetch about to park tries again instead. */
    boolean hasChanges()
    {
        return !changed.isEmpty();
    }

    /**
     * Makes sure the session watches the partition now at {@code slot} (null: none), before the fetch reads it:
     * a new partition, or a different one under the same key (recreated), gets a new watch.
     */
    void watch(final int slot, final Partition partition)
    {
        if (slot >= bySlot.length)
        {
            bySlot = Arrays.copyOf(bySlot, Math.max(slot + 1, bySlot.length << 1));
        }
        final PartitionWatch current = bySlot[slot];
        if (current != null && current.partition == partition)
        {
            return;
        }
        if (current != null)
        {
            current.partition.unwatch(current);
        }
        if (partition == null)
        {
            bySlot[slot] = null;
            return;
        }
        final PartitionWatch fresh = new PartitionWatch(this, slot, partition);
        bySlot[slot] = fresh;
        partition.watch(fresh);
    }

    /** Keeps a slot for the next fetch's reads: its answer carried records or an error, or left records unread. */
    void leaveOver(final int slot)
    {
        if (leftOverCount == leftOver.length)
        {
            leftOver = Arrays.copyOf(leftOver, leftOverCount << 1);
        }
        leftOver[leftOverCount++] = slot;
    }

    /** Parks the fetch's next attempt: the first change to any watched partition runs it, once. */
    void park(final Runnable attempt)
    {
        parked.set(attempt);
    }

    /** Stops watching every partition: the session is done (sessionless, or the cache dropped it). */
    void close()
    {
        closed = true;
        parked.set(null);
        for (int slot = 0; slot < bySlot.length; slot++)
        {
            if (bySlot[slot] != null)
            {
                bySlot[slot].partition.unwatch(bySlot[slot]);
                bySlot[slot] = null;
            }
        }
    }
}

package io.syncmirror.hwgate;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A multi-producer, single-consumer queue of non-negative ints (request indices) that never needs to refuse:
 * its capacity is at least the number of distinct values that can be in it at once (each request enters at
 * most once per life), so producers never check for room. Producers are the threads that complete a request's
 * last wait; the consumer is the request shard's owner.
 *
 * <p>A producer claims a cell with getAndAdd on the tail and stores {@code value + 1} with a volatile store
 * (so that the store and its following read of the owner's idle flag cannot be reordered; see
 * {@link RequestShard}). The consumer reads the cell at its private head; zero means empty, or claimed but not
 * yet stored, which is the same thing to it.
 */
final class CompletionInbox
{
    private static final int TAIL_OFFSET = 0;
    private static final int CELLS_OFFSET = BitUtil.CACHE_LINE_LENGTH * 2; // tail alone on its cache lines

    private final AtomicBuffer buffer;
    private final int mask;
    private long head; // consumer only

    CompletionInbox(final int minCapacity)
    {
        final int capacity = BitUtil.findNextPositivePowerOfTwo(Math.max(2, minCapacity));
        this.mask = capacity - 1;
        this.buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            CELLS_OFFSET + capacity * Integer.BYTES, BitUtil.CACHE_LINE_LENGTH));
    }

    /** Any thread. */
    void offer(final int value)
    {
        final long sequence = buffer.getAndAddLong(TAIL_OFFSET, 1);
        buffer.putIntVolatile(CELLS_OFFSET + (int)(sequence & mask) * Integer.BYTES, value + 1);
    }

    /** Consumer only: the next value, or -1 when none is ready. */
    int poll()
    {
        final int cell = CELLS_OFFSET + (int)(head & mask) * Integer.BYTES;
        final int stored = buffer.getIntVolatile(cell);
        if (stored == 0)
        {
            return -1;
        }
        buffer.putIntRelease(cell, 0);
        head++;
        return stored - 1;
    }

    /** Consumer only: whether a value is ready to poll (a volatile load). */
    boolean hasReady()
    {
        return buffer.getIntVolatile(CELLS_OFFSET + (int)(head & mask) * Integer.BYTES) != 0;
    }
}

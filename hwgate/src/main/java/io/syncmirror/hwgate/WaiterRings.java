package io.syncmirror.hwgate;

import java.lang.invoke.VarHandle;

import org.agrona.BitUtil;
import org.agrona.BufferUtil;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Per-slot bounded FIFOs of produce waiters, off-heap, one ring per partition slot. Each waiter is a required
 * offset and a reference to the wait cell that records its outcome. Thread-safety: one producer per ring at a
 * time (enqueues happen inside the partition's append critical section, so ring order is offset order) and
 * any number of concurrent consumers (every thread whose HW CAS wins pops the prefix the new HW completed).
 *
 * <pre>
 *   ring of one slot (16 + 16 * capacity bytes), in a buffer of its own or in the slot's row extension:
 *  +---------------------------------------------------------------+
 *  |              head: next sequence to pop (CAS)                 |  0
 *  +---------------------------------------------------------------+
 *  |              tail: next sequence to push (producer)           |  8
 *  +---------------------------------------------------------------+
 *  |  entry[0]: required offset (8) | waiter reference (8)         |  16
 *  |  ...                                                          |
 *  |  entry[capacity - 1]                                          |
 *  +---------------------------------------------------------------+
 * </pre>
 *
 * <p>A consumer reads head, then the entry, and claims it with a CAS on head; if another consumer claimed it
 * first, or the producer reused the entry after that, the CAS fails because head moved, so a torn read is
 * never acted on. The producer stores the entry, then the tail with a volatile store; the producer's HW
 * re-check that follows is a volatile load, and the consumer's HW CAS precedes its volatile tail load, so at
 * least one of them sees the other (no lost wake-up).
 */
public final class WaiterRings
{
    /** Offset of the head sequence within a ring. */
    public static final int HEAD_OFFSET = 0;
    /** Offset of the tail sequence within a ring. */
    public static final int TAIL_OFFSET = 8;
    /** Offset of the first entry within a ring. */
    public static final int ENTRIES_OFFSET = 16;
    /** Within an entry: the required offset. */
    public static final int ENTRY_REQUIRED_OFFSET = 0;
    /** Within an entry: the waiter reference. */
    public static final int ENTRY_WAITER_OFFSET = 8;
    /** Bytes of one entry. */
    public static final int ENTRY_BYTES = 16;

    private final AtomicBuffer buffer;
    private final int capacity;
    private final int entryMask;
    private final int base;
    private final int stride;

    /**
     * Rings in a buffer of their own.
     *
     * @param slotCapacity number of partition slots.
     * @param capacity     waiters per slot, a power of two.
     */
    public WaiterRings(final int slotCapacity, final int capacity)
    {
        requirePowerOfTwo(capacity);
        final long bytes = (long)slotCapacity * bytesFor(capacity);
        if (bytes > Integer.MAX_VALUE - BitUtil.CACHE_LINE_LENGTH)
        {
            throw new IllegalArgumentException(
                slotCapacity + " rings of " + capacity + " waiters exceed 2 GiB; use a smaller capacity");
        }
        this.capacity = capacity;
        this.entryMask = capacity - 1;
        this.base = 0;
        this.stride = bytesFor(capacity);
        this.buffer = new UnsafeBuffer(BufferUtil.allocateDirectAligned(
            BitUtil.align((int)bytes, BitUtil.CACHE_LINE_LENGTH), BitUtil.CACHE_LINE_LENGTH));
    }

    /**
     * Rings inside the partition rows' extensions (see PartitionRowDescriptor), beside the cells the HW
     * predicate reads: an ack's append, HW advance and drain then touch one region per partition.
     *
     * @param buffer   the partition table's memory.
     * @param base     the extension's offset within a row.
     * @param stride   the row size.
     * @param capacity waiters per slot, a power of two, that fit the extension ({@link #bytesFor(int)}).
     */
    public WaiterRings(final AtomicBuffer buffer, final int base, final int stride, final int capacity)
    {
        requirePowerOfTwo(capacity);
        if ((base & 7) != 0 || (stride & 7) != 0)
        {
            throw new IllegalArgumentException("rings must be 8-byte aligned: base=" + base + " stride=" + stride);
        }
        this.buffer = buffer;
        this.capacity = capacity;
        this.entryMask = capacity - 1;
        this.base = base;
        this.stride = stride;
    }

    /** Bytes one ring of {@code capacity} waiters takes. */
    public static int bytesFor(final int capacity)
    {
        return ENTRIES_OFFSET + capacity * ENTRY_BYTES;
    }

    private static void requirePowerOfTwo(final int capacity)
    {
        if (!BitUtil.isPowerOfTwo(capacity))
        {
            throw new IllegalArgumentException("ring capacity must be a power of two: " + capacity);
        }
    }

    public int capacity()
    {
        return capacity;
    }

    /**
     * Producer side: appends a waiter to {@code slot}'s ring.
     *
     * @return false when the ring is full.
     */
    public boolean offer(final int slot, final long requiredOffset, final long waiter)
    {
        final int ring = ringOffset(slot);
        final long tail = buffer.getLong(ring + TAIL_OFFSET); // only this producer writes the tail
        if (tail - buffer.getLongVolatile(ring + HEAD_OFFSET) >= capacity)
        {
            return false;
        }
        final int entry = ring + ENTRIES_OFFSET + (int)(tail & entryMask) * ENTRY_BYTES;
        buffer.putLong(entry + ENTRY_REQUIRED_OFFSET, requiredOffset);
        buffer.putLong(entry + ENTRY_WAITER_OFFSET, waiter);
        buffer.putLongVolatile(ring + TAIL_OFFSET, tail + 1);
        return true;
    }

    /** Number of waiters in {@code slot}'s ring (a snapshot). */
    public int size(final int slot)
    {
        final int ring = ringOffset(slot);
        final long head = buffer.getLongVolatile(ring + HEAD_OFFSET);
        return (int)(buffer.getLongVolatile(ring + TAIL_OFFSET) - head);
    }

    /**
     * Consumer side: pops the head waiter if its required offset is at most {@code upToOffset}.
     *
     * @return the waiter reference, or -1 when the ring is empty or its head needs a higher offset.
     */
    public long pollUpTo(final int slot, final long upToOffset)
    {
        final int ring = ringOffset(slot);
        while (true)
        {
            final long head = buffer.getLongVolatile(ring + HEAD_OFFSET);
            if (head >= buffer.getLongVolatile(ring + TAIL_OFFSET))
            {
                return -1L;
            }
            final int entry = entryOffset(ring, head);
            final long required = buffer.getLong(entry + ENTRY_REQUIRED_OFFSET);
            final long waiter = buffer.getLong(entry + ENTRY_WAITER_OFFSET);
            VarHandle.loadLoadFence(); // the entry's loads complete before head is re-read
            if (buffer.getLongVolatile(ring + HEAD_OFFSET) != head)
            {
                continue; // the entry was claimed, and perhaps reused, while it was read
            }
            if (required > upToOffset)
            {
                return -1L;
            }
            // Head only grows, and the producer reuses this entry only after head passed it, so a successful
            // CAS from the head value read before the entry proves the entry read was the live one.
            if (buffer.compareAndSetLong(ring + HEAD_OFFSET, head, head + 1))
            {
                return waiter;
            }
        }
    }

    /** The sequence of {@code slot}'s head waiter (a volatile load). */
    public long headSequence(final int slot)
    {
        return buffer.getLongVolatile(ringOffset(slot) + HEAD_OFFSET);
    }

    /** The sequence the next waiter pushed to {@code slot}'s ring will take (a volatile load). */
    public long tailSequence(final int slot)
    {
        return buffer.getLongVolatile(ringOffset(slot) + TAIL_OFFSET);
    }

    /**
     * The waiter reference at {@code sequence}, valid only if {@link #advanceHead} from that sequence succeeds
     * afterwards (the entry may be reused once head has passed it).
     */
    public long waiterAt(final int slot, final long sequence)
    {
        final long waiter = buffer.getLong(entryOffset(ringOffset(slot), sequence) + ENTRY_WAITER_OFFSET);
        VarHandle.loadLoadFence();
        return waiter;
    }

    /** Pops the head waiter if the head is still at {@code sequence}. */
    public boolean advanceHead(final int slot, final long sequence)
    {
        return buffer.compareAndSetLong(ringOffset(slot) + HEAD_OFFSET, sequence, sequence + 1);
    }

    private int ringOffset(final int slot)
    {
        return base + slot * stride;
    }

    private int entryOffset(final int ring, final long sequence)
    {
        return ring + ENTRIES_OFFSET + (int)(sequence & entryMask) * ENTRY_BYTES;
    }
}

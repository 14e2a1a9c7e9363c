package io.syncmirror.hwgate;

/**
 * Layout of a {@link RequestShard}'s off-heap rows: one row per in-flight produce request and one wait cell per
 * partition a request waits on. Stateless.
 *
 * <pre>
 *   request row (32 bytes)
 *  +-------------------------------+-------------------------------+
 *  |  remaining (atomic countdown) |         cell count            |  0   countdown: any thread
 *  +-------------------------------+-------------------------------+
 *  |          first cell           |    next cell to fill          |  8   owner only
 *  +-------------------------------+-------------------------------+
 *  |                            cookie                             |  16  owner only
 *  +---------------------------------------------------------------+
 *  |                          deadline ms                          |  24  owner only
 *  +---------------------------------------------------------------+
 *
 *   wait cell (32 bytes)
 *  +---------------------------------------------------------------+
 *  |   result word: generation (32) | outcome (32), CAS to decide  |  0   any thread
 *  +---------------------------------------------------------------+
 *  |                        required offset                        |  8   owner, published by the ring
 *  +-------------------------------+-------------------------------+
 *  |            request            |           next cell           |  16  owner, published by the ring
 *  +-------------------------------+-------------------------------+
 *  |             slot              |           reserved            |  24  owner, published by the ring
 *  +-------------------------------+-------------------------------+
 * </pre>
 *
 * <p>A request's remaining count starts at its number of waits. Whoever decides a cell (the CAS from
 * {@code generation | PENDING} wins; the owner's {@code skip} decides a cell no other thread has seen with a
 * store) decrements the count, and whoever brings it to zero hands the request to the owner: each cell is
 * decided exactly once, success xor error, and each request is delivered exactly once, however HW completion
 * and expiry interleave. The count cannot reach zero before the last wait is registered, since only
 * registered cells are decided.
 */
final class RequestShardDescriptor
{
    static final int REQUEST_REMAINING_OFFSET = 0;
    static final int REQUEST_CELL_COUNT_OFFSET = 4;
    static final int REQUEST_FIRST_CELL_OFFSET = 8;
    static final int REQUEST_UNFILLED_CELL_OFFSET = 12;
    static final int REQUEST_COOKIE_OFFSET = 16;
    static final int REQUEST_DEADLINE_OFFSET = 24;
    static final int REQUEST_ROW_BYTES = 32;

    static final int CELL_RESULT_OFFSET = 0;
    static final int CELL_REQUIRED_OFFSET = 8;
    static final int CELL_REQUEST_OFFSET = 16;
    static final int CELL_NEXT_OFFSET = 20;
    static final int CELL_SLOT_OFFSET = 24;
    static final int CELL_ROW_BYTES = 32;

    /** Waiter references: shard id in the top 8 bits, cell index in the next 24, generation in the low 32. */
    static final int SHARD_SHIFT = 56;
    static final int CELL_SHIFT = 32;
    static final int MAX_SHARDS = 1 << 8;
    static final int MAX_CELLS = 1 << 24;

    private RequestShardDescriptor()
    {
    }

    static long waiterRef(final int shard, final int cell, final int generation)
    {
        return ((long)shard << SHARD_SHIFT) | ((long)cell << CELL_SHIFT) | (generation & 0xFFFF_FFFFL);
    }

    static int shardOf(final long waiterRef)
    {
        return (int)(waiterRef >>> SHARD_SHIFT);
    }

    static int cellOf(final long waiterRef)
    {
        return (int)(waiterRef >>> CELL_SHIFT) & (MAX_CELLS - 1);
    }

    static int generationOf(final long waiterRef)
    {
        return (int)waiterRef;
    }

    static long resultWord(final int generation, final int outcome)
    {
        return ((long)generation << 32) | (outcome & 0xFFFF_FFFFL);
    }
}

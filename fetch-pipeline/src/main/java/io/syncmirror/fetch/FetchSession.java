package io.syncmirror.fetch;

import java.util.Arrays;
import java.util.HashMap;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.Errors;

/**
 * The broker-side state of one KIP-227 fetch session: the partitions a fetcher asked for, what it asked (fetch
 * offset, partition max bytes, leader epochs, its log start offset) and what it was last told (high watermark,
 * last stable offset, log start offset). Not thread-safe: a session is used by one fetch at a time, and
 * {@link FetchSessionCache} hands it from one fetch to the next under its lock (which also publishes the state
 * written by the previous fetch's thread to the next one's).
 *
 * <p>Partitions live in <em>slots</em>: an index into parallel primitive arrays, about 100 bytes a partition with
 * the key map, and no object per partition. Slots are linked in fetch order (a doubly-linked list in
 * {@code next}/{@code prev}); a partition whose records go into an incremental response moves to the tail when
 * the fetch completes, so that a response capped by max bytes reaches the other partitions next time (Kafka's
 * round robin). Partitions sent only for a changed high watermark, offset or error keep their place: moving them
 * as well would keep their order relative to the partition just served and starve them. Removed slots are
 * reused. Topics are a small table of (topic id, name); a slot holds its topic's index.
 *
 * <p>Readers ({@link #firstSlot()}, {@link #nextSlot(int)}, {@link #fetchOffset(int)}, ...) are what a fetch
 * handler uses while it holds the session through a {@link FetchContext}.
 */
public final class FetchSession
{
    /** The end of the slot list, or no such partition. */
    public static final int NO_SLOT = -1;
    /** A slot not bound to a broker partition handle yet. */
    public static final int NO_HANDLE = -1;
    /** A cached offset that matches nothing a log reports, so that the next response includes the partition. */
    static final long UNKNOWN_OFFSET = -1L;

    private static final int NO_EPOCH = -1;
    /** What {@code prev} holds for a slot on the free list, which no linked slot holds (see {@link #holds}). */
    private static final int FREE_SLOT = -2;

    final boolean privileged;
    final boolean usesTopicIds;
    final long creationMs;

    // Fields below up to the topic table are guarded by the FetchSessionCache lock.
    int id;
    int epoch;
    long lastUsedMs;
    boolean inUse;
    boolean cached;
    int cachedSize = -1;
    boolean inEvictableByAll;
    boolean inEvictableByPrivileged;
    FetchSession lruPrev;
    FetchSession lruNext;

    private Uuid[] topicIds = new Uuid[4];
    private String[] topicNames = new String[4];
    private int topicCount;
    private final HashMap<Uuid, Integer> topicIndexById = new HashMap<>();
    private final HashMap<String, Integer> topicIndexByName = new HashMap<>();

    private final LongIntHashMap slotByKey;
    private int[] topicIndex;
    private int[] partition;
    private int[] partitionMaxBytes;
    private int[] currentLeaderEpoch;
    private int[] lastFetchedEpoch;
    private long[] fetchOffset;
    private long[] fetcherLogStartOffset;
    private long[] highWatermark;
    private long[] lastStableOffset;
    private long[] logStartOffset;
    private int[] handle;
    private int[] next;
    private int[] prev;
    private int head = NO_SLOT;
    private int tail = NO_SLOT;
    private int freeHead = NO_SLOT;
    private int slotsUsed;
    private int size;
    private Object attachment;
    /** Position in fetch order: a slot linked at the tail later has a larger one. */
    private long[] order;
    private long orderCounter;
    /** The slots the last applied request named (added or updated). */
    private int[] requestedSlots = new int[16];
    private int requestedCount;
    /** Slots forgotten since the handler last took them ({@link #clearRemovedSlots()}). */
    private int[] removedSlots = new int[16];
    private int removedCount;
    private volatile boolean removedFromCache;

    private int[] movesToTail = new int[16];
    private int movesToTailCount;

    FetchSession(final boolean privileged, final boolean usesTopicIds, final long creationMs, final int expectedSize)
    {
        this.privileged = privileged;
        this.usesTopicIds = usesTopicIds;
        this.creationMs = creationMs;
        this.lastUsedMs = creationMs;
        final int capacity = Math.max(8, expectedSize);
        slotByKey = new LongIntHashMap(capacity);
        topicIndex = new int[capacity];
        partition = new int[capacity];
        partitionMaxBytes = new int[capacity];
        currentLeaderEpoch = new int[capacity];
        lastFetchedEpoch = new int[capacity];
        fetchOffset = new long[capacity];
        fetcherLogStartOffset = new long[capacity];
        highWatermark = new long[capacity];
        lastStableOffset = new long[capacity];
        logStartOffset = new long[capacity];
        handle = new int[capacity];
        next = new int[capacity];
        prev = new int[capacity];
        order = new long[capacity];
    }

    /**
     * What the broker keeps with this session across fetches (its parked-fetch waker), or null. Handed from one
     * fetch to the next with the session itself.
     */
    public Object attachment()
    {
        return attachment;
    }

    /** Sets {@link #attachment()}; the fetch holding the session only. */
    public void attach(final Object value)
    {
        attachment = value;
    }

    /**
     * Whether the cache dropped this session (evicted, closed by a full fetch, or removed): nothing will fetch
     * it again, so what the broker keeps for it can go. Any thread.
     */
    public boolean removedFromCache()
    {
        return removedFromCache;
    }

    void markRemovedFromCache()
    {
        removedFromCache = true;
    }

    /**
     * The slot's position in fetch order: of two slots, the one with the smaller value comes first. Lets a
     * handler that reads only some slots answer them in fetch order without walking the list.
     */
    public long fetchOrder(final int slot)
    {
        return order[slot];
    }

    /** How many partitions the last applied request named (new ones and updated ones). */
    public int requestedCount()
    {
        return requestedCount;
    }

    /** The slot of the {@code i}th partition the last applied request named. */
    public int requestedSlot(final int i)
    {
        return requestedSlots[i];
    }

    /**
     * How many slots requests forgot since {@link #clearRemovedSlots()}: a handler that keeps per-slot state
     * drops it for these before it reads the session (a slot may be reused by a later request).
     */
    public int removedCount()
    {
        return removedCount;
    }

    public int removedSlot(final int i)
    {
        return removedSlots[i];
    }

    public void clearRemovedSlots()
    {
        removedCount = 0;
    }

    /** The session id, or {@link org.apache.kafka.common.requests.FetchMetadata#INVALID_SESSION_ID} if not cached. */
    public int id()
    {
        return id;
    }

    /** Whether partitions are addressed by topic id (Fetch v13+) rather than by name. */
    public boolean usesTopicIds()
    {
        return usesTopicIds;
    }

    /** Whether a follower created it (privileged in eviction). */
    public boolean privileged()
    {
        return privileged;
    }

    /** Number of partitions. */
    public int size()
    {
        return size;
    }

    public boolean isEmpty()
    {
        return size == 0;
    }

    /**
     * Whether the slot holds one of the session's partitions now. A slot a request forgot goes back to the free
     * list with its old partition's values still in the arrays, until a later request reuses it: a handler that
     * kept the slot from an earlier fetch (to read it again, say) must not read it, as a response carrying it
     * would carry a partition the fetcher no longer asks for, and the fetcher drops a session that does that.
     */
    public boolean holds(final int slot)
    {
        return slot >= 0 && slot < slotsUsed && prev[slot] != FREE_SLOT;
    }

    /** The first slot in fetch order, or {@link #NO_SLOT}. */
    public int firstSlot()
    {
        return head;
    }

    /** The slot after {@code slot} in fetch order, or {@link #NO_SLOT}. */
    public int nextSlot(final int slot)
    {
        return next[slot];
    }

    /** The slot of a partition addressed by topic id (v13+) or name (older versions), or {@link #NO_SLOT}. */
    public int slotOf(final Uuid topicId, final String topicName, final int partitionIndex)
    {
        final Integer topic = usesTopicIds ? topicIndexById.get(topicId) : topicIndexByName.get(topicName);
        if (topic == null)
        {
            return NO_SLOT;
        }
        final int slot = slotByKey.get(LongIntHashMap.key(topic, partitionIndex));
        return slot == LongIntHashMap.MISSING ? NO_SLOT : slot;
    }

    /** The topic id, {@link Uuid#ZERO_UUID} for sessions addressed by name. */
    public Uuid topicId(final int slot)
    {
        return topicIds[topicIndex[slot]];
    }

    /**
     * The topic name: as sent for sessions addressed by name, as resolved when the topic id was first seen for
     * sessions addressed by id, and {@code null} if the id was unknown then (answer UNKNOWN_TOPIC_ID).
     */
    public String topicName(final int slot)
    {
        return topicNames[topicIndex[slot]];
    }

    /** The slot's topic, as an index into this session's topic table (stable while the session lives). */
    public int topicIndex(final int slot)
    {
        return topicIndex[slot];
    }

    public int partition(final int slot)
    {
        return partition[slot];
    }

    public long fetchOffset(final int slot)
    {
        return fetchOffset[slot];
    }

    public int partitionMaxBytes(final int slot)
    {
        return partitionMaxBytes[slot];
    }

    /** The fetcher's current leader epoch, -1 if it sent none. */
    public int currentLeaderEpoch(final int slot)
    {
        return currentLeaderEpoch[slot];
    }

    /** The epoch of the fetcher's last fetched batch, -1 if it sent none. */
    public int lastFetchedEpoch(final int slot)
    {
        return lastFetchedEpoch[slot];
    }

    /** The fetcher's own log start offset (followers), -1 for consumers. */
    public long fetcherLogStartOffset(final int slot)
    {
        return fetcherLogStartOffset[slot];
    }

    /** The high watermark last sent to the fetcher, -1 if none yet or after an error. */
    public long sentHighWatermark(final int slot)
    {
        return highWatermark[slot];
    }

    /** The last stable offset last sent, -1 if none yet. */
    public long sentLastStableOffset(final int slot)
    {
        return lastStableOffset[slot];
    }

    /** The log start offset last sent, -1 if none yet. */
    public long sentLogStartOffset(final int slot)
    {
        return logStartOffset[slot];
    }

    /**
     * The broker's own handle for this slot's partition (e.g. its dense partition-row index), or
     * {@link #NO_HANDLE}: lets a handler that walks the whole session skip the (topic, partition) lookup on every
     * fetch. Kept while the partition stays in the session.
     */
    public int handle(final int slot)
    {
        return handle[slot];
    }

    /** Binds the broker's handle for this slot's partition (see {@link #handle(int)}); the fetch holding the session only. */
    public void bindHandle(final int slot, final int partitionHandle)
    {
        handle[slot] = partitionHandle;
    }

    /**
     * Whether a response for this slot must include the partition, given what the log reports now; with
     * {@code update} the cached values become the reported ones, as for a response that is sent. Kafka's rule,
     * plus the last stable offset (a read_committed consumer waits on it).
     */
    boolean maybeUpdate(
        final int slot,
        final int recordsSizeBytes,
        final long highWatermarkNow,
        final long lastStableOffsetNow,
        final long logStartOffsetNow,
        final short errorCode,
        final boolean update)
    {
        boolean mustInclude = recordsSizeBytes > 0;
        if (highWatermark[slot] != highWatermarkNow)
        {
            mustInclude = true;
            if (update)
            {
                highWatermark[slot] = highWatermarkNow;
            }
        }
        if (lastStableOffset[slot] != lastStableOffsetNow)
        {
            mustInclude = true;
            if (update)
            {
                lastStableOffset[slot] = lastStableOffsetNow;
            }
        }
        if (logStartOffset[slot] != logStartOffsetNow)
        {
            mustInclude = true;
            if (update)
            {
                logStartOffset[slot] = logStartOffsetNow;
            }
        }
        if (errorCode != Errors.NONE.code())
        {
            mustInclude = true;
            if (update)
            {
                // Forget the high watermark so that the first response after the error clears includes it.
                highWatermark[slot] = UNKNOWN_OFFSET;
            }
        }
        return mustInclude;
    }

    /** Queues a move of the slot to the tail, applied by {@link #applyMovesToTail()} once iteration is over. */
    void deferMoveToTail(final int slot)
    {
        if (movesToTailCount == movesToTail.length)
        {
            movesToTail = Arrays.copyOf(movesToTail, movesToTail.length << 1);
        }
        movesToTail[movesToTailCount++] = slot;
    }

    void applyMovesToTail()
    {
        for (int i = 0; i < movesToTailCount; i++)
        {
            final int slot = movesToTail[i];
            if (slot != tail)
            {
                unlink(slot);
                linkAtTail(slot);
            }
        }
        movesToTailCount = 0;
    }

    /**
     * Applies one request's partitions: adds the new ones, updates the request parameters of known ones, then
     * removes the forgotten ones (Kafka's order). Requests that address topics by id look names up with
     * {@code names} once per new topic.
     */
    void applyRequest(final FetchRequestData request, final TopicNameResolver names, final boolean applyForgotten)
    {
        requestedCount = 0;
        for (final FetchRequestData.FetchTopic topic : request.topics())
        {
            final int topicIdx = topicIndexFor(topic.topicId(), topic.topic(), names);
            for (final FetchRequestData.FetchPartition fetchPartition : topic.partitions())
            {
                upsert(topicIdx, fetchPartition);
            }
        }
        if (!applyForgotten)
        {
            return;
        }
        for (final FetchRequestData.ForgottenTopic forgotten : request.forgottenTopicsData())
        {
            final Integer topicIdx = usesTopicIds ?
                topicIndexById.get(forgotten.topicId()) : topicIndexByName.get(forgotten.topic());
            if (topicIdx == null)
            {
                continue;
            }
            for (final Integer partitionIndex : forgotten.partitions())
            {
                remove(topicIdx, partitionIndex);
            }
        }
    }

    private int topicIndexFor(final Uuid topicId, final String name, final TopicNameResolver names)
    {
        final Integer existing = usesTopicIds ? topicIndexById.get(topicId) : topicIndexByName.get(name);
        if (existing != null)
        {
            return existing;
        }
        if (topicCount == topicIds.length)
        {
            topicIds = Arrays.copyOf(topicIds, topicCount << 1);
            topicNames = Arrays.copyOf(topicNames, topicCount << 1);
        }
        final int index = topicCount++;
        if (usesTopicIds)
        {
            topicIds[index] = topicId;
            topicNames[index] = names.topicName(topicId);
            topicIndexById.put(topicId, index);
        }
        else
        {
            topicIds[index] = Uuid.ZERO_UUID;
            topicNames[index] = name;
            topicIndexByName.put(name, index);
        }
        return index;
    }

    private void upsert(final int topicIdx, final FetchRequestData.FetchPartition request)
    {
        final long key = LongIntHashMap.key(topicIdx, request.partition());
        int slot = slotByKey.get(key);
        if (slot == LongIntHashMap.MISSING)
        {
            slot = allocateSlot();
            slotByKey.put(key, slot);
            topicIndex[slot] = topicIdx;
            partition[slot] = request.partition();
            highWatermark[slot] = UNKNOWN_OFFSET;
            lastStableOffset[slot] = UNKNOWN_OFFSET;
            logStartOffset[slot] = UNKNOWN_OFFSET;
            handle[slot] = NO_HANDLE;
            linkAtTail(slot);
            size++;
        }
        if (requestedCount == requestedSlots.length)
        {
            requestedSlots = Arrays.copyOf(requestedSlots, requestedCount << 1);
        }
        requestedSlots[requestedCount++] = slot;
        fetchOffset[slot] = request.fetchOffset();
        partitionMaxBytes[slot] = request.partitionMaxBytes();
        currentLeaderEpoch[slot] = request.currentLeaderEpoch() < 0 ? NO_EPOCH : request.currentLeaderEpoch();
        lastFetchedEpoch[slot] = request.lastFetchedEpoch() < 0 ? NO_EPOCH : request.lastFetchedEpoch();
        fetcherLogStartOffset[slot] = request.logStartOffset();
    }

    private void remove(final int topicIdx, final int partitionIndex)
    {
        final int slot = slotByKey.remove(LongIntHashMap.key(topicIdx, partitionIndex));
        if (slot == LongIntHashMap.MISSING)
        {
            return;
        }
        unlink(slot);
        next[slot] = freeHead;
        prev[slot] = FREE_SLOT;
        freeHead = slot;
        size--;
        if (removedCount == removedSlots.length)
        {
            removedSlots = Arrays.copyOf(removedSlots, removedCount << 1);
        }
        removedSlots[removedCount++] = slot;
    }

    private int allocateSlot()
    {
        if (freeHead != NO_SLOT)
        {
            final int slot = freeHead;
            freeHead = next[slot];
            return slot;
        }
        if (slotsUsed == fetchOffset.length)
        {
            grow(slotsUsed << 1);
        }
        return slotsUsed++;
    }

    private void grow(final int capacity)
    {
        topicIndex = Arrays.copyOf(topicIndex, capacity);
        partition = Arrays.copyOf(partition, capacity);
        partitionMaxBytes = Arrays.copyOf(partitionMaxBytes, capacity);
        currentLeaderEpoch = Arrays.copyOf(currentLeaderEpoch, capacity);
        lastFetchedEpoch = Arrays.copyOf(lastFetchedEpoch, capacity);
        fetchOffset = Arrays.copyOf(fetchOffset, capacity);
        fetcherLogStartOffset = Arrays.copyOf(fetcherLogStartOffset, capacity);
        highWatermark = Arrays.copyOf(highWatermark, capacity);
        lastStableOffset = Arrays.copyOf(lastStableOffset, capacity);
        logStartOffset = Arrays.copyOf(logStartOffset, capacity);
        handle = Arrays.copyOf(handle, capacity);
        next = Arrays.copyOf(next, capacity);
        prev = Arrays.copyOf(prev, capacity);
        order = Arrays.copyOf(order, capacity);
    }

    private void linkAtTail(final int slot)
    {
        order[slot] = ++orderCounter;
        prev[slot] = tail;
        next[slot] = NO_SLOT;
        if (tail == NO_SLOT)
        {
            head = slot;
        }
        else
        {
            next[tail] = slot;
        }
        tail = slot;
    }

    private void unlink(final int slot)
    {
        final int before = prev[slot];
        final int after = next[slot];
        if (before == NO_SLOT)
        {
            head = after;
        }
        else
        {
            next[before] = after;
        }
        if (after == NO_SLOT)
        {
            tail = before;
        }
        else
        {
            prev[after] = before;
        }
    }

    @Override
    public String toString()
    {
        return "FetchSession(id=" + id + ", privileged=" + privileged + ", usesTopicIds=" + usesTopicIds +
            ", size=" + size + ", epoch=" + epoch + ")";
    }
}

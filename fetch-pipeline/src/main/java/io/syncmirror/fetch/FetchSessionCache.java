package io.syncmirror.fetch;

import java.util.Comparator;
import java.util.HashMap;
import java.util.SplittableRandom;
import java.util.TreeSet;

import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;

/**
 * The broker's cache of KIP-227 incremental fetch sessions, and the entry point that turns a Fetch request into a
 * {@link FetchContext}. Thread-safe: cache bookkeeping (lookup, epoch check, creation, eviction, LRU order) runs
 * under this object's lock and costs O(1) or O(log sessions); the per-partition work of a request runs outside
 * it, by the one fetch that holds the session.
 *
 * <p>Semantics follow Kafka's broker (FetchSession.scala, FetchManager): a full fetch (epoch 0) closes the session
 * it names, if any, and its response creates a new session with epoch 1 when there is room; epoch -1 (FINAL) is a
 * sessionless full fetch; an incremental fetch (id, n) must name a cached session whose epoch is n (else
 * FETCH_SESSION_ID_NOT_FOUND / INVALID_FETCH_SESSION_EPOCH), must address topics the way the session does (ids
 * from v13, names before; else FETCH_SESSION_TOPIC_ID_ERROR), and moves the session to epoch n+1. An incremental
 * fetch that forgets the last partition closes the session (sessionless answer, session id 0).
 *
 * <p>One fetch at a time: the epoch moves on when a fetch takes the session, and the session stays taken until
 * {@link FetchContext#complete(long)}; any other fetch of it meanwhile gets INVALID_FETCH_SESSION_EPOCH (a
 * well-behaved client never sends one; Kafka would answer the same once the epochs disagree).
 *
 * <p>Eviction (Kafka's rule): with {@code maxSessions} cached, a new session may replace the least recently used
 * one if that was idle for more than {@code evictionMs}; else a follower's (privileged) session may replace the
 * smallest consumer session, or a privileged session older than {@code evictionMs}; a consumer's session may
 * replace a smaller consumer session older than {@code evictionMs}. A session evicted while a fetch holds it
 * finishes that fetch, then is gone.
 *
 * <p>Per-fetch cost: a full fetch is O(partitions in the request) (it builds the session's arrays); an
 * incremental one is O(partitions in the request + forgotten) to apply and O(1) per partition the handler asks
 * about. Walking the session to decide what to read is the handler's O(session size) loop, about ten primitive
 * reads and compares per partition; nothing is allocated per partition. The LRU list is intrusive, and the
 * evictable sets are only touched when a session's size or eligibility changes, so an idle steady-state fetch
 * allocates nothing here but its {@link FetchContext}.
 */
public final class FetchSessionCache
{
    public static final String MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS_CONFIG =
        "max.incremental.fetch.session.cache.slots";
    public static final int MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS_DEFAULT = 1000;
    public static final String MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS_CONFIG =
        "min.incremental.fetch.session.eviction.ms";
    public static final long MIN_INCREMENTAL_FETCH_SESSION_EVICTION_MS_DEFAULT = 120_000L;

    private static final Comparator<FetchSession> EVICTION_ORDER = (a, b) ->
    {
        final int byPrivilege = Boolean.compare(a.privileged, b.privileged);
        if (byPrivilege != 0)
        {
            return byPrivilege;
        }
        final int bySize = Integer.compare(a.cachedSize, b.cachedSize);
        return bySize != 0 ? bySize : Integer.compare(a.id, b.id);
    };

    private final int maxSessions;
    private final long evictionMs;
    private final SplittableRandom random;
    private final FetchSession noPartitions = new FetchSession(false, false, 0L, 0);

    private final HashMap<Integer, FetchSession> sessions = new HashMap<>();
    private final TreeSet<FetchSession> evictableByAll = new TreeSet<>(EVICTION_ORDER);
    private final TreeSet<FetchSession> evictableByPrivileged = new TreeSet<>(EVICTION_ORDER);
    private FetchSession lruHead;
    private FetchSession lruTail;
    private long totalPartitions;
    private long evictions;

    /**
     * @param maxSessions session slots ({@value #MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS_CONFIG}); 0 disables
     *                    incremental sessions (every full fetch is answered with session id 0).
     * @param evictionMs  idle time after which any session may be evicted, and age after which a session may be
     *                    evicted by a larger one.
     * @param seed        seed of the session id generator (ids are random positive ints, as in Kafka).
     */
    public FetchSessionCache(final int maxSessions, final long evictionMs, final long seed)
    {
        if (maxSessions < 0 || evictionMs < 0)
        {
            throw new IllegalArgumentException("maxSessions and evictionMs must be >= 0");
        }
        this.maxSessions = maxSessions;
        this.evictionMs = evictionMs;
        this.random = new SplittableRandom(seed);
    }

    /**
     * Resolves a Fetch request. {@code fromFollower} marks a replica's fetch (privileged in eviction);
     * {@code names} resolves topic ids for v13+. Never throws on bad input: session problems come back as
     * {@link FetchContext#error()}.
     */
    public FetchContext newContext(
        final FetchRequestData request,
        final short version,
        final boolean fromFollower,
        final TopicNameResolver names,
        final long nowMs)
    {
        final boolean usesTopicIds = version >= 13;
        final int sessionId = request.sessionId();
        final int epoch = version >= 7 ? request.sessionEpoch() : FetchMetadata.FINAL_EPOCH;
        if (epoch == FetchMetadata.INITIAL_EPOCH || epoch == FetchMetadata.FINAL_EPOCH)
        {
            if (sessionId != FetchMetadata.INVALID_SESSION_ID)
            {
                remove(sessionId);
            }
            final FetchSession fresh = new FetchSession(fromFollower, usesTopicIds, nowMs, partitionCount(request));
            // Forgotten topics mean nothing without a session: a full fetch names every partition it wants.
            fresh.applyRequest(request, names, false);
            final FetchContext.Kind kind = epoch == FetchMetadata.FINAL_EPOCH ?
                FetchContext.Kind.SESSIONLESS : FetchContext.Kind.FULL;
            return new FetchContext(this, kind, Errors.NONE, fresh);
        }

        final FetchSession session;
        synchronized (this)
        {
            session = sessions.get(sessionId);
            if (session == null)
            {
                return sessionError(Errors.FETCH_SESSION_ID_NOT_FOUND);
            }
            if (session.inUse || session.epoch != epoch)
            {
                return sessionError(Errors.INVALID_FETCH_SESSION_EPOCH);
            }
            if (session.usesTopicIds != usesTopicIds)
            {
                return sessionError(Errors.FETCH_SESSION_TOPIC_ID_ERROR);
            }
            session.inUse = true;
            session.epoch = FetchMetadata.nextEpoch(session.epoch);
            moveToLruTail(session, nowMs);
        }

        session.applyRequest(request, names, true);
        if (session.isEmpty())
        {
            synchronized (this)
            {
                remove(session);
                session.inUse = false;
            }
            return new FetchContext(this, FetchContext.Kind.SESSIONLESS, Errors.NONE, session);
        }
        return new FetchContext(this, FetchContext.Kind.INCREMENTAL, Errors.NONE, session);
    }

    /** Number of cached sessions. */
    public synchronized int size()
    {
        return sessions.size();
    }

    /** Partitions over all cached sessions, as of each session's last fetch. */
    public synchronized long totalPartitions()
    {
        return totalPartitions;
    }

    /** Sessions evicted so far. */
    public synchronized long evictions()
    {
        return evictions;
    }

    /** The cached session with this id, or null (for metrics and tests; do not use its state from here). */
    public synchronized FetchSession get(final int sessionId)
    {
        return sessions.get(sessionId);
    }

    /** Removes a session (e.g. when the broker stops); a fetch holding it finishes without it. */
    public synchronized boolean remove(final int sessionId)
    {
        final FetchSession session = sessions.get(sessionId);
        if (session == null)
        {
            return false;
        }
        remove(session);
        return true;
    }

    /** For tests: null if the bookkeeping agrees with itself, else what is wrong. */
    synchronized String invariantViolation()
    {
        int linked = 0;
        for (FetchSession s = lruHead; s != null; s = s.lruNext)
        {
            if (!s.cached || sessions.get(s.id) != s)
            {
                return "LRU list holds session " + s.id + " that is not cached";
            }
            linked++;
        }
        if (linked != sessions.size())
        {
            return "LRU list has " + linked + " sessions, cache " + sessions.size();
        }
        long partitions = 0;
        for (final FetchSession s : sessions.values())
        {
            partitions += Math.max(0, s.cachedSize);
        }
        if (partitions != totalPartitions)
        {
            return "totalPartitions " + totalPartitions + " but sessions hold " + partitions;
        }
        for (final FetchSession s : evictableByAll)
        {
            if (!s.cached || !s.inEvictableByAll)
            {
                return "evictableByAll holds session " + s.id + " wrongly";
            }
        }
        for (final FetchSession s : evictableByPrivileged)
        {
            if (!s.cached || !s.inEvictableByPrivileged)
            {
                return "evictableByPrivileged holds session " + s.id + " wrongly";
            }
        }
        return null;
    }

    synchronized int maybeCreateSession(final FetchSession session, final long nowMs)
    {
        if (maxSessions == 0 || (sessions.size() >= maxSessions && !tryEvict(session, nowMs)))
        {
            return FetchMetadata.INVALID_SESSION_ID;
        }
        int id;
        do
        {
            id = random.nextInt(1, Integer.MAX_VALUE);
        }
        while (sessions.containsKey(id));
        session.id = id;
        session.epoch = FetchMetadata.nextEpoch(FetchMetadata.INITIAL_EPOCH);
        session.cached = true;
        sessions.put(id, session);
        moveToLruTail(session, nowMs);
        updateEvictability(session, nowMs);
        return id;
    }

    synchronized int release(final FetchSession session, final long nowMs)
    {
        session.inUse = false;
        if (session.cached)
        {
            moveToLruTail(session, nowMs);
            updateEvictability(session, nowMs);
        }
        return session.id;
    }

    private boolean tryEvict(final FetchSession candidate, final long nowMs)
    {
        if (lruHead == null)
        {
            return false;
        }
        if (nowMs - lruHead.lastUsedMs > evictionMs)
        {
            remove(lruHead);
            evictions++;
            return true;
        }
        final TreeSet<FetchSession> evictable = candidate.privileged ? evictableByPrivileged : evictableByAll;
        if (evictable.isEmpty())
        {
            return false;
        }
        final FetchSession victim = evictable.first();
        final int candidateSize = candidate.size();
        final int byPrivilege = Boolean.compare(candidate.privileged, victim.privileged);
        final int order = byPrivilege != 0 ? byPrivilege : Integer.compare(candidateSize, victim.cachedSize);
        // Kafka compares (privileged, size, id) with the new session's id taken as 0: a tie in size loses.
        if (order < 0 || (order == 0 && victim.id > 0))
        {
            return false;
        }
        remove(victim);
        evictions++;
        return true;
    }

    private void remove(final FetchSession session)
    {
        if (!session.cached)
        {
            return;
        }
        session.cached = false;
        session.markRemovedFromCache();
        unlinkLru(session);
        if (session.inEvictableByAll)
        {
            evictableByAll.remove(session);
            session.inEvictableByAll = false;
        }
        if (session.inEvictableByPrivileged)
        {
            evictableByPrivileged.remove(session);
            session.inEvictableByPrivileged = false;
        }
        sessions.remove(session.id);
        totalPartitions -= Math.max(0, session.cachedSize);
    }

    private void updateEvictability(final FetchSession session, final long nowMs)
    {
        final int newSize = session.size();
        final boolean old = nowMs - session.creationMs > evictionMs;
        final boolean byPrivileged = !session.privileged || old;
        if (newSize == session.cachedSize && byPrivileged == session.inEvictableByPrivileged &&
            old == session.inEvictableByAll)
        {
            return;
        }
        // The sets are ordered by cachedSize: take the session out before the size it is filed under changes.
        if (session.inEvictableByAll)
        {
            evictableByAll.remove(session);
        }
        if (session.inEvictableByPrivileged)
        {
            evictableByPrivileged.remove(session);
        }
        totalPartitions += newSize - Math.max(0, session.cachedSize);
        session.cachedSize = newSize;
        session.inEvictableByAll = old;
        session.inEvictableByPrivileged = byPrivileged;
        if (old)
        {
            evictableByAll.add(session);
        }
        if (byPrivileged)
        {
            evictableByPrivileged.add(session);
        }
    }

    private void moveToLruTail(final FetchSession session, final long nowMs)
    {
        session.lastUsedMs = nowMs;
        if (lruTail == session)
        {
            return;
        }
        unlinkLru(session);
        session.lruPrev = lruTail;
        session.lruNext = null;
        if (lruTail == null)
        {
            lruHead = session;
        }
        else
        {
            lruTail.lruNext = session;
        }
        lruTail = session;
    }

    private void unlinkLru(final FetchSession session)
    {
        final boolean linked = session.lruPrev != null || session.lruNext != null || lruHead == session;
        if (!linked)
        {
            return;
        }
        if (session.lruPrev == null)
        {
            lruHead = session.lruNext;
        }
        else
        {
            session.lruPrev.lruNext = session.lruNext;
        }
        if (session.lruNext == null)
        {
            lruTail = session.lruPrev;
        }
        else
        {
            session.lruNext.lruPrev = session.lruPrev;
        }
        session.lruPrev = null;
        session.lruNext = null;
    }

    private FetchContext sessionError(final Errors error)
    {
        return new FetchContext(this, FetchContext.Kind.SESSION_ERROR, error, noPartitions);
    }

    private static int partitionCount(final FetchRequestData request)
    {
        int count = 0;
        for (final FetchRequestData.FetchTopic topic : request.topics())
        {
            count += topic.partitions().size();
        }
        return count;
    }
}

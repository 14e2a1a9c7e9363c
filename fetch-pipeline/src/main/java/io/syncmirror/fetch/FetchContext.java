package io.syncmirror.fetch;

import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.FetchMetadata;

/**
 * One Fetch request resolved against the session cache: which partitions to read (with the request parameters
 * the session remembers), which of them the response must carry, and the session id the response announces. Not
 * thread-safe: used by the thread handling the request, possibly across a long-poll (then by the thread
 * completing it), one thread at a time.
 *
 * <p>Life: {@link FetchSessionCache#newContext} → if {@link #error()} is not NONE, answer it with no partitions
 * and session id 0; else walk {@link #partitions()} from {@link FetchSession#firstSlot()}, read each log, and
 * call {@link #mustInclude} once per partition for the response being sent (use {@link #wouldInclude} for
 * checks that send nothing, e.g. deciding whether a long-poll may return early) → {@link #complete(long)}
 * returns the session id for the response and releases the session. A handler that gives up without answering
 * (connection closed) calls {@link #complete(long)} anyway; until then the session refuses other fetches with
 * INVALID_FETCH_SESSION_EPOCH.
 */
public final class FetchContext
{
    /** What kind of fetch this is. */
    public enum Kind
    {
        /** Epoch -1 (FINAL), or an incremental fetch that removed the last partition: no session after it. */
        SESSIONLESS,
        /** Epoch 0: the response creates a session if the cache has room. */
        FULL,
        /** An existing session's next epoch: the response carries changed partitions only. */
        INCREMENTAL,
        /** The request named an unknown session, a wrong epoch, or mixed topic ids and names. */
        SESSION_ERROR
    }

    private final FetchSessionCache cache;
    private final Kind kind;
    private final Errors error;
    private final FetchSession session;
    private boolean completed;
    private int responseSessionId = FetchMetadata.INVALID_SESSION_ID;

    FetchContext(final FetchSessionCache cache, final Kind kind, final Errors error, final FetchSession session)
    {
        this.cache = cache;
        this.kind = kind;
        this.error = error;
        this.session = session;
    }

    public Kind kind()
    {
        return kind;
    }

    /** NONE, or the top-level error to answer with (FETCH_SESSION_ID_NOT_FOUND, ...). */
    public Errors error()
    {
        return error;
    }

    /**
     * The partitions to read, in fetch order: the request's partitions for full and sessionless fetches, the
     * whole session for incremental ones. Empty for session errors.
     */
    public FetchSession partitions()
    {
        return session;
    }

    /**
     * Whether the response must carry this partition, and remembers what it carries. Full and sessionless
     * responses carry every partition; incremental ones only partitions with records, a changed high watermark,
     * last stable offset or log start offset, an error, or {@code forceInclude} (a diverging epoch or a preferred
     * read replica). Pass -1 for values the response does not carry. A partition of an incremental response
     * that carries records moves behind the others in the session's fetch order once the fetch completes, so
     * that a response capped by max bytes starts with the partitions served least recently. O(1), no allocation
     * once the session's move queue has grown to the number of partitions served per response. A slot the session
     * does not hold (see {@link FetchSession#holds}) is never included and its values are left alone: a response
     * carries only partitions the fetcher asked for (KIP-227), and moving a free slot would break the fetch order.
     */
    public boolean mustInclude(
        final int slot,
        final int recordsSizeBytes,
        final long highWatermark,
        final long lastStableOffset,
        final long logStartOffset,
        final short errorCode,
        final boolean forceInclude)
    {
        if (!session.holds(slot))
        {
            return false;
        }
        final boolean changed = session.maybeUpdate(
            slot, recordsSizeBytes, highWatermark, lastStableOffset, logStartOffset, errorCode, true);
        if (kind != Kind.INCREMENTAL)
        {
            return true;
        }
        if (recordsSizeBytes > 0)
        {
            // Only a partition that was served records goes behind the others. One included for a metadata
            // change alone keeps its place: under a max-bytes cap with every high watermark moving, moving it too
            // would keep the session order as it was and serve the first partition for ever (Kafka's rule).
            session.deferMoveToTail(slot);
        }
        return changed || forceInclude;
    }

    /** As {@link #mustInclude} without remembering anything. */
    public boolean wouldInclude(
        final int slot,
        final int recordsSizeBytes,
        final long highWatermark,
        final long lastStableOffset,
        final long logStartOffset,
        final short errorCode,
        final boolean forceInclude)
    {
        if (!session.holds(slot))
        {
            return false;
        }
        return kind != Kind.INCREMENTAL || forceInclude ||
            session.maybeUpdate(slot, recordsSizeBytes, highWatermark, lastStableOffset, logStartOffset, errorCode, false);
    }

    /**
     * Ends the fetch: a full fetch tries to create its session, an incremental one releases its session.
     * Returns the session id the response carries (0 for none). Idempotent.
     */
    public int complete(final long nowMs)
    {
        if (completed)
        {
            return responseSessionId;
        }
        completed = true;
        if (kind == Kind.FULL)
        {
            responseSessionId = cache.maybeCreateSession(session, nowMs);
        }
        else if (kind == Kind.INCREMENTAL)
        {
            session.applyMovesToTail();
            responseSessionId = cache.release(session, nowMs);
        }
        return responseSessionId;
    }

    @Override
    public String toString()
    {
        return "FetchContext(kind=" + kind + ", error=" + error + ", session=" + session + ")";
    }
}

package io.syncmirror.fetch;

import java.util.ArrayList;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fetch loop of one fetcher: a set of partitions fetched from one source node through a
 * {@link FetchTransport}, in a KIP-227 incremental session kept by a {@link ClientFetchSession}, with what
 * arrives handed to a {@link FetchTarget}. Used by followers (replica fetchers) and cross-cluster mirror fetchers.
 *
 * <p>Thread-safety: {@link #addPartition}, {@link #removePartition}, {@link #wakeup()} and the queries may be
 * called from any thread; they queue a command or read a published value. Everything else — {@link #doWork},
 * the session, the callbacks into the target — runs on one owner thread ({@link FetcherThread}, or a test
 * calling {@link #doWork} with a manual clock). Commands are applied at the start of {@link #doWork}, so a
 * response for a partition removed or re-added meanwhile is dropped (the session no longer holds what was sent
 * for that partition object, or its fetch offset or leader epoch no longer match, as in Kafka's
 * AbstractFetcherThread).
 *
 * <p>Never busy-spins: with a request in flight it waits for the response (bounded by maxWaitMs +
 * requestTimeoutMs); after a failed request it waits backoffMs; with nothing fetchable it waits for a command or
 * the end of the earliest partition delay. An incremental request costs O(partitions whose request data or
 * fetchable state changed since the last request, plus commands applied): every such change is reported to the
 * session where it happens, and an unchanged partition is not looked at. Handling a response costs O(partitions
 * in it); retrying delays costs O(partitions not fetching). Only a full request (a new session: the first one,
 * after a session error or a failed request) and its response cost O(partitions). Each partition's request entry
 * is a cached immutable object rebuilt only when its offset or epochs change, and LastFetchedEpoch and the log
 * start offset are asked of the target only after an append or truncation.
 *
 * <p>{@link #wakeup()} makes the next request go out with maxWaitMs 0 and ends an idle wait; a sync mirror uses it
 * to report a destination ISR advance without waiting for a parked long-poll.
 */
public final class FetcherEngine
{
    private static final Logger LOG = LoggerFactory.getLogger(FetcherEngine.class);

    /** {@link #doWork} has nothing to do until a command, a wakeup or a response arrives. */
    public static final long IDLE = Long.MAX_VALUE;

    private static final short LAST_VERSION_WITHOUT_TOPIC_IDS = 12;

    private final FetcherConfig config;
    private final FetchTransport transport;
    private final FetchTarget target;
    private final ClientFetchSession session;
    private final ConcurrentLinkedQueue<Command> commands = new ConcurrentLinkedQueue<>();
    private final ConcurrentHashMap<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private final AtomicBoolean immediateFetchRequested = new AtomicBoolean();
    /** Partitions not in FETCHING (delayed or truncating), so that retries never walk the whole set. */
    private final ArrayList<Partition> notFetching = new ArrayList<>();
    /** Partitions whose current position no response has answered yet: few, and only after a start or a cut. */
    private final ArrayList<Partition> unconfirmed = new ArrayList<>();
    private volatile Runnable signal = () -> {};

    private CompletableFuture<FetchResponse> inFlight;
    private short inFlightVersion;
    private long inFlightDeadlineMs;
    private long backoffUntilMs = Long.MIN_VALUE;
    private int consecutiveFailures;
    private long requestsSent;

    /**
     * One partition's fetch state; written by the owner thread, the volatile fields read by any. Whoever changes
     * its state or what its request carries reports it to the session (ClientFetchSession#changed), which is how
     * an incremental request finds what to carry without looking at every partition.
     */
    private static final class Partition extends ClientFetchSession.Member
    {
        final int partitionMaxBytes;
        volatile long fetchOffset;
        volatile int currentLeaderEpoch;
        volatile PartitionFetchState state = PartitionFetchState.FETCHING;
        int lastFetchedEpoch = -1;
        long localLogStartOffset = -1L;
        long delayedUntilMs;
        boolean divergingEpochPending;
        int divergingEpoch;
        long divergingEndOffset;
        FetchRequest.PartitionData requestData;
        /** Started or truncated to its fetch offset and not yet answered there (see {@link #confirmPositions}). */
        boolean positionUnconfirmed;

        Partition(final TopicIdPartition partition, final long fetchOffset, final int currentLeaderEpoch,
            final int partitionMaxBytes)
        {
            super(partition);
            this.fetchOffset = fetchOffset;
            this.currentLeaderEpoch = currentLeaderEpoch;
            this.partitionMaxBytes = partitionMaxBytes;
        }

        @Override
        boolean fetchable()
        {
            return state == PartitionFetchState.FETCHING;
        }

        @Override
        FetchRequest.PartitionData requestData()
        {
            FetchRequest.PartitionData data = requestData;
            if (data == null)
            {
                data = new FetchRequest.PartitionData(
                    topicId,
                    fetchOffset,
                    localLogStartOffset,
                    partitionMaxBytes,
                    Optional.of(currentLeaderEpoch),
                    lastFetchedEpoch < 0 ? Optional.empty() : Optional.of(lastFetchedEpoch));
                requestData = data;
            }
            return data;
        }
    }

    private record Command(TopicIdPartition partition, TopicPartition removed, long fetchOffset, int leaderEpoch)
    {
    }

    /**
     * @param sourceNodeId the node fetched from (names the session in the logs).
     */
    public FetcherEngine(
        final FetcherConfig config, final int sourceNodeId, final FetchTransport transport, final FetchTarget target)
    {
        this.config = config;
        this.transport = transport;
        this.target = target;
        this.session = new ClientFetchSession("[Fetcher replica=" + config.replicaId() + " source=" + sourceNodeId + "] ");
    }

    /** What to run when a command, a wakeup or a response arrives (the owner thread's unpark). */
    public void onSignal(final Runnable newSignal)
    {
        signal = newSignal;
    }

    /**
     * Starts fetching a partition at {@code fetchOffset} with the leader epoch metadata names; adding a partition
     * that is already fetched restarts it there (a new leader epoch). Any thread.
     */
    public void addPartition(final TopicIdPartition partition, final long fetchOffset, final int currentLeaderEpoch)
    {
        commands.add(new Command(partition, null, fetchOffset, currentLeaderEpoch));
        signal.run();
    }

    /** Stops fetching a partition; a response already on its way for it is dropped. Any thread. */
    public void removePartition(final TopicPartition partition)
    {
        commands.add(new Command(null, partition, -1L, -1));
        signal.run();
    }

    /** Makes the next request go out at once with maxWaitMs 0 (after the one in flight, if any). Any thread. */
    public void wakeup()
    {
        immediateFetchRequested.set(true);
        signal.run();
    }

    /** The partition's state, or null if it is not fetched (commands not yet applied are not visible). */
    public PartitionFetchState state(final TopicPartition partition)
    {
        final Partition p = partitions.get(partition);
        return p == null ? null : p.state;
    }

    /** The partition's fetch offset, -1 if it is not fetched. */
    public long fetchOffset(final TopicPartition partition)
    {
        final Partition p = partitions.get(partition);
        return p == null ? -1L : p.fetchOffset;
    }

    /** Number of partitions fetched (in any state). */
    public int partitionCount()
    {
        return partitions.size();
    }

    /** Whether the transport has a connection up (for the owner's health reporting). */
    public boolean isConnected()
    {
        return transport.isReady();
    }

    /** Requests sent so far (owner thread, or after the owner stopped). */
    public long requestsSent()
    {
        return requestsSent;
    }

    /** The session id the fetcher will use next, 0 when its next fetch is a full one (owner thread). */
    public int sessionId()
    {
        return session.sessionId();
    }

    /** Partitions the source's fetch session holds, as of the last request (owner thread). */
    int sessionSize()
    {
        return session.size();
    }

    /** Partitions looked at to build requests so far (owner thread): what building requests cost. */
    long requestBuildVisits()
    {
        return session.membersVisited();
    }

    /**
     * One step of the fetch loop at {@code nowMs}: apply commands, handle a completed response, retry due
     * truncations, send the next request if one is due. Returns how long to wait before the next step is useful
     * (0: at once), {@link #IDLE} for "until signalled"; a pending response also signals on completion. Owner
     * thread only. Never throws for what the network, the source or the target does.
     */
    public long doWork(final long nowMs)
    {
        applyCommands();
        if (inFlight != null)
        {
            if (!inFlight.isDone())
            {
                if (nowMs < inFlightDeadlineMs)
                {
                    return inFlightDeadlineMs - nowMs;
                }
                // Abandon it; the session starts again, so a late answer cannot be misread.
                inFlight = null;
                onRequestFailed(new TimeoutException("fetch response timed out"), nowMs);
            }
            else
            {
                final CompletableFuture<FetchResponse> done = inFlight;
                inFlight = null;
                handleCompleted(done, nowMs);
            }
        }
        long nextDueMs = retryDelayedPartitions(nowMs);
        if (nowMs < backoffUntilMs)
        {
            return backoffUntilMs - nowMs;
        }
        final boolean sent = maybeSend(nowMs);
        if (sent)
        {
            return inFlight == null || inFlight.isDone() ? 0L : inFlightDeadlineMs - nowMs;
        }
        if (nowMs < backoffUntilMs)
        {
            nextDueMs = Math.min(nextDueMs, backoffUntilMs);
        }
        return nextDueMs == Long.MAX_VALUE ? IDLE : Math.max(1L, nextDueMs - nowMs);
    }

    private void applyCommands()
    {
        Command command;
        while ((command = commands.poll()) != null)
        {
            if (command.removed() != null)
            {
                final Partition removed = partitions.remove(command.removed());
                if (removed != null)
                {
                    session.remove(removed);
                }
                continue;
            }
            final Partition existing = partitions.get(command.partition().topicPartition());
            if (existing != null && existing.currentLeaderEpoch == command.leaderEpoch() &&
                existing.state == PartitionFetchState.FETCHING && existing.topicId.equals(command.partition().topicId()))
            {
                // Same topic, leader and epoch (an ISR change, say): nothing to restart. A new topic id is a topic
                // re-created under the same name, whose epochs start again.
                continue;
            }
            long fetchOffset = command.fetchOffset();
            try
            {
                final long logEnd = target.logEndOffset(command.partition().topicPartition());
                fetchOffset = logEnd >= 0 ? logEnd : fetchOffset;
            }
            catch (final RuntimeException e)
            {
                // Keep the caller's offset; a wrong one fails the append and is retried.
            }
            final Partition partition = new Partition(
                command.partition(), fetchOffset, command.leaderEpoch(), config.partitionMaxBytes());
            refreshFromLog(partition);
            awaitConfirmation(partition);
            final Partition replaced = partitions.put(partition.topicPartition, partition);
            if (replaced != null)
            {
                session.remove(replaced);
            }
            session.add(partition);
        }
    }

    /** Ends delays that are over; returns the earliest delay still running, or Long.MAX_VALUE. */
    private long retryDelayedPartitions(final long nowMs)
    {
        long earliestMs = Long.MAX_VALUE;
        int kept = 0;
        for (int i = 0; i < notFetching.size(); i++)
        {
            final Partition partition = notFetching.get(i);
            if (partition.state == PartitionFetchState.FETCHING || partitions.get(partition.topicPartition) != partition)
            {
                // Resolved at once when it left FETCHING, or removed or replaced since.
                continue;
            }
            if (partition.delayedUntilMs <= nowMs)
            {
                if (partition.state == PartitionFetchState.DELAYED)
                {
                    partition.state = PartitionFetchState.FETCHING;
                    session.changed(partition);
                }
                else
                {
                    resolveTruncation(partition, nowMs);
                }
            }
            if (partition.state != PartitionFetchState.FETCHING)
            {
                earliestMs = Math.min(earliestMs, partition.delayedUntilMs);
                notFetching.set(kept++, partition);
            }
        }
        notFetching.subList(kept, notFetching.size()).clear();
        return earliestMs;
    }

    private boolean maybeSend(final long nowMs)
    {
        final ClientFetchSession.Request data = session.build(partitions.values());
        if (data == null)
        {
            // Nothing fetchable: keep the session as it is, as an empty incremental request would close it on
            // the source.
            return false;
        }
        final short version = data.usesTopicIds() ?
            config.fetchVersion() : (short)Math.min(config.fetchVersion(), LAST_VERSION_WITHOUT_TOPIC_IDS);
        final int maxWaitMs = immediateFetchRequested.getAndSet(false) ? 0 : config.maxWaitMs();
        final FetchRequest.Builder request = FetchRequest.Builder
            .forReplica(version, config.replicaId(), config.brokerEpoch(), maxWaitMs, config.minBytes(), data.toSend())
            .setMaxBytes(config.maxBytes())
            .isolationLevel(IsolationLevel.READ_UNCOMMITTED)
            .metadata(data.metadata())
            .removed(data.toForget())
            .replaced(data.toReplace())
            .rackId("");
        final CompletableFuture<FetchResponse> future;
        try
        {
            future = transport.send(request);
        }
        catch (final RuntimeException e)
        {
            onRequestFailed(e, nowMs);
            return false;
        }
        if (future == null)
        {
            onRequestFailed(new IllegalStateException("transport returned no future"), nowMs);
            return false;
        }
        requestsSent++;
        inFlight = future;
        inFlightVersion = version;
        inFlightDeadlineMs = nowMs + maxWaitMs + config.requestTimeoutMs();
        final Runnable wake = signal;
        future.whenComplete((response, error) -> wake.run());
        return true;
    }

    private void handleCompleted(final CompletableFuture<FetchResponse> done, final long nowMs)
    {
        final FetchResponse response;
        try
        {
            response = done.get();
        }
        catch (final ExecutionException | CompletionException e)
        {
            onRequestFailed(e.getCause() == null ? e : e.getCause(), nowMs);
            return;
        }
        catch (final InterruptedException e)
        {
            // Unreachable for a completed future; keep the flag for the owner's loop.
            Thread.currentThread().interrupt();
            return;
        }
        catch (final RuntimeException e)
        {
            onRequestFailed(e, nowMs);
            return;
        }
        if (response == null)
        {
            onRequestFailed(new IllegalStateException("null fetch response"), nowMs);
            return;
        }
        final short version = responseVersion(response, inFlightVersion);
        final Map<TopicPartition, FetchResponseData.PartitionData> data = session.handleResponse(response, version);
        if (data == null)
        {
            consecutiveFailures++;
            final Errors error = response.error();
            final boolean sessionError = error == Errors.FETCH_SESSION_ID_NOT_FOUND ||
                error == Errors.INVALID_FETCH_SESSION_EPOCH;
            // A lost session is normal (eviction, source restart): the next request is a full fetch, sent at
            // once the first time. Anything else, or a repeat, backs off.
            if (!sessionError || consecutiveFailures > 1)
            {
                backoffUntilMs = nowMs + config.backoffMs();
            }
            return;
        }
        consecutiveFailures = 0;
        for (final Map.Entry<TopicPartition, FetchResponseData.PartitionData> entry : data.entrySet())
        {
            final Partition partition = partitions.get(entry.getKey());
            if (partition == null || partition.state != PartitionFetchState.FETCHING)
            {
                continue;
            }
            // What the source's session held for this partition object when it answered: null if the object
            // was added after the request, or left the session with it.
            final FetchRequest.PartitionData sent = partition.sessionData();
            if (sent == null || partition.fetchOffset != sent.fetchOffset || sent.currentLeaderEpoch.isEmpty() ||
                sent.currentLeaderEpoch.get() != partition.currentLeaderEpoch)
            {
                continue;
            }
            handlePartition(partition, entry.getValue(), nowMs);
        }
        confirmPositions(data);
    }

    private void awaitConfirmation(final Partition partition)
    {
        if (!partition.positionUnconfirmed)
        {
            partition.positionUnconfirmed = true;
            unconfirmed.add(partition);
        }
    }

    /**
     * Tells the target of each partition started or truncated since, whose position (fetch offset, last fetched
     * epoch, current leader epoch) this response answered by leaving it out: an incremental response leaves out
     * a partition with nothing new, but never one whose position diverges from the leader's log or fails its
     * epoch check, so the log matches the leader's history up to its end. A partition the response names says
     * the same through {@link FetchTarget#onRecords}. Without this a mirror whose log ends exactly where a new
     * source leader's does would never learn that its log is valid there (hazard 1) until the source appends
     * again, which a source waiting on that very mirror may never do.
     */
    private void confirmPositions(final Map<TopicPartition, FetchResponseData.PartitionData> answered)
    {
        if (unconfirmed.isEmpty())
        {
            return;
        }
        int kept = 0;
        for (int i = 0; i < unconfirmed.size(); i++)
        {
            final Partition partition = unconfirmed.get(i);
            if (!partition.positionUnconfirmed || partitions.get(partition.topicPartition) != partition)
            {
                partition.positionUnconfirmed = false;
                continue;
            }
            final FetchRequest.PartitionData sent = partition.sessionData();
            if (partition.state == PartitionFetchState.FETCHING && partition.currentLeaderEpoch >= 0 &&
                sent != null && sent.equals(partition.requestData()) && !answered.containsKey(partition.topicPartition))
            {
                partition.positionUnconfirmed = false;
                try
                {
                    target.onPositionConfirmed(partition.topicPartition, partition.currentLeaderEpoch);
                }
                catch (final RuntimeException e)
                {
                    LOG.warn("{}: confirming the fetch position failed", partition.topicPartition, e);
                }
                continue;
            }
            unconfirmed.set(kept++, partition);
        }
        unconfirmed.subList(kept, unconfirmed.size()).clear();
    }

    private void handlePartition(final Partition partition, final FetchResponseData.PartitionData data, final long nowMs)
    {
        final Errors error = Errors.forCode(data.errorCode());
        final TopicPartition topicPartition = partition.topicPartition;
        try
        {
            switch (error)
            {
                case NONE:
                    if (FetchResponse.isDivergingEpoch(data))
                    {
                        leaveFetching(partition, PartitionFetchState.TRUNCATING);
                        partition.divergingEpochPending = true;
                        partition.divergingEpoch = data.divergingEpoch().epoch();
                        partition.divergingEndOffset = data.divergingEpoch().endOffset();
                        resolveTruncation(partition, nowMs);
                        return;
                    }
                    final Records records = FetchResponse.recordsOrFail(data);
                    final long newOffset = target.onRecords(
                        topicPartition, records, data.highWatermark(), data.logStartOffset());
                    if (newOffset < 0)
                    {
                        delay(partition, nowMs);
                        return;
                    }
                    partition.positionUnconfirmed = false; // the target heard of this position in onRecords
                    if (records.sizeInBytes() > 0 || newOffset != partition.fetchOffset)
                    {
                        partition.fetchOffset = newOffset;
                        refreshFromLog(partition);
                    }
                    return;
                case OFFSET_OUT_OF_RANGE:
                    leaveFetching(partition, PartitionFetchState.TRUNCATING);
                    partition.divergingEpochPending = false;
                    resolveTruncation(partition, nowMs);
                    return;
                case FENCED_LEADER_EPOCH:
                case NOT_LEADER_OR_FOLLOWER:
                    if (partitions.remove(topicPartition, partition))
                    {
                        session.remove(partition);
                    }
                    target.onPartitionError(topicPartition, error, data);
                    return;
                default:
                    delay(partition, nowMs);
                    target.onPartitionError(topicPartition, error, data);
            }
        }
        catch (final RuntimeException e)
        {
            onTargetFailed(partition, e, nowMs);
        }
    }

    /** Asks the target where to resume after a diverging epoch or an out-of-range offset. */
    private void resolveTruncation(final Partition partition, final long nowMs)
    {
        final long newOffset;
        try
        {
            newOffset = partition.divergingEpochPending ?
                target.onDivergingEpoch(partition.topicPartition, partition.divergingEpoch, partition.divergingEndOffset) :
                target.onOffsetOutOfRange(partition.topicPartition);
        }
        catch (final RuntimeException e)
        {
            partition.delayedUntilMs = nowMs + config.backoffMs();
            reportQuietly(partition.topicPartition, Errors.forException(e));
            return;
        }
        if (newOffset < 0)
        {
            partition.delayedUntilMs = nowMs + config.backoffMs();
            return;
        }
        partition.fetchOffset = newOffset;
        partition.divergingEpochPending = false;
        partition.state = PartitionFetchState.FETCHING;
        refreshFromLog(partition);
        awaitConfirmation(partition);
    }

    private void delay(final Partition partition, final long nowMs)
    {
        leaveFetching(partition, PartitionFetchState.DELAYED);
        partition.delayedUntilMs = nowMs + config.backoffMs();
    }

    private void leaveFetching(final Partition partition, final PartitionFetchState newState)
    {
        if (partition.state == PartitionFetchState.FETCHING)
        {
            notFetching.add(partition);
        }
        partition.state = newState;
        session.changed(partition);
    }

    private void onTargetFailed(final Partition partition, final RuntimeException e, final long nowMs)
    {
        // An unexpected failure of the owner's append or truncation: the error code alone would hide its cause.
        if (Errors.forException(e) == Errors.UNKNOWN_SERVER_ERROR)
        {
            LOG.warn("{}: handling fetched data failed; retrying after {} ms", partition.topicPartition,
                config.backoffMs(), e);
        }
        if (partition.state == PartitionFetchState.FETCHING)
        {
            delay(partition, nowMs);
        }
        else
        {
            partition.delayedUntilMs = nowMs + config.backoffMs();
        }
        reportQuietly(partition.topicPartition, Errors.forException(e));
    }

    private void reportQuietly(final TopicPartition partition, final Errors error)
    {
        try
        {
            target.onPartitionError(partition, error);
        }
        catch (final RuntimeException ignored)
        {
            // The partition is already delayed; a failing error callback must not stop the other partitions.
        }
    }

    private void onRequestFailed(final Throwable cause, final long nowMs)
    {
        session.handleError(cause);
        consecutiveFailures++;
        backoffUntilMs = nowMs + config.backoffMs();
    }

    /**
     * Re-reads what the request carries from the local log (the epoch of its last batch and its start offset),
     * after the fetch offset or state changed, and reports the change to the session.
     */
    private void refreshFromLog(final Partition partition)
    {
        try
        {
            partition.lastFetchedEpoch = target.latestEpoch(partition.topicPartition);
            partition.localLogStartOffset = target.localLogStartOffset(partition.topicPartition);
        }
        catch (final RuntimeException e)
        {
            partition.lastFetchedEpoch = -1;
            partition.localLogStartOffset = -1L;
        }
        partition.requestData = null;
        session.changed(partition);
    }

    /**
     * The version the response was read at: topic ids in it mean v13+, names mean v12 or older; with no topics
     * the version does not change how the response is read.
     */
    private static short responseVersion(final FetchResponse response, final short requested)
    {
        for (final FetchResponseData.FetchableTopicResponse topic : response.data().responses())
        {
            if (!Uuid.ZERO_UUID.equals(topic.topicId()))
            {
                return (short)Math.max(requested, LAST_VERSION_WITHOUT_TOPIC_IDS + 1);
            }
            if (topic.topic() != null && !topic.topic().isEmpty())
            {
                return (short)Math.min(requested, LAST_VERSION_WITHOUT_TOPIC_IDS);
            }
        }
        return requested;
    }
}

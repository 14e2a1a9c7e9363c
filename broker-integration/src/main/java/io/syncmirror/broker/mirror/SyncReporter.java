package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchResponseData;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.replica.Partition;
import io.syncmirror.protocol.MirrorError;
import io.syncmirror.protocol.FetchRequestCodec;
import io.syncmirror.protocol.MirrorReplicaInfo;
import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.WireSecurity;

/**
 * The report connection of one sync mirror fetcher (one mirror, one source broker): it sends each change of its
 * sync partitions' destination replica state (replica LEOs, ISR, MinISR) to the source leader as a report-only
 * Fetch v20 (no partitions, no session, MaxWaitMs 0) carrying MirrorReplicaInfo, on a connection of its own.
 * Thread-safety: {@link #signal}, {@link #track} and {@link #untrack} from any thread; everything else runs on the
 * reporter's own daemon thread.
 *
 * <p>Why a connection of its own (hazard 5): responses on one connection go out in request order, so on the data
 * connection a destination follower's catch-up would wait behind the parked long-poll until new data or its
 * MaxWaitMs. Here a report leaves as soon as a follower's fetch (or the leader's own append) moves a LEO: the
 * partition's leader signals the reporter, which wakes at once.
 *
 * <p>Reports are incremental: a partition goes out only when what it would report changed since it last went out
 * on this connection (hazard 4's "only partitions whose info changed"). The first report on a new connection is a
 * full one (FullReport), after which the source forgets what this mirror reported for any partition it leaves out.
 * A partition answered INVALID_SYNC_REGISTRATION or MIRROR_REGISTRATION_PROPAGATING is retried every
 * {@code retryMs} and its failure recorded on its {@link MirrorPartition} for the coordinator.
 *
 * <p>Reports only on change have one gap: a report the source accepted but did not credit in full (it ignores a
 * report not validated against its current epoch) is never sent again once the destination stops changing, and
 * the source's producers wait for good, with the destination holding every record. So every {@code retryMs}
 * the reporter sends again each partition that was not reported for {@code retryMs}, whose last accepted report
 * had a full reported ISR, and whose source HW (as the fetcher last saw it) is still below the lowest LEO of that
 * ISR: the source could have committed more than it did. A source that is behind for its own reasons (its ISR)
 * costs one small report per partition per interval.
 *
 * <p>Hazard 2: a destination follower enters the reported ISR only once its LEO reached the lowest LEO of the ISR
 * last reported, and the leader's own ISR expansion waits for the highest such LEO sent
 * ({@link Partition#syncIsrJoinFloor(long)}, raised as a report goes out: the source may credit it before it
 * answers), so no replica that lacks an acknowledged record is ever counted.
 */
final class SyncReporter implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(SyncReporter.class);

    /** Longest park when nothing is due: bounds the cost of a lost wake-up (there should be none). */
    private static final long MAX_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private final String mirrorName;
    private final Node node;
    private final String clientId;
    /** The mirror\'s source link security (its client settings), for the report connection. */
    private final WireSecurity security;
    private final int requestTimeoutMs;
    private final long injectedDelayNanos;
    private final long retryMs;
    private final LongSupplier clockMs;
    private final LongConsumer roundTripNanos;
    private final Supplier<Link> linkFactory;
    private final Thread thread;
    private final Map<MirrorPartition, ReportState> tracked = new ConcurrentHashMap<>();
    private final ConcurrentLinkedQueue<ReportState> dirty = new ConcurrentLinkedQueue<>();
    /** Partitions whose last report was refused, to report again at their retry time (reporter thread only). */
    private final Set<ReportState> retrying = new HashSet<>();
    private volatile boolean running = true;
    private Link link;
    private boolean fullReportDue = true;
    /** When the next look for partitions whose source HW stayed behind their reports is due (reporter thread). */
    private long nextRefreshMs = Long.MIN_VALUE;
    /** Partitions sent again by that look (reporter thread; for tests and diagnostics). */
    private long refreshes;
    /**
     * The partitions that look may find behind: those with an accepted report whose source HW had not reached the
     * report's lowest ISR LEO when last looked at (reporter thread). A partition enters with each accepted report
     * and leaves once nothing can be owed until its next one, so an idle mirror whose source caught up costs the look
     * nothing: it walked every tracked partition each {@code retryMs} (6 % of a core for 100k idle partitions).
     */
    private final Set<ReportState> mayBeBehind = new HashSet<>();

    /** What was last reported for one partition, and whether it waits in the dirty queue. */
    private static final class ReportState
    {
        final MirrorPartition mirror;
        /** What the partition runs to signal this reporter; removed only if still this one. */
        Runnable signal;
        final AtomicBoolean queued = new AtomicBoolean();
        /** Replica positions in the reported ISR (hazard 2 decides who joins). */
        int reportedIsrMask;
        /** Lowest LEO over the ISR of the last successful report, -1 before one. */
        long reportedMinLeo = -1L;
        long[] lastLeos = new long[0];
        int lastIsrMask = -1;
        int lastMinIsr = -1;
        int lastLeaderEpoch = -2;
        int lastValidatedEpoch = -2;
        long retryAtMs = Long.MAX_VALUE;
        /** The source accepted a report of this partition on this reporter. */
        boolean accepted;
        /** When the partition last went out in a report, ms on the reporter's clock. */
        long lastSentMs = Long.MIN_VALUE;

        ReportState(final MirrorPartition mirror)
        {
            this.mirror = mirror;
        }
    }

    /** One partition's entry of a report in flight. */
    private record Sent(ReportState state, long minLeo)
    {
    }

    private record Key(Uuid topicId, int partition)
    {
    }

    /** The report connection to the source broker: one report-only fetch at a time, on the reporter's thread. */
    interface Link extends AutoCloseable
    {
        FetchResponseData report(MirrorReplicaInfo info) throws IOException;

        @Override
        void close();
    }

    /**
     * @param injectedDelayNanos emulated one-way delay added before each request and after each response
     *                           ({@code mirror.link.injected.delay.ms}).
     * @param roundTripNanos     receives each report's round trip on this connection (the mirror link's RTT).
     */
    SyncReporter(final String mirrorName, final Node node, final String clientId, final int requestTimeoutMs,
        final long injectedDelayNanos, final long retryMs, final LongSupplier clockMs,
        final LongConsumer roundTripNanos, final WireSecurity security)
    {
        this(mirrorName, node, clientId, retryMs, clockMs, null, injectedDelayNanos, requestTimeoutMs, roundTripNanos,
            security);
    }

    /** With the report connection {@code linkFactory} opens (tests), or the wire client when it is null. */
    SyncReporter(final String mirrorName, final Node node, final String clientId, final long retryMs,
        final LongSupplier clockMs, final Supplier<Link> linkFactory)
    {
        this(mirrorName, node, clientId, retryMs, clockMs, linkFactory, 0L, 30_000, nanos -> { },
            WireSecurity.PLAINTEXT);
    }

    private SyncReporter(final String mirrorName, final Node node, final String clientId, final long retryMs,
        final LongSupplier clockMs, final Supplier<Link> linkFactory, final long injectedDelayNanos,
        final int requestTimeoutMs, final LongConsumer roundTripNanos, final WireSecurity security)
    {
        this.linkFactory = linkFactory != null ? linkFactory : this::wireLink;
        this.security = security;
        this.mirrorName = mirrorName;
        this.node = node;
        this.clientId = clientId;
        this.requestTimeoutMs = requestTimeoutMs;
        this.injectedDelayNanos = injectedDelayNanos;
        this.retryMs = retryMs;
        this.clockMs = clockMs;
        this.roundTripNanos = roundTripNanos;
        this.thread = new Thread(this::run, clientId);
        this.thread.setDaemon(true);
    }

    void start()
    {
        thread.start();
    }

    /** Starts reporting {@code mirror}: its leader's LEO and ISR changes signal this reporter from now on. */
    void track(final MirrorPartition mirror)
    {
        final ReportState state = tracked.computeIfAbsent(mirror, ReportState::new);
        if (state.signal == null)
        {
            state.signal = () -> signal(state);
        }
        mirror.partition.syncReportSignal(state.signal);
        signal(state);
    }

    /**
     * Stops reporting {@code mirror}; its ISR expansion no longer follows a reported floor. When the partition
     * already reports through another reporter (its source leader moved), that reporter's signal and floor stay.
     */
    void untrack(final MirrorPartition mirror)
    {
        final ReportState state = tracked.remove(mirror);
        if (state != null && mirror.partition.clearSyncReportSignal(state.signal))
        {
            mirror.partition.syncIsrJoinFloor(-1L);
        }
    }

    /** Whether any partition is reported through this reporter. */
    boolean isActive()
    {
        return !tracked.isEmpty();
    }

    /** Marks {@code mirror} as changed: a report goes out without waiting. */
    void signal(final MirrorPartition mirror)
    {
        final ReportState state = tracked.get(mirror);
        if (state != null)
        {
            signal(state);
        }
    }

    private void signal(final ReportState state)
    {
        if (state.queued.compareAndSet(false, true))
        {
            dirty.add(state);
        }
        LockSupport.unpark(thread);
    }


    private void run()
    {
        while (running)
        {
            try
            {
                final long waitNanos = reportOnce();
                if (waitNanos > 0 && running)
                {
                    LockSupport.parkNanos(this, Math.min(waitNanos, MAX_IDLE_NANOS));
                }
            }
            catch (final RuntimeException e)
            {
                LOG.warn("Mirror '{}': reporting to source broker {} failed; retrying", mirrorName, node.id(), e);
                closeLink();
                LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(retryMs));
            }
        }
        closeLink();
    }

    /** Sends one report if anything is due; returns how long to wait before the next is useful (0: at once). */
    long reportOnce()
    {
        final long nowMs = clockMs.getAsLong();
        final Set<ReportState> candidates = new LinkedHashSet<>();
        final boolean full = fullReportDue;
        if (full)
        {
            dirty.clear();
            for (final ReportState state : tracked.values())
            {
                state.queued.set(false);
                candidates.add(state);
            }
        }
        else
        {
            ReportState state;
            while ((state = dirty.poll()) != null)
            {
                state.queued.set(false);
                candidates.add(state);
            }
        }
        long nextRetryMs = Long.MAX_VALUE;
        for (final java.util.Iterator<ReportState> it = retrying.iterator(); it.hasNext(); )
        {
            final ReportState state = it.next();
            if (tracked.get(state.mirror) != state)
            {
                it.remove(); // no longer reported here
                continue;
            }
            if (state.retryAtMs <= nowMs)
            {
                candidates.add(state);
            }
            nextRetryMs = Math.min(nextRetryMs, state.retryAtMs);
        }
        final Set<ReportState> refreshing = full ? Set.of() : behindSource(nowMs, candidates);
        candidates.addAll(refreshing);
        if (candidates.isEmpty() && !full)
        {
            final long nextMs = Math.min(nextRetryMs, nextRefreshMs);
            return TimeUnit.MILLISECONDS.toNanos(Math.max(1L, Math.min(nextMs - nowMs,
                TimeUnit.NANOSECONDS.toMillis(MAX_IDLE_NANOS))));
        }
        final Map<Uuid, MirrorReplicaInfo.MirroredTopic> topics = new HashMap<>();
        final Map<Key, Sent> sent = new HashMap<>();
        for (final ReportState state : candidates)
        {
            if (tracked.get(state.mirror) != state)
            {
                continue;
            }
            final MirrorReplicaInfo.MirroredTopicPartition entry = describe(state,
                full || state.retryAtMs <= nowMs || refreshing.contains(state));
            if (entry == null)
            {
                continue;
            }
            state.lastSentMs = nowMs;
            topics.computeIfAbsent(state.mirror.topicId, id -> new MirrorReplicaInfo.MirroredTopic()
                .setTopic(state.mirror.topicPartition.topic()).setTopicId(id)).partitions().add(entry);
            long minLeo = Long.MAX_VALUE;
            for (final MirrorReplicaInfo.ReplicaLastOffset replica : entry.replicaLastOffsets())
            {
                if (entry.isr().contains(replica.replicaId()))
                {
                    minLeo = Math.min(minLeo, replica.lastFetchOffset());
                }
            }
            final long reportedMin = minLeo == Long.MAX_VALUE ? -1L : minLeo;
            sent.put(key(state.mirror.topicId, state.mirror.topicPartition.partition()),
                new Sent(state, reportedMin));
            // Hazard 2: the source may acknowledge up to this report's lowest ISR LEO as soon as the report lands,
            // before its answer comes back; so the floor a follower must reach to join the ISR rises now.
            // (Compared with the partition's floor, which a truncation of its log lowers.)
            if (reportedMin > state.mirror.partition.syncIsrJoinFloor())
            {
                state.mirror.partition.syncIsrJoinFloor(reportedMin);
            }
        }
        if (topics.isEmpty() && !full)
        {
            return 0L;
        }
        final MirrorReplicaInfo info = new MirrorReplicaInfo().setMirrorName(mirrorName).setFullReport(full)
            .setTopics(new ArrayList<>(topics.values()));
        final FetchResponseData response;
        try
        {
            response = send(info);
        }
        catch (final IOException e)
        {
            LOG.debug("Mirror '{}': report to source broker {} failed: {}", mirrorName, node.id(), e.toString());
            closeLink();
            fullReportDue = true;
            return TimeUnit.MILLISECONDS.toNanos(retryMs);
        }
        fullReportDue = false;
        handleResponse(response, sent, clockMs.getAsLong());
        return 0L;
    }

    /**
     * The tracked partitions to report again now although nothing changed (at most once per {@code retryMs}): those
     * not reported for {@code retryMs} whose last accepted report had at least MinISR members and whose source HW
     * is below the lowest LEO of that report's ISR.
     */
    private Set<ReportState> behindSource(final long nowMs, final Set<ReportState> candidates)
    {
        if (nowMs < nextRefreshMs)
        {
            return Set.of();
        }
        nextRefreshMs = nowMs + retryMs;
        Set<ReportState> behind = Set.of();
        for (final java.util.Iterator<ReportState> it = mayBeBehind.iterator(); it.hasNext(); )
        {
            final ReportState state = it.next();
            final long sourceHw = state.mirror.sourceHighWatermark;
            if (tracked.get(state.mirror) != state || !state.accepted || state.reportedMinLeo < 0 ||
                Integer.bitCount(state.reportedIsrMask) < state.lastMinIsr ||
                (sourceHw >= 0 && sourceHw >= state.reportedMinLeo))
            {
                // Nothing is owed until the partition's next accepted report, which puts it back. The source HW
                // only rises on this connection: a new source leader is another reporter's, with a full report.
                it.remove();
                continue;
            }
            if (state.retryAtMs == Long.MAX_VALUE && !candidates.contains(state) &&
                nowMs - state.lastSentMs >= retryMs && sourceHw >= 0)
            {
                if (behind.isEmpty())
                {
                    behind = new HashSet<>();
                }
                behind.add(state);
            }
        }
        if (!behind.isEmpty())
        {
            refreshes += behind.size();
            LOG.debug("Mirror '{}': reporting {} partitions again to source broker {}: their source HW stayed below "
                + "what was reported", mirrorName, behind.size(), node.id());
        }
        return behind;
    }

    /** Partitions sent again because their source HW stayed behind their last report (reporter thread). */
    long refreshes()
    {
        return refreshes;
    }

    /** How many partitions the next look for a source HW behind its reports visits (reporter thread; tests). */
    int mayBeBehind()
    {
        return mayBeBehind.size();
    }

    /**
     * The partition's report entry now, or null when it is not led here or nothing changed since the last one
     * (unless {@code force}).
     */
    private MirrorReplicaInfo.MirroredTopicPartition describe(final ReportState state, final boolean force)
    {
        final Partition partition = state.mirror.partition;
        final Partition.Role role = partition.role();
        if (!role.leader())
        {
            return null;
        }
        final List<Integer> replicas = role.replicas();
        final long[] leos = new long[replicas.size()];
        for (int i = 0; i < leos.length; i++)
        {
            leos[i] = partition.replicaLeo(i);
        }
        final int self = role.replicaIndex(role.leaderId());
        final int gateMask = partition.gateIsrMask() | (self >= 0 ? 1 << self : 0);
        // Hazard 2: a member joins the reported ISR only at or above the lowest LEO last reported.
        int isrMask = 0;
        for (int members = gateMask; members != 0; members &= members - 1)
        {
            final int index = Integer.numberOfTrailingZeros(members);
            if (index >= leos.length || leos[index] < 0)
            {
                continue;
            }
            if ((state.reportedIsrMask & (1 << index)) != 0 || index == self || leos[index] >= state.reportedMinLeo)
            {
                isrMask |= 1 << index;
            }
        }
        final int minIsr = role.minIsr();
        final int leaderEpoch = role.leaderEpoch();
        final int validatedEpoch = state.mirror.validatedSourceEpoch;
        if (!force && isrMask == state.lastIsrMask && minIsr == state.lastMinIsr &&
            leaderEpoch == state.lastLeaderEpoch && validatedEpoch == state.lastValidatedEpoch &&
            java.util.Arrays.equals(leos, state.lastLeos))
        {
            return null;
        }
        if (LOG.isTraceEnabled())
        {
            LOG.trace("Mirror '{}' {}: reporting LEOs {} ISR mask {} (gate {}, last reported {}, floor {}) min ISR {} "
                + "leader epoch {} validated source epoch {}", mirrorName, state.mirror.topicPartition,
                java.util.Arrays.toString(leos), isrMask, gateMask, state.reportedIsrMask, state.reportedMinLeo, minIsr,
                leaderEpoch, validatedEpoch);
        }
        state.lastLeos = leos;
        state.lastIsrMask = isrMask;
        state.lastMinIsr = minIsr;
        state.lastLeaderEpoch = leaderEpoch;
        state.lastValidatedEpoch = validatedEpoch;
        state.reportedIsrMask = isrMask;
        final List<MirrorReplicaInfo.ReplicaLastOffset> offsets = new ArrayList<>(leos.length);
        final List<Integer> isr = new ArrayList<>(Integer.bitCount(isrMask));
        for (int i = 0; i < leos.length; i++)
        {
            if (leos[i] >= 0)
            {
                offsets.add(new MirrorReplicaInfo.ReplicaLastOffset().setReplicaId(replicas.get(i))
                    .setLastFetchOffset(leos[i]));
            }
            if ((isrMask & (1 << i)) != 0)
            {
                isr.add(replicas.get(i));
            }
        }
        return new MirrorReplicaInfo.MirroredTopicPartition().setPartition(state.mirror.topicPartition.partition())
            .setReplicaLastOffsets(offsets).setIsr(isr).setMinIsr(minIsr).setDestinationLeaderEpoch(leaderEpoch)
            .setValidatedSourceEpoch(validatedEpoch);
    }

    private FetchResponseData send(final MirrorReplicaInfo info) throws IOException
    {
        if (link == null)
        {
            link = linkFactory.get();
        }
        return link.report(info);
    }

    /**
     * The report connection over the wire: a report-only fetch (no partitions and no session, answered at once),
     * with the emulated link delay each way, its round trip measured.
     */
    private Link wireLink()
    {
        return new Link()
        {
            private MirrorWireClient client;

            @Override
            public FetchResponseData report(final MirrorReplicaInfo info) throws IOException
            {
                if (client == null)
                {
                    client = MirrorWireClient.connect(node.host(), node.port(), clientId, requestTimeoutMs,
                        requestTimeoutMs, security);
                }
                final FetchRequestData request = new FetchRequestData().setReplicaId(-1).setMaxWaitMs(0)
                    .setMinBytes(0).setMaxBytes(1).setIsolationLevel((byte)0).setSessionId(0).setSessionEpoch(-1)
                    .setRackId("");
                final long startNanos = System.nanoTime();
                sleepNanos(injectedDelayNanos);
                final FetchResponseData response = client.fetch(request, info,
                    FetchRequestCodec.MIRROR_REPLICA_INFO_VERSION);
                sleepNanos(injectedDelayNanos);
                roundTripNanos.accept(System.nanoTime() - startNanos);
                return response;
            }

            @Override
            public void close()
            {
                if (client != null)
                {
                    client.close();
                    client = null;
                }
            }
        };
    }

    private void handleResponse(final FetchResponseData response, final Map<Key, Sent> sent, final long nowMs)
    {
        for (final FetchResponseData.FetchableTopicResponse topic : response.responses())
        {
            for (final FetchResponseData.PartitionData partition : topic.partitions())
            {
                final Sent entry = sent.remove(key(topic.topicId(), partition.partitionIndex()));
                if (entry == null)
                {
                    continue;
                }
                final short code = partition.errorCode();
                final MirrorPartition mirror = entry.state().mirror;
                if (code == MirrorError.INVALID_SYNC_REGISTRATION.code() ||
                    code == MirrorError.MIRROR_REGISTRATION_PROPAGATING.code())
                {
                    if (mirror.syncFailingSinceMs < 0)
                    {
                        // Before any report was accepted this is the registration still on its way (the reports
                        // start as the promotion registers); after, the source released it or a leader is stale.
                        if (entry.state().accepted)
                        {
                            LOG.warn("Mirror '{}' {}: the source answered {} to its sync report; retrying the "
                                + "partition in SYNC mode", mirrorName, mirror.topicPartition, MirrorError.forCode(code));
                        }
                        else
                        {
                            LOG.info("Mirror '{}' {}: the source does not gate on this mirror yet ({}); retrying",
                                mirrorName, mirror.topicPartition, MirrorError.forCode(code));
                        }
                        mirror.syncFailingSinceMs = nowMs;
                    }
                    mirror.syncFailureCode = code;
                    (code == MirrorError.INVALID_SYNC_REGISTRATION.code() ? mirror.syncFailuresInvalid :
                        mirror.syncFailuresPropagating).increment();
                }
                else
                {
                    // Another error (the source leader moved, an unknown topic id): the data fetcher finds the
                    // new leader; report the partition again after the retry interval.
                    LOG.debug("Mirror '{}' {}: sync report answered error code {}", mirrorName, mirror.topicPartition,
                        code);
                }
                entry.state().retryAtMs = nowMs + retryMs;
                retrying.add(entry.state());
            }
        }
        for (final Sent entry : sent.values())
        {
            final MirrorPartition mirror = entry.state().mirror;
            entry.state().retryAtMs = Long.MAX_VALUE;
            retrying.remove(entry.state());
            entry.state().accepted = true;
            entry.state().reportedMinLeo = entry.minLeo();
            mayBeBehind.add(entry.state());
            if (mirror.syncFailingSinceMs >= 0)
            {
                LOG.info("Mirror '{}' {}: the source accepts its sync reports again", mirrorName,
                    mirror.topicPartition);
                mirror.syncFailingSinceMs = -1L;
                mirror.syncFailureCode = 0;
            }
        }
    }

    private static Key key(final Uuid topicId, final int partition)
    {
        return new Key(topicId, partition);
    }

    /** Waits {@code nanos} (the emulated link delay); returns at once for 0. */
    static void sleepNanos(final long nanos)
    {
        if (nanos <= 0)
        {
            return;
        }
        final long deadline = System.nanoTime() + nanos;
        long left;
        while ((left = deadline - System.nanoTime()) > 0)
        {
            LockSupport.parkNanos(left);
        }
    }

    private void closeLink()
    {
        if (link != null)
        {
            link.close();
            link = null;
        }
    }

    @Override
    public void close()
    {
        running = false;
        LockSupport.unpark(thread);
        try
        {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        for (final MirrorPartition mirror : tracked.keySet())
        {
            untrack(mirror);
        }
    }
}

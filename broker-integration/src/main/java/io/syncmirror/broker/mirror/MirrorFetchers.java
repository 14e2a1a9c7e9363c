package io.syncmirror.broker.mirror;

import io.syncmirror.protocol.MirrorWireClient;
import io.syncmirror.protocol.WireSecurity;
import io.syncmirror.protocol.MirrorReplicaInfo;
import io.syncmirror.protocol.FetchRequestCodec;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.errors.NetworkException;
import java.util.function.LongConsumer;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.List;
import java.io.IOException;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.LongSupplier;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Records;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.server.storage.log.UnexpectedAppendOffsetException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.network.BlockingNodeClient;
import io.syncmirror.broker.network.NodeClientConfig;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.fetch.FetchTarget;
import io.syncmirror.fetch.FetchTransport;
import io.syncmirror.fetch.FetcherConfig;
import io.syncmirror.fetch.FetcherEngine;
import io.syncmirror.fetch.FetcherThread;

/**
 * This broker's mirror fetchers (KIP-1279's MirrorFetcherManager): one fetcher thread per (source broker, mirror)
 * (fetcher id 0), each a {@link FetcherEngine} — the engine intra-cluster followers use — sending consumer-type
 * fetches (replica id -1, read_uncommitted: up to the source HW) to the source leader of its partitions, with
 * LastFetchedEpoch from the destination log (which carries the source's epochs) and the source leader epoch
 * learned from FENCED_LEADER_EPOCH. What arrives is appended at the source offsets by
 * {@code Partition.appendMirrored}. Thread-safety: {@link #add}, {@link #remove} and the queries from any thread;
 * the FetchTarget callbacks run on each fetcher's own thread.
 *
 * <p>{@code mirror.replication.throttled.rate} bounds the bytes per second all of this broker's mirror fetchers
 * take: a fetcher that used more than its budget sleeps before its next request.
 *
 * <p>Each fetcher reaches its source node over a {@link BlockingNodeClient}; the package-private constructor
 * takes the transport per source node and the source offsets lookup instead, so that the error handling can be
 * driven without a source cluster.
 */
final class MirrorFetchers implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(MirrorFetchers.class);

    private final int brokerId;
    private final FetcherConfig fetcherConfig;
    private final NodeClientConfig clientConfig;
    private final ByteRateLimiter limiter;
    private final ExecutorService lookups;
    private final LongSupplier clockMs;
    /** The transport to each source node; null for a {@link BlockingNodeClient} per fetcher. */
    private final Function<Node, FetchTransport> transports;
    /** The source's {log start, log end} offsets of a partition, asked after OFFSET_OUT_OF_RANGE (blocking). */
    private final BiFunction<SourceCluster, TopicPartition, long[]> sourceOffsets;
    private final Map<FetcherKey, Fetcher> fetchers = new ConcurrentHashMap<>();
    /** Which fetcher runs each partition. */
    private final Map<TopicPartition, FetcherKey> owners = new ConcurrentHashMap<>();
    /** Emulated one-way delay on the mirror connections ({@code mirror.link.injected.delay.ms}). */
    private volatile long injectedDelayNanos;
    private final List<LongConsumer> linkRoundTripSinks = new CopyOnWriteArrayList<>();
    /** How often a sync partition whose reports the source refuses is reported again. */
    private static final long SYNC_RETRY_MS = 250L;

    private record FetcherKey(String mirror, int sourceNodeId)
    {
    }

    private final class Fetcher implements FetchTarget
    {
        final FetcherKey key;
        /** Null when the transport came from {@link #transports}. */
        final BlockingNodeClient client;
        final FetcherThread thread;
        final SyncReporter reporter;
        final Node node;
        /** The data connection while a partition is sync (fetcher thread only). */
        MirrorWireClient syncClient;
        final SourceCluster source;
        final Map<TopicPartition, MirrorPartition> partitions = new ConcurrentHashMap<>();

        Fetcher(final FetcherKey key, final Node node, final SourceCluster source, final Map<String, String> security)
        {
            this.key = key;
            this.node = node;
            this.source = source;
            final FetchTransport supplied = transports == null ? null : transports.apply(node);
            this.client = supplied == null ? new BlockingNodeClient(node, clientConfig, Time.SYSTEM, security) : null;
            this.reporter = new SyncReporter(key.mirror(), node, "mirror-reporter-" + brokerId + "-" + key.mirror() +
                "-to-" + key.sourceNodeId(), requestTimeoutMs(), injectedDelayNanos, SYNC_RETRY_MS, clockMs,
                MirrorFetchers.this::onLinkRoundTrip, wireSecurity());
            final FetchTransport transport = new FetchTransport()
            {
                @Override
                public CompletableFuture<FetchResponse> send(final FetchRequest.Builder request)
                {
                    try
                    {
                        limiter.awaitBudget();
                        if (reporter.isActive() && supplied == null)
                        {
                            final FetchResponse response = sendSync(request);
                            limiter.consumed(bytesOf(response));
                            return CompletableFuture.completedFuture(response);
                        }
                        closeSyncClient();
                        SyncReporter.sleepNanos(injectedDelayNanos);
                        if (supplied != null)
                        {
                            return supplied.send(request).handle((response, error) ->
                            {
                                if (error != null)
                                {
                                    final Throwable cause = error instanceof CompletionException &&
                                        error.getCause() != null ? error.getCause() : error;
                                    reportFailure(node, cause);
                                    throw new CompletionException(cause);
                                }
                                limiter.consumed(bytesOf(response));
                                return response;
                            });
                        }
                        final FetchResponse response = client.sendAndReceive(request);
                        SyncReporter.sleepNanos(injectedDelayNanos);
                        limiter.consumed(bytesOf(response));
                        return CompletableFuture.completedFuture(response);
                    }
                    catch (final RuntimeException e)
                    {
                        reportFailure(node, e);
                        return CompletableFuture.failedFuture(e);
                    }
                }

                @Override
                public boolean isReady()
                {
                    return supplied == null || supplied.isReady();
                }
            };
            this.thread = new FetcherThread("mirror-fetcher-" + brokerId + "-" + key.mirror() + "-from-" +
                key.sourceNodeId(), new FetcherEngine(fetcherConfig, key.sourceNodeId(), transport, this), clockMs);
            this.reporter.start();
        }

        /** The source link's security; plaintext for a fetcher a test built without a source cluster. */
        private WireSecurity wireSecurity()
        {
            return source == null ? WireSecurity.PLAINTEXT : source.wireSecurity();
        }

        /**
         * A fetch while any partition of this fetcher is sync: Fetch v20 carrying MirrorReplicaInfo with the mirror
         * name (its registered partitions are read up to the source LEO, hazard 4), over the wire client, since
         * kafka-clients' network client stops at v18. The replica state itself goes on the reporter's connection.
         */
        private FetchResponse sendSync(final FetchRequest.Builder request)
        {
            try
            {
                if (syncClient == null)
                {
                    syncClient = MirrorWireClient.connect(node.host(), node.port(), "mirror-fetcher-" + brokerId,
                        requestTimeoutMs(), requestTimeoutMs() + fetcherConfig.maxWaitMs(), wireSecurity());
                }
                final FetchRequestData data = request.build(request.latestAllowedVersion()).data();
                SyncReporter.sleepNanos(injectedDelayNanos);
                final FetchResponseData response = syncClient.fetch(data,
                    new MirrorReplicaInfo().setMirrorName(key.mirror()), FetchRequestCodec.MIRROR_REPLICA_INFO_VERSION);
                SyncReporter.sleepNanos(injectedDelayNanos);
                return FetchResponse.of(response);
            }
            catch (final IOException e)
            {
                closeSyncClient();
                throw new NetworkException("sync fetch to source broker " + node.id() + " failed: " + e.getMessage(),
                    e);
            }
        }

        private void closeSyncClient()
        {
            if (syncClient != null)
            {
                syncClient.close();
                syncClient = null;
            }
        }

        @Override
        public long onRecords(final TopicPartition tp, final Records records, final long highWatermark,
            final long logStartOffset)
        {
            final MirrorPartition mirror = partitions.get(tp);
            if (mirror == null)
            {
                return RETRY_LATER;
            }
            final MemoryRecords memory = records instanceof MemoryRecords m ? m : MemoryRecords.EMPTY;
            long leo;
            try
            {
                leo = mirror.partition.appendMirrored(memory, highWatermark, logStartOffset);
            }
            catch (final UnexpectedAppendOffsetException e)
            {
                // The source log start lies inside the first batch (DeleteRecords to a mid-batch offset) and this
                // empty log was restarted at it: restart it at the batch's first offset, as Kafka's followers do.
                final PartitionLog log = mirror.partition.log();
                if (log.logEndOffset() != log.logStartOffset() || e.firstOffset >= log.logEndOffset() ||
                    e.lastOffset < log.logEndOffset())
                {
                    throw e;
                }
                LOG.info("Mirror '{}' {}: the source log start {} is inside a batch; restarting the log at {}",
                    key.mirror(), tp, log.logEndOffset(), e.firstOffset);
                if (mirror.partition.truncateAsMirrorLeader(e.firstOffset, true, clockMs.getAsLong(), true) < 0)
                {
                    return RETRY_LATER;
                }
                leo = mirror.partition.appendMirrored(memory, highWatermark, logStartOffset);
            }
            if (leo < 0)
            {
                return RETRY_LATER;
            }
            mirror.sourceHighWatermark = highWatermark;
            mirror.clearError();
            final int validated = mirror.sourceLeaderEpoch;
            if (mirror.validatedSourceEpoch != validated)
            {
                // The log now matches this source leader's: a report may be credited there (hazard 1).
                mirror.validatedSourceEpoch = validated;
                reporter.signal(mirror);
            }
            return leo;
        }

        @Override
        public void onPositionConfirmed(final TopicPartition tp, final int leaderEpoch)
        {
            final MirrorPartition mirror = partitions.get(tp);
            if (mirror != null && mirror.sourceLeaderEpoch == leaderEpoch && mirror.validatedSourceEpoch != leaderEpoch)
            {
                // The log ends exactly where this source leader's does (after a truncation, typically): nothing new
                // came, but nothing diverges, so a report may be credited (hazard 1). Waiting for records instead
                // could wait for good: the source appends nothing while its producers wait on this mirror's ack.
                mirror.validatedSourceEpoch = leaderEpoch;
                reporter.signal(mirror);
            }
        }

        @Override
        public long onDivergingEpoch(final TopicPartition tp, final int epoch, final long endOffset)
        {
            final MirrorPartition mirror = partitions.get(tp);
            if (mirror == null)
            {
                return RETRY_LATER;
            }
            final PartitionLog log = mirror.partition.log();
            long truncateTo;
            if (epoch < 0 || endOffset < 0)
            {
                truncateTo = log.highWatermark();
            }
            else
            {
                truncateTo = endOffset;
                final Optional<PartitionLog.EpochEndOffset> ours = log.endOffsetForEpoch(epoch);
                if (ours.isPresent())
                {
                    truncateTo = Math.min(truncateTo, ours.get().endOffset());
                }
            }
            // The source's history differs from what was mirrored: a source unclean election (KIP-1279 does not
            // keep data through one) or, failing back, the second phase of the alignment.
            LOG.warn("Mirror '{}' {}: the source's epoch {} ends at {}; truncating from {} to {}", key.mirror(), tp,
                epoch, endOffset, log.logEndOffset(), truncateTo);
            return mirror.partition.truncateAsMirrorLeader(truncateTo, false, clockMs.getAsLong(), true);
        }

        @Override
        public long onOffsetOutOfRange(final TopicPartition tp)
        {
            final MirrorPartition mirror = partitions.get(tp);
            if (mirror == null)
            {
                return RETRY_LATER;
            }
            final long[] offsets = mirror.outOfRangeOffsets;
            if (offsets == null)
            {
                if (!mirror.outOfRangeLookupRunning)
                {
                    mirror.outOfRangeLookupRunning = true;
                    lookups.execute(() ->
                    {
                        try
                        {
                            mirror.outOfRangeOffsets = sourceOffsets.apply(source, tp);
                        }
                        catch (final RuntimeException e)
                        {
                            mirror.error(Errors.forException(e), e.getMessage());
                        }
                        finally
                        {
                            mirror.outOfRangeLookupRunning = false;
                        }
                    });
                }
                return RETRY_LATER; // the engine asks again after its backoff
            }
            mirror.outOfRangeOffsets = null;
            final long leo = mirror.partition.log().logEndOffset();
            final long sourceStart = offsets[0];
            final long sourceEnd = offsets[1];
            if (leo < sourceStart)
            {
                // Retention at the source deleted what was not mirrored yet: start over at its log start (async
                // topics only; KIP-1279's rule).
                LOG.warn("Mirror '{}' {}: offset {} is below the source log start {}; restarting the log there",
                    key.mirror(), tp, leo, sourceStart);
                return mirror.partition.truncateAsMirrorLeader(sourceStart, true, clockMs.getAsLong(), true);
            }
            if (leo > sourceEnd)
            {
                LOG.warn("Mirror '{}' {}: offset {} is above the source log end {}; truncating to it", key.mirror(),
                    tp, leo, sourceEnd);
                return mirror.partition.truncateAsMirrorLeader(sourceEnd, false, clockMs.getAsLong(), true);
            }
            // In range: the source's log moved meanwhile, or it knows no end for this log's last epoch. Fetch
            // again, and show why in case it repeats.
            mirror.error(Errors.OFFSET_OUT_OF_RANGE, "the source answered OFFSET_OUT_OF_RANGE for offset " + leo +
                " inside its range [" + sourceStart + ", " + sourceEnd + "]");
            return leo;
        }

        @Override
        public void onPartitionError(final TopicPartition tp, final Errors error)
        {
            onPartitionError(tp, error, null);
        }

        @Override
        public void onPartitionError(final TopicPartition tp, final Errors error,
            final FetchResponseData.PartitionData data)
        {
            final MirrorPartition mirror = partitions.get(tp);
            if (mirror == null)
            {
                return;
            }
            switch (error)
            {
                case FENCED_LEADER_EPOCH:
                {
                    // KIP-1279: the fetcher starts with an unknown source epoch and learns it from the fence.
                    final int epoch = data == null || data.currentLeader() == null ? -1 :
                        data.currentLeader().leaderEpoch();
                    if (epoch > mirror.sourceLeaderEpoch &&
                        (data.currentLeader().leaderId() < 0 || data.currentLeader().leaderId() == key.sourceNodeId()))
                    {
                        mirror.sourceLeaderEpoch = epoch;
                        thread.engine().addPartition(new TopicIdPartition(mirror.topicId, tp),
                            mirror.partition.log().logEndOffset(), epoch);
                        return;
                    }
                    moveLeader(mirror, tp, error);
                    return;
                }
                case NOT_LEADER_OR_FOLLOWER:
                    moveLeader(mirror, tp, error);
                    return;
                case OFFSET_MOVED_TO_TIERED_STORAGE:
                    // KIP-1279: tiered storage is not mirrored; the partition moves to FAILED.
                    partitions.remove(tp, mirror);
                    owners.remove(tp, key);
                    thread.engine().removePartition(tp);
                    mirror.error(error, "the source moved offset " + mirror.partition.log().logEndOffset() +
                        " to tiered storage, which mirroring does not support");
                    mirror.fatalError = error;
                    turnedOver.accept(mirror);
                    return;
                default:
                    mirror.error(error, "source fetch error " + error.name() + ": " + error.message());
            }
        }

        /**
         * A request to the source node failed: every partition of this fetcher shows why, and the coordinator asks
         * the source for its leader again (a crashed source broker answers nothing, so no NOT_LEADER_OR_FOLLOWER
         * would ever move the partition).
         */
        private void reportFailure(final Node node, final Throwable cause)
        {
            for (final MirrorPartition partition : partitions.values())
            {
                partition.error(Errors.forException(cause), "source broker " + node.id() + " (" + node.host() + ":" +
                    node.port() + "): " + cause.getMessage());
                partition.leaderLookupNeeded = true;
                turnedOver.accept(partition);
            }
        }

        /** The source leader moved: the coordinator looks it up again and hands the partition to its fetcher. */
        private void moveLeader(final MirrorPartition mirror, final TopicPartition tp, final Errors error)
        {
            partitions.remove(tp, mirror);
            owners.remove(tp, key);
            // Off this fetcher whole: its engine and its reporter. A reporter still tracking a moved partition
            // would report it to the old leader and, once closed as idle, unhook the new reporter's signal, so
            // that the new source leader never heard of the destination's progress again (its HW stuck).
            reporter.untrack(mirror);
            thread.engine().removePartition(tp);
            // The error first: whoever sees the lookup flag (volatile) also sees why.
            mirror.error(error, "source leader moved (" + error.name() + ")");
            mirror.fetching = false;
            mirror.leaderLookupNeeded = true;
            turnedOver.accept(mirror);
        }

        @Override
        public long logEndOffset(final TopicPartition tp)
        {
            final MirrorPartition mirror = partitions.get(tp);
            return mirror == null ? -1L : mirror.partition.log().logEndOffset();
        }

        @Override
        public int latestEpoch(final TopicPartition tp)
        {
            // The epoch of the last batch, not the cache's latest: a log that led on this cluster (the old source
            // failing back) has its last leadership's epoch in the cache with no batch of it. Sent as
            // LastFetchedEpoch, an epoch the source never had would find no end offset there.
            final MirrorPartition mirror = partitions.get(tp);
            if (mirror == null)
            {
                return -1;
            }
            final PartitionLog log = mirror.partition.log();
            final long leo = log.logEndOffset();
            return leo == 0 ? -1 : log.epochForOffset(leo - 1).orElse(-1);
        }
    }

    /** Changes of a partition's {@code syncReporting} so far (a sync tick redoes its per-partition work after one). */
    private final java.util.concurrent.atomic.AtomicLong syncReportingChanges =
        new java.util.concurrent.atomic.AtomicLong();

    /** How many times a partition's {@code syncReporting} changed so far. */
    long syncReportingChanges()
    {
        return syncReportingChanges.get();
    }

    /**
     * Told of each partition whose fetcher turned it over to the coordinator (its leader moved or is unreachable, a
     * fatal error, it stopped fetching): the coordinator steps only such partitions between its sweeps.
     */
    private volatile java.util.function.Consumer<MirrorPartition> turnedOver = mirror -> { };

    /** Sets who is told of partitions turned over to the coordinator (see {@link #turnedOver}). */
    void onTurnedOver(final java.util.function.Consumer<MirrorPartition> listener)
    {
        this.turnedOver = Objects.requireNonNull(listener, "listener");
    }

    MirrorFetchers(final int brokerId, final FetcherConfig fetcherConfig, final NodeClientConfig clientConfig,
        final long throttledRateBytesPerSec, final ExecutorService lookups, final LongSupplier clockMs)
    {
        this(brokerId, fetcherConfig, clientConfig, throttledRateBytesPerSec, lookups, clockMs, null,
            SourceCluster::offsets);
    }

    /**
     * Fetchers whose requests go over {@code transports} (one transport per source node, asked once per fetcher)
     * and whose OFFSET_OUT_OF_RANGE handling asks {@code sourceOffsets} (on {@code lookups}) for the source's
     * {log start, log end} offsets.
     */
    MirrorFetchers(final int brokerId, final FetcherConfig fetcherConfig, final long throttledRateBytesPerSec,
        final ExecutorService lookups, final LongSupplier clockMs, final Function<Node, FetchTransport> transports,
        final BiFunction<SourceCluster, TopicPartition, long[]> sourceOffsets)
    {
        this(brokerId, fetcherConfig, null, throttledRateBytesPerSec, lookups, clockMs,
            Objects.requireNonNull(transports, "transports"), sourceOffsets);
    }

    private MirrorFetchers(final int brokerId, final FetcherConfig fetcherConfig, final NodeClientConfig clientConfig,
        final long throttledRateBytesPerSec, final ExecutorService lookups, final LongSupplier clockMs,
        final Function<Node, FetchTransport> transports,
        final BiFunction<SourceCluster, TopicPartition, long[]> sourceOffsets)
    {
        this.brokerId = brokerId;
        this.fetcherConfig = fetcherConfig;
        this.clientConfig = clientConfig;
        this.limiter = new ByteRateLimiter(throttledRateBytesPerSec, clockMs);
        this.lookups = lookups;
        this.clockMs = clockMs;
        this.transports = transports;
        this.sourceOffsets = sourceOffsets;
    }

    /** Starts fetching a partition from {@code sourceLeader} at the destination LEO; moves it if fetched elsewhere. */
    void add(final MirrorPartition mirror, final SourceCluster source, final Node sourceLeader,
        final Map<String, String> security)
    {
        final FetcherKey key = new FetcherKey(mirror.mirrorName, sourceLeader.id());
        remove(mirror.topicPartition);
        final Fetcher fetcher = fetchers.computeIfAbsent(key, k ->
        {
            final Fetcher created = new Fetcher(k, sourceLeader, source, security);
            created.thread.start();
            return created;
        });
        fetcher.partitions.put(mirror.topicPartition, mirror);
        owners.put(mirror.topicPartition, key);
        mirror.sourceLeaderId = sourceLeader.id();
        mirror.fetching = true;
        if (mirror.syncReporting)
        {
            fetcher.reporter.track(mirror);
        }
        fetcher.thread.engine().addPartition(new TopicIdPartition(mirror.topicId, mirror.topicPartition),
            mirror.partition.log().logEndOffset(), mirror.sourceLeaderEpoch);
    }

    /** Stops fetching a partition; a response in flight for it is dropped by its fetcher. */
    void remove(final TopicPartition partition)
    {
        final FetcherKey key = owners.remove(partition);
        if (key == null)
        {
            return;
        }
        final Fetcher fetcher = fetchers.get(key);
        if (fetcher != null)
        {
            final MirrorPartition mirror = fetcher.partitions.remove(partition);
            if (mirror != null)
            {
                mirror.fetching = false;
                fetcher.reporter.untrack(mirror);
                turnedOver.accept(mirror);
            }
            fetcher.thread.engine().removePartition(partition);
        }
    }

    /**
     * Sets whether {@code mirror}'s fetcher reports it to the source (MirrorReplicaInfo); on a change the fetcher
     * starts or stops its reports and sends its next fetch in the new mode at once. Coordinator thread.
     */
    void syncReporting(final MirrorPartition mirror, final boolean reporting)
    {
        if (mirror.syncReporting != reporting)
        {
            syncReportingChanges.incrementAndGet();
            mirror.syncReporting = reporting;
            syncReportingChanged(mirror);
        }
    }

    /**
     * {@code mirror.syncReporting} changed: its fetcher starts (or stops) reporting it to the source, and its next
     * fetch goes out at once in the new mode.
     */
    void syncReportingChanged(final MirrorPartition mirror)
    {
        final FetcherKey key = owners.get(mirror.topicPartition);
        final Fetcher fetcher = key == null ? null : fetchers.get(key);
        if (fetcher == null || fetcher.partitions.get(mirror.topicPartition) != mirror)
        {
            return;
        }
        if (mirror.syncReporting)
        {
            fetcher.reporter.track(mirror);
        }
        else
        {
            fetcher.reporter.untrack(mirror);
        }
        fetcher.thread.engine().wakeup();
    }

    /**
     * Sets the emulated one-way delay ({@code mirror.link.injected.delay.ms}) added before each request to a source
     * broker and after each response; fetchers started from now on use it.
     */
    void injectedDelayNanos(final long nanos)
    {
        this.injectedDelayNanos = Math.max(0L, nanos);
    }

    /** Adds a receiver of each mirror link round trip (ns) measured on the report connections. */
    void linkRoundTrips(final LongConsumer sink)
    {
        linkRoundTripSinks.add(sink);
    }

    private void onLinkRoundTrip(final long nanos)
    {
        for (final LongConsumer sink : linkRoundTripSinks)
        {
            sink.accept(nanos);
        }
    }

    private int requestTimeoutMs()
    {
        return clientConfig == null ? 30_000 : clientConfig.requestTimeoutMs();
    }

    /** Stops the fetchers with no partition left (a mirror deleted, a source leader that lost every partition). */
    void shutdownIdleFetchers()
    {
        for (final Map.Entry<FetcherKey, Fetcher> entry : fetchers.entrySet())
        {
            final Fetcher fetcher = entry.getValue();
            if (fetcher.partitions.isEmpty() && fetchers.remove(entry.getKey(), fetcher))
            {
                stop(fetcher);
            }
        }
    }

    /** Fetcher threads that died (the dead-thread count metric); a healthy broker has none. */
    int deadThreadCount()
    {
        int dead = 0;
        for (final Fetcher fetcher : fetchers.values())
        {
            if (!fetcher.thread.isAlive())
            {
                dead++;
            }
        }
        return dead;
    }

    int fetcherCount()
    {
        return fetchers.size();
    }

    private static void stop(final Fetcher fetcher)
    {
        fetcher.reporter.close();
        if (fetcher.client != null)
        {
            fetcher.client.close();
        }
        fetcher.thread.close();
        fetcher.closeSyncClient();
        if (fetcher.client != null)
        {
            fetcher.client.release();
        }
    }

    private static long bytesOf(final FetchResponse response)
    {
        long bytes = 0;
        for (final FetchResponseData.FetchableTopicResponse topic : response.data().responses())
        {
            for (final FetchResponseData.PartitionData partition : topic.partitions())
            {
                if (partition.records() != null)
                {
                    bytes += partition.records().sizeInBytes();
                }
            }
        }
        return bytes;
    }

    @Override
    public void close()
    {
        for (final Fetcher fetcher : fetchers.values())
        {
            stop(fetcher);
        }
        fetchers.clear();
        owners.clear();
    }
}

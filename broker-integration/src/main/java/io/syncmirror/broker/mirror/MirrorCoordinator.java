package io.syncmirror.broker.mirror;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.SyncCommitFence;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.mirror.sync.RejectReason;
import io.syncmirror.broker.mirror.sync.RemotePartition;
import io.syncmirror.broker.mirror.sync.SyncControl;
import io.syncmirror.broker.mirror.sync.SyncPartition;
import io.syncmirror.broker.network.NodeClientConfig;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.fetch.FetcherConfig;
import io.syncmirror.protocol.MirrorType;

/**
 * The mirror coordinator of this destination broker: for every mirror partition whose destination partition this
 * broker leads, it drives KIP-1279's partition lifecycle (UNKNOWN, PREPARING, MIRRORING, STOPPING, STOPPED,
 * FAILED), persists each transition in {@code __mirror_state} and runs the mirror fetchers. Coordination sits
 * with the destination partition's leader, where the fetcher and the log are, so no coordinator-to-leader RPC is
 * needed; a leadership change moves it, and the new leader rebuilds the partition's state from
 * {@code __mirror_state}.
 *
 * <p>Threads: one daemon thread ({@code mirror-coordinator-<broker>}) runs {@link #tick} every
 * {@code mirror.coordinator.tick.ms} and at once after {@link #wakeup()} (a metadata change). Its lifecycle and
 * failover calls to the source, the controller and {@code __mirror_state} block for at most the mirror request
 * timeout, so one unreachable source delays, but never stops, the others. The mirror fetchers run on their own
 * threads. The queries may be called from any thread.
 *
 * <p>Its parts, each on this thread: {@link CoordinatedPartitions} (which partitions are led here, loaded from and
 * let go to {@code __mirror_state}), {@link MirrorFetchStarts} (PREPARING and MIRRORING: alignment, fetch starts
 * and source leader moves), {@link MirrorFailover} (STOPPING), {@link MirrorStateWrites} (the state writes),
 * {@link MirrorSources} (the source clients) and {@link SyncControl} (below).
 *
 * <p>Synchronous mirroring, control path. The desired mirror type of a topic is persisted on each of its
 * partitions' records (an operator's AlterMirrorTopicType, applied on this thread through
 * {@link #setDesiredMirrorType}); the effective type is the metadata image's ({@code MirrorTopicTypeChange}).
 * Promotion, topic-wide demotion, the Unregisters owed to the source and which partitions report are the
 * {@link SyncControl}'s, stepped by each tick for every topic with partitions coordinated here; its requests run
 * on their own thread ({@link ChannelSyncLinks}), so a slow source delays no tick. A partition that stops
 * (failover) unregisters its topic first, before its fetcher is removed, goes on when the source cannot be
 * reached, and clears the topic's desired and effective types.
 */
public final class MirrorCoordinator implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(MirrorCoordinator.class);

    /** The controller operations a failover needs (in-process on the controller node, over the wire elsewhere). */
    public interface ControllerChannel
    {
        /**
         * Sets each partition's leader epoch to at least its minimum (and above its current one) and raises the
         * cluster's producer id floor to {@code minNextProducerId} (ignored when negative); blocking, bounded.
         */
        void bumpLeaderEpochs(Uuid topicId, Map<Integer, Integer> minLeaderEpochs, long minNextProducerId)
            throws Exception;
    }

    /**
     * Completes with the first metadata image {@code condition} holds for, once this broker's partitions follow it
     * (the broker's {@code BrokerMetadataApplier.await}).
     */
    @FunctionalInterface
    public interface MetadataWaiter
    {
        CompletableFuture<MetadataImage> await(java.util.function.Predicate<MetadataImage> condition);
    }

    /** Asks a mirror's source for a partition's last mirrored offset and epoch (failback's first phase). */
    public interface LastMirroredLookup
    {
        /**
         * {lastMirroredOffset, lastMirrorEpoch} as the source recorded them when it failed over from this cluster,
         * or empty when the source cannot tell (it does not serve LastMirroredOffsets, or has no record of the
         * partition). Throws when the source cannot be reached.
         */
        Optional<long[]> lastMirrored(SourceCluster source, Node sourceLeader, String topic, Uuid topicId,
            int partition) throws Exception;
    }

    /**
     * The control-path links of synchronous mirroring: to this cluster's controller, to the other brokers (the
     * describe fan-out) and to a mirror's source (over the mirror wire protocol). Implementations block for at
     * most the mirror request timeout.
     */
    public interface SyncChannel
    {
        /**
         * Commits a topic's effective mirror type (MirrorTopicTypeChange) at the controller, numbered by the
         * topic's sync driver ({@code SyncCommitFence}, -1 for none); throws when it cannot.
         */
        void commitMirrorType(Uuid topicId, byte mirrorType, long driverEpoch) throws Exception;

        /**
         * The mirror's partitions led by other brokers, by topic id, as their leaders describe them now (absent:
         * not reported). One call answers for every topic of the mirror: a tick asks once, not once per topic.
         */
        Map<Uuid, Map<Integer, RemotePartition>> remotePartitions(String mirrorName) throws Exception;

        /** Sends a sync registration RPC to the mirror's source cluster; IOException when it cannot. */
        <T extends ApiMessage> T sendToSource(SourceCluster source, ApiMessage request, Class<T> type)
            throws IOException;
    }

    /**
     * @param tickMs             how often the coordinator looks at every partition ({@code mirror.coordinator.tick.ms})
     * @param retryBackoffMs     first wait before a FAILED partition is retried; doubles per attempt
     * @param retryBackoffMaxMs  the backoff's ceiling
     * @param requestTimeoutMs   bound of each call to the source, the controller or {@code __mirror_state}
     * @param throttledRateBytesPerSec {@code mirror.replication.throttled.rate}, Long.MAX_VALUE for none
     */
    public record Config(long tickMs, long retryBackoffMs, long retryBackoffMaxMs, long requestTimeoutMs,
        long throttledRateBytesPerSec, FetcherConfig fetcherConfig, NodeClientConfig clientConfig)
    {
    }

    private final int brokerId;
    private final ReplicaManager replicas;
    private final Supplier<MetadataImage> image;
    private final MirrorStateStore store;
    private final ControllerChannel controller;
    private final LastMirroredLookup lastMirrored;
    private final Config config;
    private final LongSupplier clockMs;
    /** When the current tick began ({@link System#nanoTime()}); coordinator thread. */
    private long tickStartNanos;
    /** Ticks so far; a walk marks each partition it finds led with it (coordinator thread). */
    private long tickNumber;
    /** The image and partition-change count of the last walk over the image's topics (coordinator thread). */
    private MetadataImage walkedImage;
    private long walkedPartitionChanges;
    /** The last walk could not load a partition's state: walk again at the next tick. */
    private boolean walkDue;
    /** Which coordinated partitions a tick steps between sweeps (coordinator thread, fetchers add). */
    private final UnsettledPartitions unsettled = new UnsettledPartitions();
    /** A command ran since the last sweep: it may have changed or loaded any partition, so the next tick sweeps. */
    private boolean sweepDue = true;
    /** The coordinated partitions grouped by topic id as of {@link #coordinatedCountGrouped} changes (sync tick). */
    private Map<Uuid, List<MirrorPartition>> coordinatedByTopic;
    private long coordinatedCountGrouped = -1L;
    /** The record and reporting changes as of the last sync tick (coordinator thread). */
    private long syncTickChanges = -1L;
    private final MirrorFetchers fetchers;
    private final ExecutorService lookups;
    /** Source leader lookups of partitions that are being fetched (their source broker stopped answering). */
    private final ExecutorService leaderLookups;
    private final MirrorSources sources;
    /** The mirror partitions this broker leads and coordinates; coordinator thread writes, queries read. */
    private final CoordinatedPartitions partitions;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signal = lock.newCondition();
    private boolean signalled;
    private volatile boolean closed;
    private final Thread thread;
    private final MirrorStateWrites stateWrites;
    private final MirrorFailover failover;
    private final MirrorFetchStarts fetchStarts;

    // Synchronous mirroring.
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    /** Runs the sync control's blocking requests, one at a time in the order made. */
    private final ExecutorService syncRequests;
    private final ChannelSyncLinks syncLinks;
    /** Promotion, demotion, Unregisters and reporting of the topics coordinated here (coordinator thread). */
    private final SyncControl syncControl;
    private volatile short syncVersion = 1;

    public MirrorCoordinator(final int brokerId, final ReplicaManager replicas, final Supplier<MetadataImage> image,
        final MetadataWaiter metadataWaiter, final MirrorStateStore store, final ControllerChannel controller,
        final LastMirroredLookup lastMirrored, final Function<MirrorDefinition, SourceCluster> sourceFactory,
        final Config config, final LongSupplier clockMs)
    {
        this.brokerId = brokerId;
        this.replicas = replicas;
        this.image = image;
        this.store = store;
        this.controller = controller;
        this.lastMirrored = lastMirrored;
        this.sources = new MirrorSources(sourceFactory);
        this.config = config;
        this.clockMs = clockMs;
        this.lookups = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "mirror-offset-lookups-" + brokerId);
            t.setDaemon(true);
            return t;
        });
        this.leaderLookups = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "mirror-leader-lookups-" + brokerId);
            t.setDaemon(true);
            return t;
        });
        this.fetchers = new MirrorFetchers(brokerId, config.fetcherConfig(), config.clientConfig(),
            config.throttledRateBytesPerSec(), lookups, clockMs);
        fetchers.onTurnedOver(unsettled::turnedOver);
        this.partitions = new CoordinatedPartitions(brokerId, replicas, store, fetchers);
        this.stateWrites = new MirrorStateWrites(store, config.retryBackoffMs(), config.retryBackoffMaxMs(), clockMs,
            this::wakeup);
        this.thread = new Thread(this::run, "mirror-coordinator-" + brokerId);
        this.thread.setDaemon(true);
        this.syncRequests = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "mirror-sync-requests-" + brokerId);
            t.setDaemon(true);
            return t;
        });
        this.syncLinks = new ChannelSyncLinks(brokerId, sources::source);
        this.syncControl = new SyncControl(new CoordinatorSyncHost(stateWrites, fetchers, this::wakeup), syncLinks,
            config.retryBackoffMs(), config.retryBackoffMaxMs());
        this.fetchStarts = new MirrorFetchStarts(fetchers, stateWrites, lastMirrored, leaderLookups, sources::source,
            sources::securityConfigs, () -> tickStartNanos, clockMs, this::wakeup);
        this.failover = new MirrorFailover(brokerId, fetchers, controller, stateWrites, syncControl, syncLinks, image,
            metadataWaiter, config.requestTimeoutMs(), clockMs);
    }

    /**
     * Applies the broker's synchronous-mirroring settings: {@code mirror.sync.version} (0 disables sync: as a
     * source this broker answers a Register MIRROR_SYNC_VERSION_MISMATCH) and
     * {@code mirror.sync.topic.demote.timeout.ms}. Any thread; a feature-level change may call it again.
     */
    public void configureSync(final short syncVersionLevel, final long demoteTimeoutMs)
    {
        if (syncVersionLevel < 0 || demoteTimeoutMs < 0)
        {
            throw new IllegalArgumentException("mirror.sync.version " + syncVersionLevel +
                " and mirror.sync.topic.demote.timeout.ms " + demoteTimeoutMs + " must not be negative");
        }
        this.syncVersion = syncVersionLevel;
        syncControl.demoteTimeoutMs(demoteTimeoutMs);
    }

    /** The finalized {@code mirror.sync.version} level of this broker; 0: it cannot gate produces on a mirror. */
    public short syncVersion()
    {
        return syncVersion;
    }

    /** Installs the sync control-path links (the mirror RPC handler does, once it exists). Any thread. */
    public void syncChannel(final SyncChannel channel)
    {
        syncLinks.channel(channel, syncRequests);
    }

    /** Installs the links with their blocking calls run on {@code executor} (tests: on the calling thread). */
    void syncChannel(final SyncChannel channel, final java.util.concurrent.Executor executor)
    {
        syncLinks.channel(channel, executor);
    }

    public void start()
    {
        thread.start();
    }

    /** Makes the coordinator look at every partition now (metadata changed). Any thread. */
    public void wakeup()
    {
        lock.lock();
        try
        {
            signalled = true;
            signal.signalAll();
        }
        finally
        {
            lock.unlock();
        }
    }

    /** The state loader of the commands {@link #runCommands} is running; null between them. Coordinator thread. */
    private CoordinatedPartitions.StateLoader commandLoader;

    private void run()
    {
        while (!closed)
        {
            try
            {
                tick();
            }
            catch (final RuntimeException e)
            {
                if (closed)
                {
                    return; // close woke a read of the state store (WakeupException): not an error
                }
                LOG.error("Mirror coordinator of broker {}: unexpected error; continuing", brokerId, e);
            }
            lock.lock();
            try
            {
                if (!signalled && !closed)
                {
                    signal.awaitNanos(config.tickMs() * 1_000_000L);
                }
                signalled = false;
            }
            catch (final InterruptedException e)
            {
                return;
            }
            finally
            {
                lock.unlock();
            }
        }
    }

    /**
     * One step of every mirror partition this broker leads. Coordinator thread (tests may call it directly). Which
     * partitions those are changes only with the topics in the metadata image or with a partition's role here, so
     * the image's topics are walked only then (or after a partition's state could not be loaded); otherwise the tick
     * steps the partitions it coordinates. At 100k partitions the walk, not the steps, was most of a tick. Between
     * sweeps (a walk, a command run, every {@link UnsettledPartitions#SWEEP_EVERY_TICKS} ticks) it steps only the
     * partitions whose step may do something ({@link UnsettledPartitions}): an idle tick costs what changed.
     */
    void tick()
    {
        tickStartNanos = System.nanoTime();
        tickNumber++;
        runCommands();
        final MetadataImage current = image.get();
        sources.refresh(current);
        // Read before the walk: a change applied during it shows as a new count at the next tick.
        final long partitionChanges = replicas.partitionChangeCount();
        final boolean walking = walkDue || !current.sameTopicsAs(walkedImage) ||
            partitionChanges != walkedPartitionChanges;
        final boolean sweeping = walking || sweepDue || tickNumber % UnsettledPartitions.SWEEP_EVERY_TICKS == 0;
        sweepDue = false;
        unsettled.takeTurnedOver();
        fetchStarts.describeAhead(sweeping ? partitions.topicsToLookUp(current, walking) :
            partitions.topicsToLookUp(current, false, unsettled.toStep()));
        if (walking)
        {
            walkedImage = current;
            walkedPartitionChanges = partitionChanges;
            walkDue = !partitions.walk(current, tickNumber, this::stepOrFail);
            if (partitions.loadsDeferred())
            {
                wakeup();
            }
        }
        else if (sweeping)
        {
            for (final MirrorPartition mirror : partitions.values())
            {
                stepOrFail(mirror, mirror.mirrored, current);
            }
        }
        else
        {
            unsettled.step(mirror -> partitions.get(mirror.topicPartition) == mirror,
                mirror -> stepOrFail(mirror, mirror.mirrored, current));
        }
        if (sweeping)
        {
            unsettled.collect(partitions.values());
        }
        syncTick(current);
        fetchers.shutdownIdleFetchers();
    }

    /** One step of a partition's lifecycle; an error moves it to FAILED with its retry time. Coordinator thread. */
    void stepOrFail(final MirrorPartition mirror, final boolean mirrored, final MetadataImage current)
    {
        try
        {
            step(mirror, mirrored, current);
        }
        catch (final RuntimeException e)
        {
            stateWrites.fail(mirror, e);
        }
    }

    private void step(final MirrorPartition mirror, final boolean mirrored, final MetadataImage current)
    {
        if (MirrorStateWrites.writePending(mirror))
        {
            return; // nothing acts on a state before it is committed
        }
        final MirrorStateRecord record = mirror.record;
        if (mirrored)
        {
            switch (record.state())
            {
                case UNKNOWN, STOPPED, STOPPING ->
                {
                    mirror.aligned = false;
                    mirror.partition.mirrorStopped(false);
                    mirror.partition.mirrorPidResetOffset(-1L);
                    // Mirrored again: what the last failover recorded no longer describes this log.
                    mirror.record = mirror.record.withStop(-1L, -1).withPidResetOffset(-1L);
                    // Sent without waiting: the alignment below does not need it committed (a crash before the
                    // commit leaves the previous state, from which the partition aligns again), and a mirror
                    // starting many partitions sends all their writes before it waits for any.
                    stateWrites.transitionAsync(mirror, MirrorPartitionState.PREPARING);
                    fetchStarts.prepare(mirror);
                }
                case PREPARING -> fetchStarts.prepare(mirror);
                case MIRRORING ->
                {
                    if (mirror.fatalError != null)
                    {
                        final Errors fatal = mirror.fatalError;
                        mirror.fatalError = null;
                        throw fatal.exception(mirror.lastErrorMessage);
                    }
                    // Also a partition led anew (state loaded as MIRRORING): its log is the previous leader's,
                    // kept aligned by ordinary replication, so it resumes fetching where its LEO is.
                    fetchStarts.ensureFetching(mirror);
                }
                case FAILED ->
                {
                    if (clockMs.getAsLong() >= mirror.retryAtMs)
                    {
                        mirror.aligned &= record.previousState() == MirrorPartitionState.PREPARING ||
                            record.previousState() == MirrorPartitionState.MIRRORING;
                        stateWrites.transition(mirror, MirrorPartitionState.PREPARING);
                        fetchStarts.prepare(mirror);
                    }
                }
            }
        }
        else
        {
            switch (record.state())
            {
                case STOPPED ->
                {
                }
                case FAILED ->
                {
                    if (clockMs.getAsLong() >= mirror.retryAtMs)
                    {
                        stateWrites.transition(mirror, MirrorPartitionState.STOPPING);
                        failover.stop(mirror);
                    }
                }
                case STOPPING -> failover.stop(mirror);
                default ->
                {
                    stateWrites.transition(mirror, MirrorPartitionState.STOPPING);
                    failover.stop(mirror);
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Synchronous mirroring: promotion, demotion, reporting, release recovery (coordinator thread).
    // ------------------------------------------------------------------------------------------------------

    /** Every topic with a partition coordinated here: reporting, Unregisters owed, and the driver's work. */
    void syncTick(final MetadataImage current)
    {
        if (coordinatedByTopic == null || coordinatedCountGrouped != partitions.changes())
        {
            // Grouped again only when the coordinated partitions changed: a steady tick allocates nothing here.
            coordinatedCountGrouped = partitions.changes();
            final Map<Uuid, List<MirrorPartition>> grouped = new HashMap<>();
            for (final MirrorPartition mirror : partitions.values())
            {
                grouped.computeIfAbsent(mirror.topicId, k -> new ArrayList<>()).add(mirror);
            }
            coordinatedByTopic = grouped;
        }
        final Map<Uuid, List<MirrorPartition>> byTopic = coordinatedByTopic;
        // Each topic's per-partition work (which partitions report) is redone only after a partition's record or
        // reporting changed somewhere here: idle, a tick costs the topics, not their partitions.
        final long changes = stateWrites.recordChanges() + fetchers.syncReportingChanges();
        final boolean partitionsChanged = changes != syncTickChanges;
        syncTickChanges = changes;
        syncControl.beginTick(byTopic.keySet());
        final long nowMs = clockMs.getAsLong();
        for (final Map.Entry<Uuid, List<MirrorPartition>> entry : byTopic.entrySet())
        {
            final List<MirrorPartition> local = entry.getValue();
            final MirrorPartition first = local.get(0);
            final Optional<TopicMetadata> topic = current.topic(entry.getKey());
            if (topic.isEmpty() || MirrorTopicConfig.activeMirror(topic.get().config()) == null)
            {
                continue; // not (or no longer) mirrored: STOPPING unregisters
            }
            try
            {
                syncControl.step(first.mirrorName, topic.get().id(), topic.get().name(),
                    topic.get().partitions().size(),
                    current.syncState(topic.get().id()).mirrorType() == MirrorType.SYNC.id(), local, nowMs,
                    partitionsChanged);
            }
            catch (final RuntimeException e)
            {
                LOG.warn("Mirror '{}' topic {}: sync control step failed: {}", first.mirrorName, topic.get().name(),
                    e.getMessage());
            }
        }
    }

    /**
     * Sets the desired mirror type of the topic's partitions this broker leads, persisted in each one's record,
     * on the coordinator thread (the single writer of the records); completes with the partition indexes set.
     * ASYNC also drops a pending recovery promotion (the operator opted out of it). Any thread.
     */
    public CompletableFuture<Set<Integer>> setDesiredMirrorType(final String mirrorName, final Uuid topicId,
        final byte mirrorType)
    {
        final CompletableFuture<Set<Integer>> done = new CompletableFuture<>();
        if (mirrorType != MirrorType.ASYNC.id() && mirrorType != MirrorType.SYNC.id())
        {
            done.completeExceptionally(new IllegalArgumentException("unknown mirror type " + mirrorType));
            return done;
        }
        commands.add(() ->
        {
            try
            {
                final List<CompletableFuture<Void>> writes = new ArrayList<>();
                final Set<Integer> applied = applyDesiredMirrorType(mirrorName, topicId, mirrorType, writes);
                // Answered once every write is committed; the writes of all partitions go out together.
                CompletableFuture.allOf(writes.toArray(new CompletableFuture<?>[0])).whenComplete((ignored, e) ->
                {
                    if (e == null)
                    {
                        done.complete(applied);
                    }
                    else
                    {
                        done.completeExceptionally(e instanceof java.util.concurrent.CompletionException &&
                            e.getCause() != null ? e.getCause() : e);
                    }
                });
            }
            catch (final RuntimeException e)
            {
                done.completeExceptionally(e);
            }
        });
        wakeup();
        return done;
    }

    private Set<Integer> applyDesiredMirrorType(final String mirrorName, final Uuid topicId, final byte mirrorType,
        final List<CompletableFuture<Void>> writes)
    {
        final Set<Integer> applied = new HashSet<>();
        final CoordinatedPartitions.StateLoader loader = commandLoader != null ? commandLoader
            : partitions.stateLoader();
        final Optional<TopicMetadata> topic = image.get().topic(topicId);
        if (topic.isEmpty())
        {
            return applied;
        }
        for (final PartitionState state : topic.get().partitions())
        {
            final Partition partition = replicas.partitionOrNull(state.topicPartition());
            if (partition == null || !partition.isLeader() || !partition.topicId().equals(topicId))
            {
                continue;
            }
            final MirrorPartition mirror = partitions.get(state.topicPartition());
            if (mirror != null && mirror.mirrorName.equals(mirrorName))
            {
                if (mirror.record.desiredMirrorType() != mirrorType)
                {
                    writes.add(stateWrites.persistAsync(mirror, mirror.record.withDesiredMirrorType(mirrorType)));
                }
                if (mirror.topicPartition.partition() == 0)
                {
                    // An operator's SYNC is a fresh start of the driver's backoff.
                    syncControl.desiredTypeSet(topicId, mirrorName, mirror.topicPartition.topic(), mirrorType, true);
                }
            }
            else
            {
                // Led but not coordinated yet: its coordinator loads the record written here, or, when the load
                // comes before the write is readable, takes the type from desiredBeforeLoad.
                final MirrorStateRecord record = loader.read(mirrorName, topicId, state.partition())
                    .orElse(MirrorStateRecord.unknown(mirrorName, topicId, state.partition(), topic.get().name()));
                if (record.desiredMirrorType() != mirrorType)
                {
                    writes.add(store.writeAsync(record.withDesiredMirrorType(mirrorType)));
                }
                partitions.desiredBeforeLoad(mirrorName, topicId, state.partition(), mirrorType);
            }
            applied.add(state.partition());
        }
        if (mirrorType == MirrorType.ASYNC.id())
        {
            syncControl.desiredTypeSet(topicId, mirrorName, topic.get().name(), mirrorType, false);
        }
        return applied;
    }

    // ------------------------------------------------------------------------------------------------------
    // Queries (any thread).
    // ------------------------------------------------------------------------------------------------------

    /** A snapshot of one coordinated partition, for describe and metrics. */
    public record Status(String mirrorName, TopicPartition partition, Uuid topicId, MirrorPartitionState state,
        long sourceHighWatermark, long destinationOffset, long lag, Errors lastError, String lastErrorMessage)
    {
    }

    public List<Status> statuses()
    {
        final List<Status> result = new ArrayList<>();
        for (final MirrorPartition mirror : partitions.values())
        {
            final MirrorStateRecord record = mirror.record;
            Errors error = mirror.lastError;
            String message = mirror.lastErrorMessage;
            if (record.state() == MirrorPartitionState.FAILED && record.errorCode() != 0)
            {
                error = Errors.forCode(record.errorCode());
                message = record.errorMessage();
            }
            result.add(new Status(mirror.mirrorName, mirror.topicPartition, mirror.topicId, record.state(),
                mirror.sourceHighWatermark, mirror.partition.log().logEndOffset(), mirror.lag(), error, message));
        }
        return result;
    }

    /**
     * The state this broker holds for a partition it leads (LastMirroredOffsets answers failback from it), or
     * empty when it coordinates no mirror state for it.
     */
    public Optional<MirrorStateRecord> stateOf(final Uuid topicId, final int partition)
    {
        for (final MirrorPartition mirror : partitions.values())
        {
            if (mirror.topicId.equals(topicId) && mirror.topicPartition.partition() == partition)
            {
                return Optional.of(mirror.record);
            }
        }
        return Optional.empty();
    }

    /** One coordinated partition's sync reporting, for describe and the SyncPartition* metrics. */
    public record SyncStatus(String mirrorName, TopicPartition partition, Uuid topicId, boolean reporting,
        long failingForMs, long failuresInvalid, long failuresPropagating)
    {
    }

    public List<SyncStatus> syncStatuses()
    {
        final long nowMs = clockMs.getAsLong();
        final List<SyncStatus> result = new ArrayList<>();
        for (final MirrorPartition mirror : partitions.values())
        {
            final long sinceMs = mirror.syncFailingSinceMs;
            result.add(new SyncStatus(mirror.mirrorName, mirror.topicPartition, mirror.topicId, mirror.syncReporting,
                sinceMs < 0 ? -1L : Math.max(0L, nowMs - sinceMs), mirror.syncFailuresInvalid.sum(),
                mirror.syncFailuresPropagating.sum()));
        }
        return result;
    }

    /** {@link #desiredMirrorType(Uuid)} of every topic coordinated here, in one pass over the partitions. */
    public Map<Uuid, Byte> desiredMirrorTypes()
    {
        final Map<Uuid, Byte> desired = new HashMap<>();
        for (final MirrorPartition mirror : partitions.values())
        {
            desired.merge(mirror.topicId, mirror.record.desiredMirrorType(), (a, b) -> (byte)Math.max(a, b));
        }
        return desired;
    }

    /** The desired mirror type of a topic as the partitions coordinated here hold it; -1 when none is here. */
    public byte desiredMirrorType(final Uuid topicId)
    {
        return desiredMirrorTypes().getOrDefault(topicId, (byte)-1);
    }

    /** True while this broker holds a pending recovery promotion for the topic (its driver does). */
    public boolean recoveryPending(final Uuid topicId)
    {
        return syncControl.recoveryPending(topicId);
    }

    /** SyncRegistrationRejected{reason}: registrations refused by the source or dropped by a topic-wide demote. */
    public long syncRegistrationsRejected(final RejectReason reason)
    {
        return syncControl.rejected(reason);
    }

    /** Source role: the topics of this cluster with at least one destination registered for sync. */
    public int registeredSyncTopics()
    {
        int count = 0;
        final MetadataImage current = image.get();
        for (final TopicMetadata topic : current.topics())
        {
            if (!current.syncState(topic.id()).registeredMirrors().isEmpty())
            {
                count++;
            }
        }
        return count;
    }

    /** Coordinates a partition as if a tick had loaded it, for tests of this package. */
    void coordinate(final MirrorPartition mirror)
    {
        mirror.mirrored = true;
        walkDue = true; // a tick checks it against the image
        partitions.add(mirror);
    }

    /** Stops coordinating a partition as if another broker led it now, for tests of this package. */
    void uncoordinate(final TopicPartition partition)
    {
        partitions.release(partition);
    }

    /** Follows the mirrors defined as a tick does, for tests of this package. */
    void refreshSources(final MetadataImage current)
    {
        sources.refresh(current);
    }

    /** Runs the queued commands (desired type changes) as a tick does first, for tests of this package. */
    void runCommands()
    {
        // One loader for the commands run together: one request's thousand topics share one pass over the store.
        commandLoader = partitions.stateLoader();
        try
        {
            for (Runnable command = commands.poll(); command != null; command = commands.poll())
            {
                command.run();
                sweepDue = true;
            }
        }
        finally
        {
            commandLoader = null;
        }
    }

    /** The coordinated partition, for tests of this package; null when not coordinated here. */
    MirrorPartition coordinated(final TopicPartition partition)
    {
        return partitions.get(partition);
    }

    public int deadFetcherThreads()
    {
        return fetchers.deadThreadCount();
    }

    @Override
    public void close()
    {
        closed = true;
        wakeup();
        try
        {
            thread.join(5_000);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
        }
        fetchers.close();
        lookups.shutdownNow();
        leaderLookups.shutdownNow();
        syncRequests.shutdownNow();
        sources.close();
        store.close();
    }

    /**
     * Emulates a distant source: {@code oneWayMs} is added before each request this broker's mirror connections send
     * and after each response ({@code mirror.link.injected.delay.ms}). Set before the first mirror partition starts.
     */
    public void injectLinkDelay(final double oneWayMs)
    {
        fetchers.injectedDelayNanos((long)(oneWayMs * 1_000_000L));
    }

    /** Adds a receiver of each round trip (ns) measured on this broker's mirror report connections. */
    public void linkRoundTrips(final java.util.function.LongConsumer nanosSink)
    {
        fetchers.linkRoundTrips(nanosSink);
    }


}

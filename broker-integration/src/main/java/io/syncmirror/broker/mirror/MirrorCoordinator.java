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
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.ControlRecordType;
import org.apache.kafka.common.record.internal.EndTransactionMarker;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorDefinition;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.SyncCommitFence;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.mirror.sync.RejectReason;
import io.syncmirror.broker.mirror.sync.RemotePartition;
import io.syncmirror.broker.mirror.sync.SyncControl;
import io.syncmirror.broker.mirror.sync.SyncHost;
import io.syncmirror.broker.mirror.sync.SyncPartition;
import io.syncmirror.broker.network.NodeClientConfig;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.replica.PartitionKey;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.broker.storage.PartitionLog;
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
 * <p>Failover (STOPPING), in the sync text's order (no truncation): the fetcher is removed and the mirror's
 * appends stopped; LastMirroredOffset (the LEO) and LastMirrorEpoch (the latest source epoch in the log) are
 * persisted; the controller bumps the leader epoch above every source epoch in the log (hazard 3) and raises the
 * cluster's producer id floor above every producer id in the log (hazard 8); an ABORT marker is appended for each
 * open mirrored transaction; the MIRROR_PID_RESET point (the offset after those markers) is persisted — as state
 * in {@code __mirror_state}, not as a control record, since Kafka's log engine cannot load a control record type
 * it does not know (hazard 8); the partition starts fencing producer ids of the mirrored era; the HW is handed to
 * the local ISR; the topic becomes writable. Each step is idempotent, so a crash in the middle resumes the
 * failover from {@code __mirror_state}.
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
    private final Function<MirrorDefinition, SourceCluster> sourceFactory;
    private final Config config;
    private final LongSupplier clockMs;
    /** When the current tick began ({@link System#nanoTime()}); coordinator thread. */
    private long tickStartNanos;
    /** Ticks so far; a walk marks each partition it finds led with it (coordinator thread). */
    private long tickNumber;
    /** The image and partition-change count of the last walk over the image's topics (coordinator thread). */
    private MetadataImage walkedImage;
    private long walkedPartitionChanges;
    /**
     * Desired types set on partitions led here but not coordinated yet, until a walk loads them: a load that reads
     * the state before that write is readable would otherwise drop the type (coordinator thread).
     */
    private final Map<StateKey, Byte> desiredBeforeLoad = new HashMap<>();
    /**
     * Writes still on their way when their partition was let go (coordinator thread). A load reads the store, which
     * holds only committed writes: loading the partition again before they land would start from a state older
     * than this broker's own last one, and the next transitions would write it back without them.
     */
    private final Map<PartitionKey, WriteInFlight> writesInFlightAtRelease = new HashMap<>();

    /** A released partition's last write, and the desired type it had in force should that write fail. */
    private record WriteInFlight(CompletableFuture<Void> write, String mirrorName, byte desiredMirrorType)
    {
    }
    /** The last walk could not load a partition's state: walk again at the next tick. */
    private boolean walkDue;
    /** Counts the puts into and removals from {@link #coordinated} (coordinator thread). */
    private long coordinatedChanges;
    /** {@link #coordinated} grouped by topic id as of {@link #coordinatedCountGrouped} changes (sync tick). */
    private Map<Uuid, List<MirrorPartition>> coordinatedByTopic;
    private long coordinatedCountGrouped = -1L;
    private final MirrorFetchers fetchers;
    private final ExecutorService lookups;
    /** Source leader lookups of partitions that are being fetched (their source broker stopped answering). */
    private final ExecutorService leaderLookups;
    private final Map<PartitionKey, MirrorPartition> coordinated = new ConcurrentHashMap<>();
    private final Map<String, SourceCluster> sources = new HashMap<>();
    private final Map<String, MirrorDefinition> sourceDefinitions = new HashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signal = lock.newCondition();
    private boolean signalled;
    private volatile boolean closed;
    private final Thread thread;

    // Synchronous mirroring.
    private final ConcurrentLinkedQueue<Runnable> commands = new ConcurrentLinkedQueue<>();
    /** Runs the sync control's blocking requests, one at a time in the order made. */
    private final ExecutorService syncRequests;
    private final ChannelSyncLinks syncLinks;
    /** Promotion, demotion, Unregisters and reporting of the topics coordinated here (coordinator thread). */
    private final SyncControl syncControl;
    private volatile short syncVersion = 1;

    public MirrorCoordinator(final int brokerId, final ReplicaManager replicas, final Supplier<MetadataImage> image,
        final MirrorStateStore store, final ControllerChannel controller, final LastMirroredLookup lastMirrored,
        final Function<MirrorDefinition, SourceCluster> sourceFactory, final Config config,
        final LongSupplier clockMs)
    {
        this.brokerId = brokerId;
        this.replicas = replicas;
        this.image = image;
        this.store = store;
        this.controller = controller;
        this.lastMirrored = lastMirrored;
        this.sourceFactory = sourceFactory;
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
        this.thread = new Thread(this::run, "mirror-coordinator-" + brokerId);
        this.thread.setDaemon(true);
        this.syncRequests = Executors.newSingleThreadExecutor(r ->
        {
            final Thread t = new Thread(r, "mirror-sync-requests-" + brokerId);
            t.setDaemon(true);
            return t;
        });
        this.syncLinks = new ChannelSyncLinks(brokerId, this::source);
        this.syncControl = new SyncControl(new Host(), syncLinks, config.retryBackoffMs(), config.retryBackoffMaxMs());
    }

    /** The sync control's side effects on the partitions coordinated here. Coordinator thread. */
    private final class Host implements SyncHost
    {
        @Override
        public void reporting(final SyncPartition partition, final boolean reporting)
        {
            syncReporting((MirrorPartition)partition, reporting);
        }

        @Override
        public void registerAttempts(final SyncPartition driver, final int attempts)
        {
            final MirrorPartition mirror = (MirrorPartition)driver;
            persistQuietly(mirror, mirror.record.withRetryAttempt(attempts));
        }

        @Override
        public CompletableFuture<Void> registrationOwed(final SyncPartition driver, final boolean owed)
        {
            final MirrorPartition mirror = (MirrorPartition)driver;
            return persistAsync(mirror, mirror.record.withSyncRegistrationOwed(owed));
        }

        @Override
        public void promotionError(final SyncPartition driver, final String message)
        {
            final MirrorPartition mirror = (MirrorPartition)driver;
            if (message == null)
            {
                mirror.clearError();
            }
            else
            {
                mirror.error(Errors.NONE, message);
            }
        }

        @Override
        public void wakeup()
        {
            MirrorCoordinator.this.wakeup();
        }
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
     * steps the partitions it coordinates. At 100k partitions the walk, not the steps, was most of a tick.
     */
    void tick()
    {
        tickStartNanos = System.nanoTime();
        tickNumber++;
        runCommands();
        final MetadataImage current = image.get();
        refreshSources(current);
        // Read before the walk: a change applied during it shows as a new count at the next tick.
        final long partitionChanges = replicas.partitionChangeCount();
        if (walkDue || !current.sameTopicsAs(walkedImage) || partitionChanges != walkedPartitionChanges)
        {
            walkedImage = current;
            walkedPartitionChanges = partitionChanges;
            walkDue = !walkLedPartitions(current);
        }
        else
        {
            for (final MirrorPartition mirror : coordinated.values())
            {
                stepOrFail(mirror, mirror.mirrored, current);
            }
        }
        syncTick(current);
        fetchers.shutdownIdleFetchers();
    }

    /**
     * Steps every mirror partition the image's topics say this broker leads, takes over the new ones and lets go of
     * those it no longer leads. False when a partition's state could not be loaded (the next tick walks again).
     */
    private boolean walkLedPartitions(final MetadataImage current)
    {
        boolean complete = true;
        final StateLoader loader = new StateLoader();
        for (final TopicMetadata topic : current.topics())
        {
            final Map<String, String> topicConfig = topic.config();
            if (!MirrorTopicConfig.isMirrorTopic(topicConfig))
            {
                continue;
            }
            final String active = MirrorTopicConfig.activeMirror(topicConfig);
            final String mirrorName = active != null ? active : MirrorTopicConfig.removedMirror(topicConfig);
            for (final PartitionState state : topic.partitions())
            {
                final Partition partition = replicas.partitionOrNull(topic.id(), state.partition());
                if (partition == null || !partition.isLeader() || !partition.topicId().equals(topic.id()))
                {
                    continue;
                }
                final TopicPartition tp = state.topicPartition();
                final PartitionKey key = PartitionKey.of(tp);
                MirrorPartition mirror = coordinated.get(key);
                if (mirror != null && (mirror.partition != partition || !mirror.mirrorName.equals(mirrorName)))
                {
                    release(mirror);
                    mirror = null;
                }
                if (mirror == null && writeInFlight(key, mirrorName, topic.id(), state.partition()))
                {
                    complete = false; // its completion wakes the coordinator
                    continue;
                }
                if (mirror == null)
                {
                    try
                    {
                        mirror = load(mirrorName, partition, loader);
                        coordinated.put(key, mirror);
                        coordinatedChanges++;
                    }
                    catch (final RuntimeException e)
                    {
                        LOG.warn("Mirror '{}' {}: cannot load its state yet: {}", mirrorName, tp, e.getMessage());
                        complete = false;
                        continue;
                    }
                }
                mirror.ledInTick = tickNumber;
                mirror.mirrored = active != null;
                stepOrFail(mirror, mirror.mirrored, current);
            }
        }
        for (final MirrorPartition mirror : coordinated.values())
        {
            if (mirror.ledInTick != tickNumber)
            {
                release(mirror);
            }
        }
        writesInFlightAtRelease.values().removeIf(inFlight -> inFlight.write().isDone());
        if (complete)
        {
            // Every partition led here is loaded: what is left was set on partitions another broker leads now.
            desiredBeforeLoad.clear();
        }
        return complete;
    }

    /**
     * Whether the partition's last write from before it was let go is still on its way; once it is not, a failed
     * one leaves the desired type it carried to the load (the operator's intent outlives the lost write).
     */
    private boolean writeInFlight(final PartitionKey key, final String mirrorName, final Uuid topicId,
        final int partition)
    {
        final WriteInFlight inFlight = writesInFlightAtRelease.get(key);
        if (inFlight == null)
        {
            return false;
        }
        if (!inFlight.write().isDone())
        {
            return true;
        }
        writesInFlightAtRelease.remove(key);
        if (inFlight.write().isCompletedExceptionally() && inFlight.mirrorName().equals(mirrorName))
        {
            desiredBeforeLoad.put(new StateKey(mirrorName, topicId, partition), inFlight.desiredMirrorType());
        }
        return false;
    }

    /**
     * Reads the states of the partitions one tick takes over: the first with one read, and once there is a second,
     * all of them in one pass over the store (a new leader of thousands of partitions, a mirror's first tick).
     */
    private final class StateLoader
    {
        private int loads;
        private Map<StateKey, MirrorStateRecord> all;

        Optional<MirrorStateRecord> read(final String mirrorName, final Uuid topicId, final int partition)
        {
            if (all == null && ++loads > 1)
            {
                final List<MirrorStateRecord> records = store.readAll();
                if (records != null)
                {
                    all = new HashMap<>(records.size() * 2);
                    for (final MirrorStateRecord record : records)
                    {
                        all.put(new StateKey(record.mirrorName(), record.topicId(), record.partition()), record);
                    }
                }
            }
            return all == null ? store.read(mirrorName, topicId, partition) :
                Optional.ofNullable(all.get(new StateKey(mirrorName, topicId, partition)));
        }
    }

    private record StateKey(String mirrorName, Uuid topicId, int partition)
    {
    }

    private MirrorPartition load(final String mirrorName, final Partition partition, final StateLoader loader)
    {
        final TopicPartition tp = partition.topicPartition();
        MirrorStateRecord record = loader.read(mirrorName, partition.topicId(), tp.partition())
            .orElse(MirrorStateRecord.unknown(mirrorName, partition.topicId(), tp.partition(), tp.topic()));
        final Byte desired = desiredBeforeLoad.remove(new StateKey(mirrorName, partition.topicId(), tp.partition()));
        if (desired != null && desired != record.desiredMirrorType())
        {
            // Set while the partition was led but not coordinated yet; that write may not be readable yet, and
            // the transitions below would write the record back without it.
            record = record.withDesiredMirrorType(desired);
        }
        final MirrorPartition mirror = new MirrorPartition(mirrorName, partition, record);
        partition.mirrorAppends(false);
        if (record.state() == MirrorPartitionState.STOPPED)
        {
            // A failed-over partition led anew (restart, leader change): writable, its HW local-ISR driven.
            partition.mirrorPidResetOffset(record.pidResetOffset());
            partition.mirrorStopped(true);
            partition.liftMirrorHighWatermarkCap();
        }
        LOG.info("Mirror '{}' {}: coordinating on broker {} from state {}", mirrorName, tp, brokerId, record.state());
        return mirror;
    }

    private void release(final MirrorPartition mirror)
    {
        final CompletableFuture<Void> pending = mirror.pendingWrite;
        if (pending != null && !pending.isDone())
        {
            writesInFlightAtRelease.put(PartitionKey.of(mirror.topicPartition),
                new WriteInFlight(pending, mirror.mirrorName, mirror.record.desiredMirrorType()));
        }
        // Another broker leads it now and reports for it; this one's reports would be fenced anyway.
        syncReporting(mirror, false);
        coordinated.remove(PartitionKey.of(mirror.topicPartition), mirror);
        coordinatedChanges++;
        fetchers.remove(mirror.topicPartition);
        mirror.partition.mirrorAppends(false);
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
            fail(mirror, e);
        }
    }

    private void step(final MirrorPartition mirror, final boolean mirrored, final MetadataImage current)
    {
        if (writePending(mirror))
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
                    transitionAsync(mirror, MirrorPartitionState.PREPARING);
                    prepare(mirror, current);
                }
                case PREPARING -> prepare(mirror, current);
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
                    ensureFetching(mirror, current);
                }
                case FAILED ->
                {
                    if (clockMs.getAsLong() >= mirror.retryAtMs)
                    {
                        mirror.aligned &= record.previousState() == MirrorPartitionState.PREPARING ||
                            record.previousState() == MirrorPartitionState.MIRRORING;
                        transition(mirror, MirrorPartitionState.PREPARING);
                        prepare(mirror, current);
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
                        transition(mirror, MirrorPartitionState.STOPPING);
                        stop(mirror);
                    }
                }
                case STOPPING -> stop(mirror);
                default ->
                {
                    transition(mirror, MirrorPartitionState.STOPPING);
                    stop(mirror);
                }
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // PREPARING -> MIRRORING
    // ------------------------------------------------------------------------------------------------------

    private void prepare(final MirrorPartition mirror, final MetadataImage current)
    {
        final SourceCluster source = source(mirror.mirrorName);
        final Node leader = sourceLeader(mirror, source);
        if (leader == null)
        {
            return;
        }
        if (!mirror.aligned)
        {
            align(mirror, source, leader);
            mirror.aligned = true;
        }
        // KIP-1279: every ISR member must have truncated before the mirror appends anything new; with fewer than
        // min.insync.replicas available, skip and retry on the next tick.
        if (!mirror.partition.isrCaughtUpSinceTruncation())
        {
            return;
        }
        // Fetching starts once MIRRORING is committed (this tick when the write was quick, else a later one, from
        // MIRRORING's ensureFetching): a crash must never find fetched records under a state that would align them
        // away again.
        transitionAsync(mirror, MirrorPartitionState.MIRRORING);
        if (writePending(mirror))
        {
            return;
        }
        mirror.partition.mirrorAppends(true);
        fetchers.add(mirror, source, leader, securityConfigs(mirror.mirrorName));
    }

    /**
     * Failback's first phase: truncate to the last offset the source mirrored from this cluster before it failed
     * over (bounded by where this log's copy of that epoch ends), or to 0 when the source cannot tell. The second
     * phase is the fetch itself: its LastFetchedEpoch makes the source answer DivergingEpoch where the histories
     * part.
     */
    private void align(final MirrorPartition mirror, final SourceCluster source, final Node leader)
    {
        final PartitionLog log = mirror.partition.log();
        if (log.logEndOffset() == 0)
        {
            return; // nothing to align: a new mirror topic
        }
        final Optional<long[]> last;
        try
        {
            last = lastMirrored.lastMirrored(source, leader, mirror.topicPartition.topic(), mirror.topicId,
                mirror.topicPartition.partition());
        }
        catch (final RuntimeException e)
        {
            throw e;
        }
        catch (final Exception e)
        {
            throw new KafkaException("LastMirroredOffsets from the source of mirror '" + mirror.mirrorName +
                "' failed: " + e.getMessage(), e);
        }
        long target = 0L;
        if (last.isPresent() && last.get()[0] >= 0)
        {
            target = last.get()[0];
            final int lastEpoch = (int)last.get()[1];
            if (lastEpoch >= 0)
            {
                final Optional<PartitionLog.EpochEndOffset> ours = log.endOffsetForEpoch(lastEpoch);
                if (ours.isPresent() && ours.get().endOffset() >= 0)
                {
                    target = Math.min(target, ours.get().endOffset());
                }
            }
        }
        if (target < log.logEndOffset())
        {
            LOG.info("Mirror '{}' {}: aligning with the source: truncating from {} to {} ({})", mirror.mirrorName,
                mirror.topicPartition, log.logEndOffset(), target,
                last.isPresent() ? "its last mirrored offset " + last.get()[0] + ", epoch " + last.get()[1] :
                    "the source cannot tell its last mirrored offset");
            final long leo = mirror.partition.truncateAsMirrorLeader(target, target < log.logStartOffset(),
                clockMs.getAsLong(), false);
            if (leo < 0)
            {
                throw new KafkaException("lost leadership while truncating " + mirror.topicPartition);
            }
        }
    }

    private void ensureFetching(final MirrorPartition mirror, final MetadataImage current)
    {
        if (mirror.fetching)
        {
            maybeMoveToNewLeader(mirror);
            return;
        }
        final SourceCluster source = source(mirror.mirrorName);
        final Node leader = sourceLeader(mirror, source);
        if (leader != null)
        {
            mirror.partition.mirrorAppends(true);
            fetchers.add(mirror, source, leader, securityConfigs(mirror.mirrorName));
        }
    }

    /**
     * A fetching partition whose source broker stopped answering (a crash gives no NOT_LEADER_OR_FOLLOWER) moves
     * once the source names another leader; until then its fetcher keeps retrying. The lookup runs off this
     * thread, one at a time per broker, so that a source that answers nothing never holds up the other
     * partitions' transitions (a failover of a dead source above all).
     */
    private void maybeMoveToNewLeader(final MirrorPartition mirror)
    {
        final Node moved = mirror.relookedLeader;
        if (moved != null)
        {
            mirror.relookedLeader = null;
            if (moved.id() != mirror.sourceLeaderId && mirror.fetching)
            {
                fetchers.add(mirror, source(mirror.mirrorName), moved, securityConfigs(mirror.mirrorName));
            }
            return;
        }
        if (!mirror.leaderLookupNeeded || mirror.leaderRelookupRunning)
        {
            return;
        }
        final SourceCluster source = source(mirror.mirrorName);
        mirror.leaderLookupNeeded = false;
        mirror.leaderRelookupRunning = true;
        try
        {
            leaderLookups.execute(() ->
            {
                try
                {
                    source.leader(mirror.topicPartition.topic(), mirror.topicId, mirror.topicPartition.partition(),
                        true).ifPresent(leader -> mirror.relookedLeader = leader);
                }
                catch (final RuntimeException e)
                {
                    LOG.debug("Mirror '{}' {}: looking up the source leader again failed: {}", mirror.mirrorName,
                        mirror.topicPartition, e.toString());
                }
                finally
                {
                    mirror.leaderRelookupRunning = false;
                    wakeup();
                }
            });
        }
        catch (final java.util.concurrent.RejectedExecutionException e)
        {
            mirror.leaderRelookupRunning = false; // closing
        }
    }

    private Node sourceLeader(final MirrorPartition mirror, final SourceCluster source)
    {
        // A lookup this tick shares the topic's describe with the topic's other partitions looked up this tick.
        final Optional<Node> leader = source.leader(mirror.topicPartition.topic(), mirror.topicId,
            mirror.topicPartition.partition(), mirror.leaderLookupNeeded ? tickStartNanos : Long.MIN_VALUE);
        mirror.leaderLookupNeeded = leader.isEmpty();
        if (leader.isEmpty())
        {
            mirror.error(Errors.LEADER_NOT_AVAILABLE, "the source has no leader for " + mirror.topicPartition);
            return null;
        }
        return leader.get();
    }

    // ------------------------------------------------------------------------------------------------------
    // STOPPING -> STOPPED (failover)
    // ------------------------------------------------------------------------------------------------------

    private void stop(final MirrorPartition mirror)
    {
        final Partition partition = mirror.partition;
        stopSync(mirror);
        fetchers.remove(mirror.topicPartition);
        partition.mirrorAppends(false);
        final PartitionLog log = partition.log();
        if (mirror.record.lastMirroredOffset() < 0)
        {
            persist(mirror, mirror.record.withStop(log.logEndOffset(), log.latestEpoch().orElse(-1)));
        }
        final int lastMirrorEpoch = mirror.record.lastMirrorEpoch();
        if (log.latestEpoch().orElse(-1) <= lastMirrorEpoch || partition.role().leaderEpoch() <= lastMirrorEpoch)
        {
            final int minEpoch = Math.max(partition.role().leaderEpoch(), lastMirrorEpoch) + 1;
            final long maxProducerId = log.maxProducerId();
            try
            {
                controller.bumpLeaderEpochs(mirror.topicId, Map.of(mirror.topicPartition.partition(), minEpoch),
                    maxProducerId < 0 ? -1L : maxProducerId + 1);
            }
            catch (final RuntimeException e)
            {
                throw e;
            }
            catch (final Exception e)
            {
                throw new KafkaException("bumping the leader epoch of " + mirror.topicPartition + " failed: " +
                    e.getMessage(), e);
            }
            awaitEpoch(partition, minEpoch);
        }
        for (final PartitionLog.OpenTransaction txn : log.openTransactions())
        {
            // Its coordinator is on the source cluster, which may never send the marker: abort it here, under the
            // coordinator epoch the log last saw for the producer (a lower one is fenced by Kafka's log engine).
            final MemoryRecords marker = MemoryRecords.withEndTransactionMarker(clockMs.getAsLong(),
                txn.producerId(), txn.producerEpoch(),
                new EndTransactionMarker(ControlRecordType.ABORT, Math.max(0, txn.coordinatorEpoch())));
            partition.appendAsLeader(marker, false, null, 0, true);
            LOG.info("Mirror '{}' {}: aborted the open mirrored transaction of producer {} (first offset {})",
                mirror.mirrorName, mirror.topicPartition, txn.producerId(), txn.firstOffset());
        }
        if (mirror.record.pidResetOffset() < 0)
        {
            persist(mirror, mirror.record.withPidResetOffset(log.logEndOffset()));
        }
        partition.mirrorPidResetOffset(mirror.record.pidResetOffset());
        partition.liftMirrorHighWatermarkCap();
        partition.mirrorStopped(true);
        transition(mirror, MirrorPartitionState.STOPPED);
        LOG.info("Mirror '{}' {}: failed over at offset {} (last mirror epoch {}, leader epoch {}); writable",
            mirror.mirrorName, mirror.topicPartition, mirror.record.lastMirroredOffset(), lastMirrorEpoch,
            partition.role().leaderEpoch());
    }

    /** Waits until this broker applied the bumped epoch (and its log's epoch cache starts it). */
    private void awaitEpoch(final Partition partition, final int minEpoch)
    {
        final long deadlineMs = clockMs.getAsLong() + config.requestTimeoutMs();
        while (partition.role().leaderEpoch() < minEpoch || partition.log().latestEpoch().orElse(-1) < minEpoch)
        {
            if (!partition.isLeader())
            {
                throw new KafkaException("lost leadership of " + partition.topicPartition() + " during failover");
            }
            if (clockMs.getAsLong() > deadlineMs)
            {
                throw new KafkaException("the bumped leader epoch " + minEpoch + " of " + partition.topicPartition() +
                    " did not reach this broker within " + config.requestTimeoutMs() + " ms");
            }
            try
            {
                Thread.sleep(5);
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted", e);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // State, errors, sources.
    // ------------------------------------------------------------------------------------------------------

    private void transition(final MirrorPartition mirror, final MirrorPartitionState next)
    {
        final MirrorPartitionState previous = mirror.record.state();
        persist(mirror, mirror.record.moveTo(next));
        LOG.info("Mirror '{}' {}: {} -> {}", mirror.mirrorName, mirror.topicPartition, previous, next);
    }

    /**
     * Moves to {@code next} and sends its write without waiting for the commit: {@link #step} does nothing more for
     * the partition until {@link #writePending} sees it committed. The record in memory is the new one at once, so
     * that any write after it (a command's, a synchronous one) starts from it; writes of one key commit in order.
     */
    private void transitionAsync(final MirrorPartition mirror, final MirrorPartitionState next)
    {
        final MirrorPartitionState previous = mirror.record.state();
        final MirrorStateRecord record = mirror.record.moveTo(next);
        final CompletableFuture<Void> committed = store.writeAsync(record);
        mirror.record = record;
        mirror.pendingWrite = committed;
        if (!committed.isDone())
        {
            committed.whenComplete((ignored, e) -> wakeup());
        }
        LOG.info("Mirror '{}' {}: {} -> {}", mirror.mirrorName, mirror.topicPartition, previous, next);
    }

    /**
     * Whether the partition's last write sent without waiting is still on its way; a failed one throws (the step
     * fails, and the partition moves to FAILED and retries).
     */
    private static boolean writePending(final MirrorPartition mirror)
    {
        final CompletableFuture<Void> pending = mirror.pendingWrite;
        if (pending == null)
        {
            return false;
        }
        if (!pending.isDone())
        {
            return true;
        }
        mirror.pendingWrite = null;
        try
        {
            pending.join();
        }
        catch (final java.util.concurrent.CompletionException e)
        {
            throw e.getCause() instanceof RuntimeException r ? r : e;
        }
        return false;
    }

    /**
     * Sends {@code next} without waiting, as {@link #transitionAsync} does: the record in memory is the new one at
     * once, and {@link #step} does nothing more for the partition until it is committed.
     */
    private CompletableFuture<Void> persistAsync(final MirrorPartition mirror, final MirrorStateRecord next)
    {
        final CompletableFuture<Void> committed = store.writeAsync(next);
        mirror.record = next;
        mirror.pendingWrite = committed;
        if (!committed.isDone())
        {
            committed.whenComplete((ignored, e) -> wakeup());
        }
        return committed;
    }

    private void persist(final MirrorPartition mirror, final MirrorStateRecord next)
    {
        store.write(next);
        mirror.record = next;
        // Committed after any write sent before it without waiting: those no longer decide the durable state.
        mirror.pendingWrite = null;
    }

    private void fail(final MirrorPartition mirror, final RuntimeException e)
    {
        final Errors error = Errors.forException(e);
        final int attempt = mirror.record.retryAttempt() + 1;
        final long backoffMs = Math.min(config.retryBackoffMaxMs(),
            config.retryBackoffMs() << Math.min(20, attempt - 1));
        mirror.retryAtMs = clockMs.getAsLong() + backoffMs;
        final String message = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        mirror.error(error == Errors.UNKNOWN_SERVER_ERROR ? Errors.UNKNOWN_SERVER_ERROR : error, message);
        final MirrorStateRecord failed = mirror.record.failed(error.code(), message, attempt);
        try
        {
            persist(mirror, failed);
        }
        catch (final RuntimeException writeError)
        {
            mirror.record = failed; // surfaced in describe and metrics even when __mirror_state is unavailable
        }
        LOG.warn("Mirror '{}' {}: FAILED (attempt {}, retry in {} ms): {}", mirror.mirrorName, mirror.topicPartition,
            attempt, backoffMs, message);
    }

    /** The mirror's source client, opened on first use: a broker leading none of a mirror's partitions opens none. */
    private SourceCluster source(final String mirrorName)
    {
        SourceCluster source = sources.get(mirrorName);
        if (source == null)
        {
            final MirrorDefinition definition = sourceDefinitions.get(mirrorName);
            if (definition == null)
            {
                throw new KafkaException("cluster mirror '" + mirrorName + "' is not defined on this cluster");
            }
            source = sourceFactory.apply(definition);
            sources.put(mirrorName, source);
        }
        return source;
    }

    private Map<String, String> securityConfigs(final String mirrorName)
    {
        final MirrorDefinition definition = sourceDefinitions.get(mirrorName);
        return definition == null ? Map.of() : definition.sourceConfigs();
    }

    /** Follows the mirrors defined, closing the source clients of mirrors deleted or redefined. */
    void refreshSources(final MetadataImage current)
    {
        final Map<String, MirrorDefinition> defined = current.mirrors();
        for (final Map.Entry<String, MirrorDefinition> entry : new ArrayList<>(sourceDefinitions.entrySet()))
        {
            final MirrorDefinition now = defined.get(entry.getKey());
            if (now == null || !now.sourceBootstrapServers().equals(entry.getValue().sourceBootstrapServers()) ||
                !now.sourceConfigs().equals(entry.getValue().sourceConfigs()))
            {
                sourceDefinitions.remove(entry.getKey());
                final SourceCluster closed = sources.remove(entry.getKey());
                if (closed != null)
                {
                    closed.close();
                }
            }
        }
        for (final MirrorDefinition definition : defined.values())
        {
            sourceDefinitions.putIfAbsent(definition.name(), definition);
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Synchronous mirroring: promotion, demotion, reporting, release recovery (coordinator thread).
    // ------------------------------------------------------------------------------------------------------

    /** Every topic with a partition coordinated here: reporting, Unregisters owed, and the driver's work. */
    void syncTick(final MetadataImage current)
    {
        if (coordinatedByTopic == null || coordinatedCountGrouped != coordinatedChanges)
        {
            // Grouped again only when the coordinated partitions changed: a steady tick allocates nothing here.
            coordinatedCountGrouped = coordinatedChanges;
            final Map<Uuid, List<MirrorPartition>> grouped = new HashMap<>();
            for (final MirrorPartition mirror : coordinated.values())
            {
                grouped.computeIfAbsent(mirror.topicId, k -> new ArrayList<>()).add(mirror);
            }
            coordinatedByTopic = grouped;
        }
        final Map<Uuid, List<MirrorPartition>> byTopic = coordinatedByTopic;
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
                    current.syncState(topic.get().id()).mirrorType() == MirrorType.SYNC.id(), local, nowMs);
            }
            catch (final RuntimeException e)
            {
                LOG.warn("Mirror '{}' topic {}: sync control step failed: {}", first.mirrorName, topic.get().name(),
                    e.getMessage());
            }
        }
    }

    private void persistQuietly(final MirrorPartition mirror, final MirrorStateRecord next)
    {
        try
        {
            persist(mirror, next);
        }
        catch (final RuntimeException e)
        {
            mirror.record = next; // in force here; written with the partition's next transition
            LOG.warn("Mirror '{}' {}: cannot persist its state now: {}", mirror.mirrorName, mirror.topicPartition,
                e.getMessage());
        }
    }

    /**
     * A failover's first step for a partition of a topic that is (or may be) SYNC: Unregister at the source before
     * the fetcher is removed, so the source's producers unblock first; failover goes on when the source cannot be
     * reached (an operator may release it there later). Then the topic's effective and desired types are cleared
     * and the partition stops reporting.
     */
    private void stopSync(final MirrorPartition mirror)
    {
        final boolean effectiveSync = image.get().syncState(mirror.topicId).mirrorType() == MirrorType.SYNC.id();
        final boolean involved = effectiveSync || mirror.syncReporting ||
            mirror.record.desiredMirrorType() == MirrorType.SYNC.id() || syncControl.unregisterOwed(mirror.topicId);
        if (!involved)
        {
            return;
        }
        final boolean acknowledged = awaitSyncRequest(syncControl.unregisterOnStop(mirror.mirrorName,
            mirror.topicId, mirror.topicPartition.topic()), "the Unregister at the source");
        if (!acknowledged)
        {
            LOG.warn("Mirror '{}' topic {}: failing over without the source's acknowledgement of the " +
                "Unregister; run --release-sync on the source if its producers stay blocked", mirror.mirrorName,
                mirror.topicPartition.topic());
        }
        syncReporting(mirror, false);
        if (effectiveSync)
        {
            try
            {
                awaitSyncRequest(syncLinks.commitMirrorType(mirror.topicId, MirrorType.ASYNC.id(),
                    SyncCommitFence.NONE),
                    "clearing the effective SYNC type");
            }
            catch (final RuntimeException e)
            {
                throw new KafkaException("clearing the effective SYNC type of " + mirror.topicPartition.topic() +
                    " at the controller failed: " + e.getMessage(), e);
            }
        }
        if (mirror.record.desiredMirrorType() != MirrorType.ASYNC.id())
        {
            persist(mirror, mirror.record.withDesiredMirrorType(MirrorType.ASYNC.id()));
        }
    }

    /**
     * Waits for a sync request of the failover, which runs in order on the coordinator thread: bounded by the
     * requests queued before it, each bounded by the mirror request timeout.
     */
    private <T> T awaitSyncRequest(final CompletableFuture<T> request, final String what)
    {
        try
        {
            return request.get(4 * config.requestTimeoutMs(), java.util.concurrent.TimeUnit.MILLISECONDS);
        }
        catch (final java.util.concurrent.ExecutionException e)
        {
            throw e.getCause() instanceof RuntimeException r ? r : new KafkaException(e.getCause());
        }
        catch (final java.util.concurrent.TimeoutException e)
        {
            throw new KafkaException(what + " timed out after " + 4 * config.requestTimeoutMs() + " ms", e);
        }
        catch (final InterruptedException e)
        {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted waiting for " + what, e);
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
            final MirrorPartition mirror = coordinated.get(PartitionKey.of(state.topicPartition()));
            if (mirror != null && mirror.mirrorName.equals(mirrorName))
            {
                if (mirror.record.desiredMirrorType() != mirrorType)
                {
                    writes.add(persistAsync(mirror, mirror.record.withDesiredMirrorType(mirrorType)));
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
                final MirrorStateRecord record = store.read(mirrorName, topicId, state.partition())
                    .orElse(MirrorStateRecord.unknown(mirrorName, topicId, state.partition(), topic.get().name()));
                if (record.desiredMirrorType() != mirrorType)
                {
                    writes.add(store.writeAsync(record.withDesiredMirrorType(mirrorType)));
                }
                desiredBeforeLoad.put(new StateKey(mirrorName, topicId, state.partition()), mirrorType);
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
        for (final MirrorPartition mirror : coordinated.values())
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
        for (final MirrorPartition mirror : coordinated.values())
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
        for (final MirrorPartition mirror : coordinated.values())
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
        for (final MirrorPartition mirror : coordinated.values())
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
        coordinated.put(PartitionKey.of(mirror.topicPartition), mirror);
        coordinatedChanges++;
    }

    /** Stops coordinating a partition as if another broker led it now, for tests of this package. */
    void uncoordinate(final TopicPartition partition)
    {
        final MirrorPartition mirror = coordinated.get(PartitionKey.of(partition));
        if (mirror != null)
        {
            release(mirror);
        }
    }

    /** Runs the queued commands (desired type changes) as a tick does first, for tests of this package. */
    void runCommands()
    {
        for (Runnable command = commands.poll(); command != null; command = commands.poll())
        {
            command.run();
        }
    }

    /** The coordinated partition, for tests of this package; null when not coordinated here. */
    MirrorPartition coordinated(final TopicPartition partition)
    {
        return coordinated.get(PartitionKey.of(partition));
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
        for (final SourceCluster source : sources.values())
        {
            source.close();
        }
        sources.clear();
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

    /**
     * Sets whether {@code mirror}'s fetcher reports it to the source (MirrorReplicaInfo) and tells the fetcher, which
     * starts or stops its reports and sends its next fetch in the new mode at once.
     */
    private void syncReporting(final MirrorPartition mirror, final boolean reporting)
    {
        if (mirror.syncReporting != reporting)
        {
            mirror.syncReporting = reporting;
            fetchers.syncReportingChanged(mirror);
        }
    }
}

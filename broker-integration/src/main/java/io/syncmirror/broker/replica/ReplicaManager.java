package io.syncmirror.broker.replica;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.LongSupplier;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.netty.util.concurrent.DefaultEventExecutor;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import io.syncmirror.broker.adapter.HotPathAdapter;
import io.syncmirror.broker.adapter.MirrorLinks;
import io.syncmirror.broker.coordinator.ReplicaAccess;
import io.syncmirror.broker.metadata.IsrChangeChannel;
import io.syncmirror.broker.metadata.MetadataListener;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.storage.LogStore;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.hwgate.AckOutcome;
import io.syncmirror.hwgate.RequestShard;

/**
 * The partitions this broker hosts and their roles, applied from the metadata log; the ISR upkeep of the
 * partitions it leads; and the acks=all append path for internal callers. Thread-safety: metadata callbacks on
 * the metadata thread; lookups from any thread; produces from their owner threads (event loops, or the internal
 * executor for callers outside any event loop).
 */
public final class ReplicaManager implements MetadataListener, ReplicaAccess, AutoCloseable
{
    /** Creates internal topics through the controller (the broker's forwarding path). */
    public interface TopicCreator
    {
        CompletableFuture<Void> ensureTopic(String topic, int partitions, short replicationFactor,
            Map<String, String> config);
    }

    private static final Logger LOG = LoggerFactory.getLogger(ReplicaManager.class);
    private static final long NO_SLOT_LOG_INTERVAL_MS = 10_000L;

    private final ReplicaConfig config;
    private final LogStore logs;
    private final HotPathAdapter hotPath;
    /** Which mirror links gate each hosted topic; used under this object's lock (the metadata thread). */
    private final SyncLinkAssignments syncLinks;
    private volatile SyncSourceMetrics syncMetrics = new SyncSourceMetrics();
    private volatile java.util.function.Function<Uuid, java.util.Set<String>> syncRegistrations;
    private final IsrChangeChannel isrChannel;
    private final LongSupplier clockMs;
    private final TopicCreator topicCreator;
    private final ConcurrentHashMap<PartitionKey, Partition> byName = new ConcurrentHashMap<>();
    /**
     * Partitions the ISR upkeep must look at again, queued by each partition under its append lock when its leader
     * LEO moves, its role or ISR changes, or a follower falls back (Partition#needUpkeep).
     */
    private final java.util.concurrent.ConcurrentLinkedQueue<Partition> upkeepQueue =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    /**
     * The partitions the ISR upkeep visits each round (the upkeep's own, under upkeepLock): those queued, until a
     * visit finds them quiet (Partition#leaveUpkeepIfQuiet). A round costs the partitions that changed since
     * they were last quiet, not every partition led here: at 100k partitions nearly all are idle.
     */
    private final ArrayList<Partition> upkeepVisits = new ArrayList<>();
    /** Every partition's after-completions task: one instance, not a method reference per partition. */
    private final Runnable drainCurrentOwnerTask = this::drainCurrentOwner;
    /** The "no partition slot left" line, at most once per interval. Guarded by this (onPartitionChanged). */
    private final LogThrottle noSlotLog = new LogThrottle(NO_SLOT_LOG_INTERVAL_MS);
    private final Object upkeepLock = new Object();
    /**
     * By topic id, the topic's partitions hosted here indexed by partition number: a fetch or produce by topic id
     * finds its partition without allocating a key (a 100k-partition fetch looks up every partition).
     */
    private final ConcurrentHashMap<Uuid, TopicPartitions> byId = new ConcurrentHashMap<>();

    /**
     * One topic's hosted partitions by index. Written by the metadata thread only: cells with volatile stores,
     * growth by doubling into a new array published through a volatile field, so adding every partition of a
     * large topic costs amortized O(1) each. A reader holding the old array misses only a partition added after
     * it looked, as if it had looked earlier.
     */
    private static final class TopicPartitions
    {
        private volatile AtomicReferenceArray<Partition> cells = new AtomicReferenceArray<>(1);
        private int hosted;

        Partition get(final int index)
        {
            final AtomicReferenceArray<Partition> current = cells;
            return index >= 0 && index < current.length() ? current.get(index) : null;
        }

        /** Returns how many partitions the topic still has here. */
        int set(final int index, final Partition partition)
        {
            AtomicReferenceArray<Partition> current = cells;
            if (index >= current.length())
            {
                if (partition == null)
                {
                    return hosted;
                }
                final AtomicReferenceArray<Partition> grown =
                    new AtomicReferenceArray<>(Math.max(index + 1, 2 * current.length()));
                for (int i = 0; i < current.length(); i++)
                {
                    grown.set(i, current.get(i));
                }
                cells = grown;
                current = grown;
            }
            final Partition previous = current.getAndSet(index, partition);
            hosted += (partition != null ? 1 : 0) - (previous != null ? 1 : 0);
            return hosted;
        }
    }
    private final ConcurrentHashMap<String, CopyOnWriteArrayList<LeadershipListener>> leadershipListeners =
        new ConcurrentHashMap<>();
    private final ThreadLocal<ProduceOwner> owners = new ThreadLocal<>();
    private final ConcurrentHashMap<EventExecutor, ProduceOwner> ownersByExecutor = new ConcurrentHashMap<>();
    private final DefaultEventExecutor internalExecutor;
    private final ScheduledExecutorService isrScheduler;
    private final ScheduledFuture<?> isrTask;
    private volatile FollowerFetching fetching;
    /** Written under this object's lock (the metadata thread), read by anyone. */
    private volatile long partitionChanges;
    private volatile java.util.function.IntPredicate isrEligible = brokerId -> true;

    public ReplicaManager(final ReplicaConfig config, final LogStore logs, final IsrChangeChannel isrChannel,
        final TopicCreator topicCreator, final LongSupplier clockMs)
    {
        this.config = config;
        this.logs = logs;
        this.isrChannel = isrChannel;
        this.topicCreator = topicCreator;
        this.clockMs = clockMs;
        this.hotPath = new HotPathAdapter(config.partitionSlots(), config.maxReplicas(),
            config.waitersPerPartition(), 256, config.syncMirrorLinks());
        this.syncLinks = new SyncLinkAssignments(hotPath.mirrorLinks());
        this.internalExecutor = new DefaultEventExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "replica-internal-" + config.brokerId());
            thread.setDaemon(true);
            return thread;
        });
        this.isrScheduler = Executors.newSingleThreadScheduledExecutor(runnable ->
        {
            final Thread thread = new Thread(runnable, "isr-upkeep-" + config.brokerId());
            thread.setDaemon(true);
            return thread;
        });
        final long periodMs = Math.max(10, config.replicaLagTimeMaxMs() / 2);
        this.isrTask = isrScheduler.scheduleWithFixedDelay(this::maybeChangeIsrs, periodMs, periodMs,
            TimeUnit.MILLISECONDS);
    }

    /** Sets the fetchers that follow leaders; before the first metadata is applied. */
    public void followerFetching(final FollowerFetching fetching)
    {
        this.fetching = fetching;
    }

    /** Which brokers may join an ISR now (registered and unfenced, from the metadata image). */
    public void isrEligibility(final java.util.function.IntPredicate eligible)
    {
        this.isrEligible = eligible;
    }

    public ReplicaConfig config()
    {
        return config;
    }

    public int brokerId()
    {
        return config.brokerId();
    }

    public long nowMs()
    {
        return clockMs.getAsLong();
    }

    public HotPathAdapter hotPath()
    {
        return hotPath;
    }

    public Optional<Partition> partition(final TopicPartition topicPartition)
    {
        return Optional.ofNullable(byName.get(PartitionKey.of(topicPartition)));
    }

    public Partition partitionOrNull(final Uuid topicId, final int partition)
    {
        final TopicPartitions partitions = byId.get(topicId);
        return partitions == null ? null : partitions.get(partition);
    }

    public Partition partitionOrNull(final TopicPartition topicPartition)
    {
        return byName.get(PartitionKey.of(topicPartition));
    }

    public java.util.Collection<Partition> partitions()
    {
        return byName.values();
    }

    // ------------------------------------------------------------------------------------------------------
    // Metadata (metadata thread).
    // ------------------------------------------------------------------------------------------------------

    /**
     * How many partition changes (leadership, followers, removals) this broker applied: a reader that sees the same
     * count twice knows no partition's role changed in between.
     */
    public long partitionChangeCount()
    {
        return partitionChanges;
    }

    @Override
    public synchronized void onPartitionChanged(final PartitionState state, final Map<String, String> topicConfig)
    {
        try
        {
            changePartition(state, topicConfig);
        }
        finally
        {
            partitionChanges++; // after the change: a reader of the new count sees it applied
        }
    }

    private void changePartition(final PartitionState state, final Map<String, String> topicConfig)
    {
        final TopicPartition tp = state.topicPartition();
        if (state.replicas().size() > config.maxReplicas())
        {
            LOG.error("{} has {} replicas, more than the {} this broker supports; not hosting it", tp,
                state.replicas().size(), config.maxReplicas());
            return;
        }
        Partition partition = byName.get(PartitionKey.of(tp));
        if (partition != null && !partition.topicId().equals(state.topicId()))
        {
            // A topic deleted and created again under the same name while this broker was away.
            onPartitionRemoved(tp);
            partition = null;
        }
        if (partition == null)
        {
            final Optional<PartitionLog> found = logs.get(tp);
            if (found.isPresent() && found.get().topicId() != null && !found.get().topicId().equals(state.topicId()))
            {
                // A log of an earlier topic of the same name, deleted while this broker was down: never serve
                // its records under the new topic.
                LOG.info("deleting the log of {} left by an earlier topic id {} (now {})", tp, found.get().topicId(),
                    state.topicId());
                logs.delete(tp);
            }
            final PartitionLog log = logs.getOrCreate(tp, state.topicId(), topicConfig);
            partition = new Partition(tp, state.topicId(), log, hotPath, config.brokerId(), topicConfig,
                drainCurrentOwnerTask, upkeepQueue);
            byName.put(PartitionKey.of(tp), partition);
            setById(state.topicId(), tp.partition(), partition);
        }
        partition.topicConfig(topicConfig);
        partition.syncLinks(syncLinkMask(state.topicId()));
        final boolean wasLeader = partition.isLeader();
        final FollowerFetching fetchers = fetching;
        if (state.leader() == config.brokerId())
        {
            if (fetchers != null)
            {
                fetchers.unfollow(partition);
            }
            if (!partition.becomeLeader(state, minIsr(topicConfig), nowMs()))
            {
                // Once per interval: a broker left alone leads every partition at once (a cluster stopping broker
                // by broker, say), and at 100k partitions a line each would bury everything else.
                final long heldBack = noSlotLog.occurrence(nowMs());
                if (heldBack >= 0)
                {
                    LOG.error("no partition slot left to lead {} ({} = {}); raise it{}", tp,
                        ReplicaConfig.PARTITION_SLOTS_CONFIG, config.partitionSlots(), heldBack == 0 ? "" :
                        " (" + heldBack + " more partitions found no slot since the last line like this)");
                }
                return;
            }
            if (!wasLeader)
            {
                notifyLeadership(tp, state.leaderEpoch(), true);
            }
        }
        else
        {
            partition.becomeFollower(state);
            if (wasLeader)
            {
                notifyLeadership(tp, state.leaderEpoch(), false);
            }
            if (fetchers != null)
            {
                if (state.leader() >= 0)
                {
                    fetchers.follow(partition, state.leader(), state.leaderEpoch());
                }
                else
                {
                    fetchers.unfollow(partition);
                }
            }
        }
    }

    /**
     * Where the metadata image says which sync mirrors are registered for a topic (its registeredMirrors set);
     * installed once by the broker before metadata is applied.
     */
    public void syncRegistrations(final java.util.function.Function<Uuid, java.util.Set<String>> lookup)
    {
        this.syncRegistrations = lookup;
    }

    /** Installs the broker's registered source-side sync metrics (the default records but is not exported). */
    public void syncMetrics(final SyncSourceMetrics metrics)
    {
        this.syncMetrics = metrics;
    }

    public SyncSourceMetrics syncMetrics()
    {
        return syncMetrics;
    }

    /** The sync mirror links of this broker: the mirror name behind each link index of the hot path. */
    public MirrorLinks mirrorLinks()
    {
        return hotPath.mirrorLinks();
    }

    /**
     * A topic's registered sync mirrors changed (metadata thread): each partition of it this broker hosts takes
     * the new set, and a leader re-gates its HW at once (hazard 6: a removal may complete waits).
     */
    public synchronized void onSyncRegistrationChanged(final Uuid topicId)
    {
        regate(topicId);
        releaseUnusedLinks();
    }

    private void regate(final Uuid topicId)
    {
        // The topic's own partitions, not every hosted one: promoting 1,000 topics at 100k partitions applies
        // 1,000 registrations on every source broker.
        final TopicPartitions partitions = byId.get(topicId);
        if (partitions == null)
        {
            return;
        }
        final int mask = syncLinkMask(topicId);
        final AtomicReferenceArray<Partition> cells = partitions.cells;
        for (int i = 0; i < cells.length(); i++)
        {
            final Partition partition = cells.get(i);
            if (partition != null && partition.topicId().equals(topicId))
            {
                partition.syncLinks(mask);
            }
        }
    }

    /** Links no hosted topic gates on go back to the pool; topics held for want of one are gated again. */
    private void releaseUnusedLinks()
    {
        for (final Uuid held : syncLinks.releaseUnused())
        {
            regate(held);
        }
    }

    private int syncLinkMask(final Uuid topicId)
    {
        final java.util.function.Function<Uuid, java.util.Set<String>> lookup = syncRegistrations;
        return syncLinks.maskFor(topicId, lookup == null ? java.util.Set.of() : lookup.apply(topicId));
    }

    /** Topics with partitions here that hold their HW because a registered sync mirror has no link here. */
    public int topicsHeldWithoutLink()
    {
        return syncLinks.topicsHeld();
    }

    @Override
    public synchronized void onPartitionRemoved(final TopicPartition topicPartition)
    {
        try
        {
            removePartition(topicPartition);
            releaseUnusedLinks();
        }
        finally
        {
            partitionChanges++;
        }
    }

    private void removePartition(final TopicPartition topicPartition)
    {
        final Partition partition = byName.remove(PartitionKey.of(topicPartition));
        if (partition == null)
        {
            return;
        }
        setById(partition.topicId(), topicPartition.partition(), null);
        if (!byId.containsKey(partition.topicId()))
        {
            syncLinks.forget(partition.topicId()); // none of its partitions is here any more
        }
        final boolean wasLeader = partition.isLeader();
        final FollowerFetching fetchers = fetching;
        if (fetchers != null)
        {
            fetchers.unfollow(partition);
        }
        partition.stop();
        if (wasLeader)
        {
            notifyLeadership(topicPartition, -1, false);
        }
        logs.delete(topicPartition);
    }

    /**
     * Deletes logs this broker holds for partitions the metadata no longer gives it (topics deleted, or moved,
     * while it was down). Call once the broker has caught up with the metadata log; {@code keep} names internal
     * logs that are not partitions (the controller's metadata log).
     */
    public synchronized void deleteStrayLogs(final java.util.function.Predicate<TopicPartition> keep)
    {
        for (final PartitionLog log : List.copyOf(logs.all()))
        {
            final TopicPartition tp = log.topicPartition();
            if (!byName.containsKey(PartitionKey.of(tp)) && !keep.test(tp))
            {
                LOG.info("deleting the log of {}: the metadata no longer assigns it to broker {}", tp,
                    config.brokerId());
                logs.delete(tp);
            }
        }
    }

    @Override
    public void onTopicConfigChanged(final String topic, final Map<String, String> topicConfig)
    {
        for (final Partition partition : byName.values())
        {
            if (partition.topicPartition().topic().equals(topic))
            {
                partition.topicConfig(topicConfig);
                logs.updateConfig(partition.topicPartition(), topicConfig);
            }
        }
    }

    /** Updates {@link #byId}; metadata thread (callers are synchronized). */
    private void setById(final Uuid topicId, final int partitionIndex, final Partition partition)
    {
        final TopicPartitions partitions = partition == null ? byId.get(topicId) :
            byId.computeIfAbsent(topicId, id -> new TopicPartitions());
        if (partitions != null && partitions.set(partitionIndex, partition) == 0)
        {
            byId.remove(topicId);
        }
    }

    int minIsr(final Map<String, String> topicConfig)
    {
        final String value = topicConfig == null ? null : topicConfig.get("min.insync.replicas");
        if (value != null)
        {
            try
            {
                return Math.max(1, Integer.parseInt(value.trim()));
            }
            catch (final NumberFormatException ignored)
            {
                // validated by the controller; a bad value here falls back to the broker default
            }
        }
        return config.defaultMinIsr();
    }

    private void notifyLeadership(final TopicPartition tp, final int leaderEpoch, final boolean leader)
    {
        final List<LeadershipListener> listeners = leadershipListeners.get(tp.topic());
        if (listeners == null)
        {
            return;
        }
        for (final LeadershipListener listener : listeners)
        {
            try
            {
                if (leader)
                {
                    listener.onBecomeLeader(tp, leaderEpoch);
                }
                else
                {
                    listener.onResign(tp);
                }
            }
            catch (final RuntimeException ex)
            {
                LOG.error("leadership listener failed for {}", tp, ex);
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // ISR upkeep: shrink after replica.lag.time.max.ms, expand on catch-up, through the controller.
    // ------------------------------------------------------------------------------------------------------

    /**
     * One round of the ISR upkeep over the partitions led here that changed since a round last found them quiet
     * (the periodic task; tests call it directly).
     */
    void maybeChangeIsrs()
    {
        synchronized (upkeepLock)
        {
            final long nowMs = nowMs();
            Partition queued;
            while ((queued = upkeepQueue.poll()) != null)
            {
                upkeepVisits.add(queued);
            }
            int kept = 0;
            for (int i = 0; i < upkeepVisits.size(); i++)
            {
                final Partition partition = upkeepVisits.get(i);
                boolean quiet = false;
                try
                {
                    maybeChangeIsr(partition, nowMs);
                    quiet = partition.leaveUpkeepIfQuiet();
                }
                catch (final RuntimeException ex)
                {
                    // Kept for the next round; a task that throws would end the periodic upkeep altogether.
                    LOG.error("ISR upkeep of {} failed", partition.topicPartition(), ex);
                }
                if (!quiet)
                {
                    upkeepVisits.set(kept++, partition);
                }
            }
            upkeepVisits.subList(kept, upkeepVisits.size()).clear();
        }
    }

    /** Partitions the ISR upkeep's next round visits, queued ones included (tests). */
    int upkeepVisitCount()
    {
        synchronized (upkeepLock)
        {
            return upkeepVisits.size() + upkeepQueue.size();
        }
    }

    /** Proposes an ISR change for one partition if its followers' progress calls for one. Any thread. */
    public void maybeChangeIsr(final Partition partition, final long nowMs)
    {
        final Partition.Role role = partition.role();
        final List<Integer> proposed = partition.proposedIsr(nowMs, config.replicaLagTimeMaxMs(),
            isrEligible);
        if (proposed == null || !partition.beginIsrChange(role, proposed))
        {
            return;
        }
        isrChannel.alterIsr(partition.topicPartition(), partition.topicId(), role.leaderEpoch(),
            role.partitionEpoch(), proposed).whenComplete((committed, error) ->
            {
                if (error != null)
                {
                    LOG.info("ISR change of {} to {} refused: {}", partition.topicPartition(), proposed,
                        error.toString());
                    partition.abortIsrChange(role);
                }
                // On success the committed state arrives through the metadata log and replaces the role.
            });
    }

    /** A follower that is out of the ISR reached the HW: expand now rather than at the next upkeep. */
    public void onFollowerCaughtUp(final Partition partition)
    {
        isrScheduler.execute(() -> maybeChangeIsr(partition, nowMs()));
    }

    // ------------------------------------------------------------------------------------------------------
    // Produce owners.
    // ------------------------------------------------------------------------------------------------------

    /**
     * The produce owner of the calling thread when it is an event loop, else the internal executor's (the
     * caller then must run the produce on {@link ProduceOwner#executor()}).
     */
    ProduceOwner ownerForCurrentThread()
    {
        ProduceOwner owner = owners.get();
        if (owner != null)
        {
            return owner;
        }
        final EventExecutor current = ThreadExecutorMap.currentExecutor();
        owner = ownerFor(current != null ? current : internalExecutor);
        if (current != null)
        {
            owners.set(owner);
        }
        return owner;
    }

    /**
     * Delivers the finished produces of the calling thread's own shard, if it has one. A wait decided by its
     * owner thread (the follower's connection shares the producer's event loop) skips the inbox and its wake-up,
     * so without this it would wait for the owner's next poll.
     */
    void drainCurrentOwner()
    {
        final ProduceOwner owner = owners.get();
        if (owner != null)
        {
            owner.drain();
        }
    }

    ProduceOwner ownerFor(final EventExecutor executor)
    {
        return ownersByExecutor.computeIfAbsent(executor, e -> new ProduceOwner(e, hotPath, clockMs,
            config.maxRequestsPerOwner(), 4 * config.maxRequestsPerOwner()));
    }

    // ------------------------------------------------------------------------------------------------------
    // ReplicaAccess: internal appends (coordinators).
    // ------------------------------------------------------------------------------------------------------

    @Override
    public CompletableFuture<PartitionLog.AppendResult> appendAndWait(final TopicPartition partition,
        final MemoryRecords records, final long timeoutMs)
    {
        return appendInternal(partition, records, timeoutMs, false);
    }

    @Override
    public CompletableFuture<PartitionLog.AppendResult> appendMarkersAndWait(final TopicPartition partition,
        final MemoryRecords markers, final long timeoutMs)
    {
        return appendInternal(partition, markers, timeoutMs, true);
    }

    private CompletableFuture<PartitionLog.AppendResult> appendInternal(final TopicPartition tp,
        final MemoryRecords records, final long timeoutMs, final boolean markers)
    {
        final CompletableFuture<PartitionLog.AppendResult> future = new CompletableFuture<>();
        final ProduceOwner owner = ownerFor(internalExecutor);
        internalExecutor.execute(() -> appendOnOwner(owner, tp, records, timeoutMs, markers, future));
        return future;
    }

    private void appendOnOwner(final ProduceOwner owner, final TopicPartition tp, final MemoryRecords records,
        final long timeoutMs, final boolean markers, final CompletableFuture<PartitionLog.AppendResult> future)
    {
        if (owners.get() == null)
        {
            owners.set(owner);
        }
        final Partition partition = byName.get(PartitionKey.of(tp));
        if (partition == null)
        {
            future.completeExceptionally(new NotLeaderOrFollowerException("no replica of " + tp + " here"));
            return;
        }
        final PartitionLog.AppendResult[] appended = new PartitionLog.AppendResult[1];
        final int request = owner.begin(1, timeoutMs, (shard, req) ->
        {
            final int outcome = shard.cellOutcome(shard.firstCell(req));
            final short code = AckOutcome.errorCode(outcome);
            if (code == Errors.NONE.code())
            {
                future.complete(appended[0]);
            }
            else
            {
                future.completeExceptionally(Errors.forCode(code).exception());
            }
        });
        if (request == RequestShard.NO_REQUEST)
        {
            future.completeExceptionally(new TimeoutException("too many appends in flight"));
            return;
        }
        try
        {
            appended[0] = partition.appendAsLeader(records, true, owner.shard(), request, markers);
        }
        catch (final ApiException ex)
        {
            owner.shard().skip(request, Errors.forException(ex).code());
        }
        catch (final RuntimeException ex)
        {
            LOG.error("internal append to {} failed", tp, ex);
            owner.shard().skip(request, Errors.UNKNOWN_SERVER_ERROR.code());
        }
        owner.drain();
    }

    @Override
    public long appendAsLeaderNow(final TopicPartition tp, final MemoryRecords records)
    {
        final Partition partition = byName.get(PartitionKey.of(tp));
        if (partition == null)
        {
            throw new NotLeaderOrFollowerException("no replica of " + tp + " here");
        }
        return partition.appendAsCoordinator(records).lastOffset() + 1;
    }

    @Override
    public boolean highWatermarkListener(final TopicPartition tp,
        final java.util.function.ObjLongConsumer<TopicPartition> listener)
    {
        final Partition partition = byName.get(PartitionKey.of(tp));
        if (partition == null)
        {
            return false;
        }
        partition.highWatermarkListenerVolatile(listener);
        return true;
    }

    @Override
    public Optional<Map<String, String>> topicConfig(final TopicPartition tp)
    {
        final Partition partition = byName.get(PartitionKey.of(tp));
        return partition == null ? Optional.empty() : Optional.of(partition.topicConfig());
    }

    @Override
    public Optional<PartitionLog> leaderLog(final TopicPartition partition)
    {
        final Partition p = byName.get(PartitionKey.of(partition));
        return p != null && p.isLeader() ? Optional.of(p.log()) : Optional.empty();
    }

    @Override
    public CompletableFuture<Void> ensureTopic(final String topic, final int partitions,
        final short replicationFactor, final Map<String, String> topicConfig)
    {
        return topicCreator.ensureTopic(topic, partitions, replicationFactor, topicConfig);
    }

    @Override
    public void addLeadershipListener(final String topic, final LeadershipListener listener)
    {
        leadershipListeners.computeIfAbsent(topic, t -> new CopyOnWriteArrayList<>()).add(listener);
        for (final Partition partition : byName.values())
        {
            if (partition.topicPartition().topic().equals(topic) && partition.isLeader())
            {
                listener.onBecomeLeader(partition.topicPartition(), partition.role().leaderEpoch());
            }
        }
    }

    @Override
    public void close()
    {
        isrTask.cancel(false);
        isrScheduler.shutdownNow();
        syncMetrics.close();
        final FollowerFetching fetchers = fetching;
        if (fetchers != null)
        {
            fetchers.close();
        }
        for (final Partition partition : byName.values())
        {
            partition.stop();
        }
        internalExecutor.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}

package io.syncmirror.broker.mirror;

import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.metadata.MetadataImage;
import io.syncmirror.broker.metadata.MirrorTopicConfig;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.replica.PartitionKey;
import io.syncmirror.broker.replica.ReplicaManager;

/**
 * The mirror partitions this broker coordinates: those whose destination partition it leads, each loaded from
 * {@code __mirror_state} when it is taken over and let go when another broker leads it. The coordinator's thread
 * walks the image and changes the set; queries on any thread read it.
 */
final class CoordinatedPartitions
{
    private static final Logger LOG = LoggerFactory.getLogger(MirrorCoordinator.class);

    /** One step of a coordinated partition, the coordinator's. */
    @FunctionalInterface
    interface Stepper
    {
        void step(MirrorPartition mirror, boolean mirrored, MetadataImage current);
    }

    /**
     * New partitions one walk takes over at most. Taking one over costs a few milliseconds on a saturated 2-core
     * machine (its state read, its first transition's write, its source leader): a broker becoming leader of 3,300
     * mirror partitions at once (an add of 100 topics of 100) walked for 9-10 s, and at 1,000 topics for minutes, in
     * which no operator command queued for the coordinator ran (the add's own desired types among them). In steps
     * of this many, a command waits one step.
     */
    static final int MAX_LOADS_PER_WALK = 1_000;

    private final int brokerId;
    private final ReplicaManager replicas;
    private final MirrorStateStore store;
    private final MirrorFetchers fetchers;
    private final Map<PartitionKey, MirrorPartition> coordinated = new ConcurrentHashMap<>();
    /** Counts the puts into and removals from the coordinated partitions (coordinator thread). */
    private long coordinatedChanges;
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
    /** Whether the last walk left new partitions for the next one ({@link #MAX_LOADS_PER_WALK}). */
    private boolean loadsDeferred;

    /** A released partition's last write, and the desired type it had in force should that write fail. */
    private record WriteInFlight(CompletableFuture<Void> write, String mirrorName, byte desiredMirrorType)
    {
    }

    CoordinatedPartitions(final int brokerId, final ReplicaManager replicas, final MirrorStateStore store,
        final MirrorFetchers fetchers)
    {
        this.brokerId = brokerId;
        this.replicas = replicas;
        this.store = store;
        this.fetchers = fetchers;
    }

    /**
     * Steps every mirror partition the image's topics say this broker leads, takes over the new ones and lets go of
     * those it no longer leads. False when a partition's state could not be loaded (the next tick walks again).
     */
    boolean walk(final MetadataImage current, final long tickNumber, final Stepper stepper)
    {
        boolean complete = true;
        final StateLoader loader = new StateLoader();
        int loads = 0;
        loadsDeferred = false;
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
                if (mirror == null && loads >= MAX_LOADS_PER_WALK)
                {
                    loadsDeferred = true; // the next walk, at once, takes it over
                    complete = false;
                    continue;
                }
                if (mirror == null)
                {
                    loads++;
                    try
                    {
                        mirror = load(mirrorName, partition, loader);
                        coordinated.put(key, mirror);
                        coordinatedChanges++;
                    }
                    catch (final RuntimeException e)
                    {
                        LOG.warn("Mirror '{}' {}: cannot load its state yet: {}", mirrorName, tp, e.toString());
                        complete = false;
                        continue;
                    }
                }
                mirror.ledInTick = tickNumber;
                mirror.mirrored = active != null;
                stepper.step(mirror, mirror.mirrored, current);
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

    /** Whether the last walk left partitions led here to the next walk, which should then come at once. */
    boolean loadsDeferred()
    {
        return loadsDeferred;
    }

    /**
     * Per mirror, the topics whose source leaders this tick's steps will look up: with {@code walking}, those with
     * a partition the image says this broker leads and that is not coordinated yet (a new mirror topic, a new
     * leadership), as far as the walk's {@link #MAX_LOADS_PER_WALK} reaches; always, those of coordinated
     * partitions that do not fetch and need a fresh leader. Asked in one describe per mirror before the steps, so
     * that an add of a hundred topics costs one round trip to the source, not one per topic (5 s a walk at 10k).
     */
    Map<String, java.util.Set<String>> topicsToLookUp(final MetadataImage current, final boolean walking)
    {
        return topicsToLookUp(current, walking, coordinated.values());
    }

    /**
     * As {@link #topicsToLookUp(MetadataImage, boolean)}, looking for partitions that need a fresh leader among
     * {@code candidates} only: every coordinated partition that is not fetching is among them (the coordinator's
     * partitions to step, see MirrorCoordinator#tick).
     */
    Map<String, java.util.Set<String>> topicsToLookUp(final MetadataImage current, final boolean walking,
        final java.util.Collection<MirrorPartition> candidates)
    {
        final Map<String, java.util.Set<String>> byMirror = new HashMap<>();
        if (walking)
        {
            int toLoad = 0; // as the walk counts its loads, so that only the topics it will reach are described
            for (final TopicMetadata topic : current.topics())
            {
                if (toLoad >= MAX_LOADS_PER_WALK)
                {
                    break;
                }
                final String active = MirrorTopicConfig.activeMirror(topic.config());
                if (active == null)
                {
                    continue;
                }
                for (final PartitionState state : topic.partitions())
                {
                    // The image's leader, not the replica's role: the broker's metadata applier makes thousands of
                    // new partitions leaders while a walk runs, and those the walk reaches look up their leaders.
                    if (state.leader() == brokerId &&
                        !coordinated.containsKey(PartitionKey.of(state.topicPartition())))
                    {
                        byMirror.computeIfAbsent(active, k -> new java.util.HashSet<>()).add(topic.name());
                        toLoad++;
                    }
                }
            }
        }
        for (final MirrorPartition mirror : candidates)
        {
            if (mirror.mirrored && !mirror.fetching && mirror.leaderLookupNeeded)
            {
                byMirror.computeIfAbsent(mirror.mirrorName, k -> new java.util.HashSet<>())
                    .add(mirror.topicPartition.topic());
            }
        }
        return byMirror;
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

    /** A loader for one pass over many partitions (a tick's walk, one desired-type command). */
    StateLoader stateLoader()
    {
        return new StateLoader();
    }

    /**
     * Reads the states of the partitions one tick takes over: the first with one read, and once there is a second,
     * all of them in one pass over the store (a new leader of thousands of partitions, a mirror's first tick).
     */
    final class StateLoader
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

    void release(final MirrorPartition mirror)
    {
        final CompletableFuture<Void> pending = mirror.pendingWrite;
        if (pending != null && !pending.isDone())
        {
            writesInFlightAtRelease.put(PartitionKey.of(mirror.topicPartition),
                new WriteInFlight(pending, mirror.mirrorName, mirror.record.desiredMirrorType()));
        }
        // Another broker leads it now and reports for it; this one's reports would be fenced anyway.
        fetchers.syncReporting(mirror, false);
        coordinated.remove(PartitionKey.of(mirror.topicPartition), mirror);
        coordinatedChanges++;
        fetchers.remove(mirror.topicPartition);
        mirror.partition.mirrorAppends(false);
    }

    Collection<MirrorPartition> values()
    {
        return coordinated.values();
    }

    /** The coordinated partition, null when this broker does not coordinate it. */
    MirrorPartition get(final TopicPartition partition)
    {
        return coordinated.get(PartitionKey.of(partition));
    }

    /** Counts the partitions taken over and let go: a grouping of them is stale when it moved. */
    long changes()
    {
        return coordinatedChanges;
    }

    /** Coordinates a partition as if a walk had loaded it (tests). */
    void add(final MirrorPartition mirror)
    {
        coordinated.put(PartitionKey.of(mirror.topicPartition), mirror);
        coordinatedChanges++;
    }

    /** Lets go of the partition as if another broker led it now (tests). */
    void release(final TopicPartition partition)
    {
        final MirrorPartition mirror = get(partition);
        if (mirror != null)
        {
            release(mirror);
        }
    }

    /**
     * An operator's desired type set on a partition led here but not coordinated yet: the walk that loads it takes
     * the type from here should the write not be readable yet.
     */
    void desiredBeforeLoad(final String mirrorName, final Uuid topicId, final int partition, final byte type)
    {
        desiredBeforeLoad.put(new StateKey(mirrorName, topicId, partition), type);
    }
}

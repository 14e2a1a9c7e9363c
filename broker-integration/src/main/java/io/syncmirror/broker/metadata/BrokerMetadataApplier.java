package io.syncmirror.broker.metadata;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Predicate;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.Records;

/**
 * Applies the controller's metadata log to this broker's {@link MetadataImage}, in offset order, and tells the
 * {@link MetadataListener} about partitions this broker hosts.
 *
 * <p>Thread-safety: {@link #apply} runs on one thread only (the broker's metadata thread, owned by
 * {@link BrokerLifecycleManager}); {@link #image()} and {@link #await} may be called from any thread. The image is
 * published (volatile) before listeners run, so a listener sees the image it is told about. As a
 * {@link MetadataView} it is live: each getter reads the image current at the call (use {@link #image()} to
 * read several things from one image).
 */
public final class BrokerMetadataApplier implements MetadataView
{
    private final int brokerId;
    private final int controllerId;
    private final MetadataListener listener;
    private volatile MetadataImage image;
    /** The cluster's producer id floor (raised by mirror failovers): no producer id below it may be handed out. */
    private volatile long producerIdFloor = -1L;
    private final List<Waiter> waiters = new ArrayList<>();
    private final List<java.util.function.Consumer<MetadataImage>> imageListeners =
        new java.util.concurrent.CopyOnWriteArrayList<>();
    /** While true the partition listener is told nothing; see {@link #holdPartitions}. Metadata thread. */
    private boolean partitionsHeld;

    public BrokerMetadataApplier(final int brokerId, final int controllerId, final MetadataListener listener)
    {
        this.brokerId = brokerId;
        this.controllerId = controllerId;
        this.listener = listener;
        this.image = new MetadataImage(-1, -1, controllerId, Map.of(), Map.of(), Map.of(), Map.of(), Map.of(),
            Map.of(), Map.of());
    }

    /**
     * Adds a listener told of every newly published image, on the metadata thread before the partition listener
     * runs; it must not block (e.g. the {@link KafkaImageBridge}, which only hands the image to its own thread).
     * It is told of the current image at once.
     */
    public void addImageListener(final java.util.function.Consumer<MetadataImage> imageListener)
    {
        imageListeners.add(imageListener);
        imageListener.accept(image);
    }

    public MetadataImage image()
    {
        return image;
    }

    /**
     * Applies the log to the image but tells the partition listener nothing until {@link #releasePartitions}: a
     * restarted broker replays a log that may still name it leader of partitions it must not lead before the
     * controller has taken its new registration (Kafka's broker installs its metadata publishers only after its
     * initial catch-up, for the same reason). Before the first apply.
     */
    public void holdPartitions()
    {
        partitionsHeld = true;
    }

    /**
     * Ends {@link #holdPartitions}: tells the listener every topic's sync registrations and then the state of every
     * partition this broker hosts, as one snapshot load would. Metadata thread; a no-op when not held.
     */
    public void releasePartitions()
    {
        if (!partitionsHeld)
        {
            return;
        }
        partitionsHeld = false;
        final MetadataImage current = image;
        for (final Uuid topicId : current.syncStatesMap().keySet())
        {
            listener.onSyncRegistrationChanged(topicId);
        }
        for (final TopicMetadata topic : current.topics())
        {
            for (final PartitionState s : topic.partitions())
            {
                if (s != null && s.replicas().contains(brokerId))
                {
                    listener.onPartitionChanged(s, topic.config());
                }
            }
        }
    }

    public int brokerId()
    {
        return brokerId;
    }

    /** The highest producer id floor applied, -1 when none. Any thread. */
    public long producerIdFloor()
    {
        return producerIdFloor;
    }

    @Override
    public long appliedOffset()
    {
        return image.appliedOffset();
    }

    @Override
    public long latestKnownOffset()
    {
        return image.latestKnownOffset();
    }

    @Override
    public java.util.Optional<TopicMetadata> topic(final String name)
    {
        return image.topic(name);
    }

    @Override
    public java.util.Optional<TopicMetadata> topic(final Uuid id)
    {
        return image.topic(id);
    }

    @Override
    public java.util.Collection<TopicMetadata> topics()
    {
        return image.topics();
    }

    @Override
    public java.util.Collection<BrokerEndpoint> liveBrokers()
    {
        return image.liveBrokers();
    }

    @Override
    public java.util.Optional<BrokerEndpoint> broker(final int id)
    {
        return image.broker(id);
    }

    @Override
    public int controllerId()
    {
        return controllerId;
    }

    /**
     * Applies the records of one metadata fetch above the applied offset; the applied offset moves past control
     * batches too. {@code highWatermark} is the fetch
     * response's HW (exclusive: the next offset to be committed), so the latest known offset becomes HW - 1.
     */
    public void apply(final Records records, final long highWatermark)
    {
        final MetadataImage before = image;
        final Delta delta = new Delta(before);
        for (final MetadataRecordCodec.OffsetRecord r : MetadataRecordCodec.decodeAll(records))
        {
            if (r.offset() > delta.appliedOffset)
            {
                delta.apply(r.record());
                delta.appliedOffset = r.offset();
            }
        }
        for (final org.apache.kafka.common.record.internal.RecordBatch batch : records.batches())
        {
            // The metadata quorum's control batches (a leader's LeaderChange) hold no metadata, but the next
            // fetch starts after them, and a heartbeat reports them applied.
            if (batch.isControlBatch() && batch.lastOffset() > delta.appliedOffset)
            {
                delta.appliedOffset = batch.lastOffset();
            }
        }
        publish(delta, Math.max(before.latestKnownOffset(), Math.max(highWatermark - 1, delta.appliedOffset)));
    }

    private void publish(final Delta delta, final long latestKnown)
    {
        final MetadataImage after = delta.build(latestKnown);
        image = after;
        for (final java.util.function.Consumer<MetadataImage> imageListener : imageListeners)
        {
            imageListener.accept(after);
        }
        notifyListener(delta, after);
        completeWaiters(after);
    }

    /**
     * Replaces the image with the state of a metadata snapshot ending at {@code endOffset} (exclusive): the
     * broker was behind the log start of the voter it fetches from. Topics and mirrors the snapshot does not hold
     * are removed (a hosted partition of a deleted topic is dropped as by its RemoveTopic); everything it holds is
     * restated, and hosted partitions are told their state again, which a partition already in that state
     * ignores. The applied offset becomes {@code endOffset - 1}; the next fetch continues at {@code endOffset}.
     */
    public void loadSnapshot(final Records snapshot, final long endOffset)
    {
        final List<MetadataRecord> records = new ArrayList<>();
        final Set<Uuid> topics = new java.util.HashSet<>();
        final Set<String> mirrorNames = new java.util.HashSet<>();
        for (final MetadataRecordCodec.OffsetRecord r : MetadataRecordCodec.decodeAll(snapshot))
        {
            records.add(r.record());
            if (r.record() instanceof MetadataRecord.Topic t)
            {
                topics.add(t.topicId());
            }
            else if (r.record() instanceof MetadataRecord.Mirror m)
            {
                mirrorNames.add(m.name());
            }
        }
        final MetadataImage before = image;
        final Delta delta = new Delta(before);
        for (final Uuid topicId : List.copyOf(before.topicsById().keySet()))
        {
            if (!topics.contains(topicId))
            {
                delta.apply(new MetadataRecord.RemoveTopic(topicId));
            }
        }
        for (final String mirror : List.copyOf(before.mirrorsMap().keySet()))
        {
            if (!mirrorNames.contains(mirror))
            {
                delta.apply(new MetadataRecord.RemoveMirror(mirror));
            }
        }
        // Registrations and mirror types are restated in full: clear what the snapshot may no longer hold.
        before.syncStatesMap().forEach((topicId, state) ->
        {
            state.registeredMirrors().forEach(mirror ->
                delta.apply(new MetadataRecord.MirrorSyncRegistrationChange(topicId, mirror, false)));
            delta.apply(new MetadataRecord.MirrorTopicTypeChange(topicId, (byte) 0));
        });
        // So are SCRAM credentials: one the snapshot does not hold was deleted.
        before.scramCredentials().forEach((user, byMechanism) -> byMechanism.keySet().forEach(mechanism ->
            delta.apply(new MetadataRecord.RemoveUserScramCredential(user, mechanism))));
        // And ACLs.
        before.acls().keySet().forEach(id -> delta.apply(new MetadataRecord.RemoveAcl(id)));
        records.forEach(delta::apply);
        delta.appliedOffset = Math.max(before.appliedOffset(), endOffset - 1);
        publish(delta, Math.max(before.latestKnownOffset(), endOffset - 1));
    }

    /**
     * Completes (on the metadata thread, or at once on the caller's) with the first image for which
     * {@code condition} holds. Callers add their own timeout.
     */
    public CompletableFuture<MetadataImage> await(final Predicate<MetadataImage> condition)
    {
        final Waiter waiter = new Waiter(condition, new CompletableFuture<>());
        synchronized (waiters)
        {
            waiters.add(waiter);
        }
        // Checked after enqueueing so an image published in between is not missed.
        final MetadataImage current = image;
        if (condition.test(current))
        {
            synchronized (waiters)
            {
                waiters.remove(waiter);
            }
            waiter.future.complete(current);
        }
        return waiter.future;
    }

    private void completeWaiters(final MetadataImage current)
    {
        final List<Waiter> done = new ArrayList<>();
        synchronized (waiters)
        {
            waiters.removeIf(w ->
            {
                if (w.future.isDone())
                {
                    return true;
                }
                if (w.condition.test(current))
                {
                    done.add(w);
                    return true;
                }
                return false;
            });
        }
        for (final Waiter w : done)
        {
            w.future.complete(current);
        }
    }

    private void notifyListener(final Delta delta, final MetadataImage after)
    {
        if (partitionsHeld)
        {
            return; // releasePartitions restates everything from the image
        }
        // Registrations first: a partition that becomes leader in the same batch then starts gating with them.
        for (final Uuid topicId : delta.syncRegistrationChanged)
        {
            listener.onSyncRegistrationChanged(topicId);
        }
        for (final TopicPartition removed : delta.removedHosted)
        {
            listener.onPartitionRemoved(removed);
        }
        for (final String topic : delta.configChanged)
        {
            final java.util.Optional<TopicMetadata> t = after.topic(topic);
            if (t.isPresent() && hosts(t.get()) && !delta.createdTopics.contains(t.get().id()))
            {
                listener.onTopicConfigChanged(topic, t.get().config());
            }
        }
        for (final Map.Entry<Uuid, Set<Integer>> changed : delta.changedPartitions.entrySet())
        {
            final TopicMetadata topic = after.topicsById().get(changed.getKey());
            if (topic == null)
            {
                continue;
            }
            for (final int p : changed.getValue())
            {
                final PartitionState s = topic.partitions().get(p);
                if (s != null && s.replicas().contains(brokerId))
                {
                    listener.onPartitionChanged(s, topic.config());
                }
            }
        }
    }

    private boolean hosts(final TopicMetadata topic)
    {
        for (final PartitionState s : topic.partitions())
        {
            if (s != null && s.replicas().contains(brokerId))
            {
                return true;
            }
        }
        return false;
    }

    private record Waiter(Predicate<MetadataImage> condition, CompletableFuture<MetadataImage> future)
    {
    }

    /** The changes of one apply, copying the image's maps only when first written. */
    private final class Delta
    {
        private final MetadataImage base;
        long appliedOffset;
        private Map<Uuid, TopicMetadata> topicsById;
        private Map<String, Uuid> topicIdsByName;
        private Map<Integer, MetadataImage.Broker> brokers;
        private Map<String, MirrorDefinition> mirrors;
        private Map<Uuid, MetadataImage.TopicSyncState> syncStates;
        private Map<String, Map<Byte, MetadataRecord.UserScramCredential>> scramCredentials;
        private Map<Uuid, org.apache.kafka.metadata.authorizer.StandardAcl> acls;
        private final Map<Uuid, List<PartitionState>> partitionsInProgress = new HashMap<>();
        private final Map<Uuid, Map<String, String>> configsInProgress = new HashMap<>();
        final LinkedHashMap<Uuid, Set<Integer>> changedPartitions = new LinkedHashMap<>();
        final List<TopicPartition> removedHosted = new ArrayList<>();
        final Set<String> configChanged = new LinkedHashSet<>();
        final Set<Uuid> createdTopics = new java.util.HashSet<>();
        final Set<Uuid> syncRegistrationChanged = new LinkedHashSet<>();

        Delta(final MetadataImage base)
        {
            this.base = base;
            this.appliedOffset = base.appliedOffset();
            this.topicsById = base.topicsById();
            this.topicIdsByName = base.topicIdsByName();
            this.brokers = base.brokers();
            this.mirrors = base.mirrorsMap();
            this.syncStates = base.syncStatesMap();
            this.scramCredentials = base.scramCredentials();
            this.acls = base.acls();
        }

        private Map<Uuid, org.apache.kafka.metadata.authorizer.StandardAcl> aclsForWrite()
        {
            if (acls == base.acls())
            {
                acls = new HashMap<>(acls);
            }
            return acls;
        }

        /** Credentials are few: a change copies the whole map, two levels deep, once per apply. */
        private Map<String, Map<Byte, MetadataRecord.UserScramCredential>> scramForWrite()
        {
            if (scramCredentials == base.scramCredentials())
            {
                final Map<String, Map<Byte, MetadataRecord.UserScramCredential>> copy = new TreeMap<>();
                scramCredentials.forEach((user, byMechanism) -> copy.put(user, new TreeMap<>(byMechanism)));
                scramCredentials = copy;
            }
            return scramCredentials;
        }

        private Map<Uuid, MetadataImage.TopicSyncState> syncStatesForWrite()
        {
            if (syncStates == base.syncStatesMap())
            {
                syncStates = new HashMap<>(syncStates);
            }
            return syncStates;
        }

        private Map<String, MirrorDefinition> mirrorsForWrite()
        {
            if (mirrors == base.mirrorsMap())
            {
                mirrors = new TreeMap<>(mirrors);
            }
            return mirrors;
        }

        private Map<Uuid, TopicMetadata> topicsForWrite()
        {
            if (topicsById == base.topicsById())
            {
                topicsById = new LinkedHashMap<>(topicsById);
                topicIdsByName = new HashMap<>(topicIdsByName);
            }
            return topicsById;
        }

        private Map<Integer, MetadataImage.Broker> brokersForWrite()
        {
            if (brokers == base.brokers())
            {
                brokers = new TreeMap<>(brokers);
            }
            return brokers;
        }

        private List<PartitionState> partitionsForWrite(final Uuid topicId)
        {
            return partitionsInProgress.computeIfAbsent(topicId, id ->
            {
                final TopicMetadata t = topicsById.get(id);
                return t == null ? new ArrayList<>() : new ArrayList<>(t.partitions());
            });
        }

        private Map<String, String> configForWrite(final Uuid topicId)
        {
            return configsInProgress.computeIfAbsent(topicId, id ->
            {
                final TopicMetadata t = topicsById.get(id);
                return t == null ? new TreeMap<>() : new TreeMap<>(t.config());
            });
        }

        void apply(final MetadataRecord record)
        {
            if (record instanceof MetadataRecord.RegisterBroker r)
            {
                brokersForWrite().put(r.brokerId(), new MetadataImage.Broker(r.endpoint(), r.brokerEpoch(), true));
            }
            else if (record instanceof MetadataRecord.FenceBroker r)
            {
                setFenced(r.brokerId(), r.brokerEpoch(), true);
            }
            else if (record instanceof MetadataRecord.UnfenceBroker r)
            {
                setFenced(r.brokerId(), r.brokerEpoch(), false);
            }
            else if (record instanceof MetadataRecord.Topic r)
            {
                topicsForWrite().put(r.topicId(), new TopicMetadata(r.name(), r.topicId(), Map.of(), List.of()));
                topicIdsByName.put(r.name(), r.topicId());
                partitionsInProgress.put(r.topicId(), new ArrayList<>());
                configsInProgress.put(r.topicId(), new TreeMap<>());
                createdTopics.add(r.topicId());
            }
            else if (record instanceof MetadataRecord.Partition r)
            {
                final PartitionState s = r.state();
                if (!topicsById.containsKey(s.topicId()))
                {
                    return;
                }
                final List<PartitionState> partitions = partitionsForWrite(s.topicId());
                while (partitions.size() <= s.partition())
                {
                    partitions.add(null);
                }
                partitions.set(s.partition(), s);
                changedPartitions.computeIfAbsent(s.topicId(), k -> new LinkedHashSet<>()).add(s.partition());
            }
            else if (record instanceof MetadataRecord.PartitionChange r)
            {
                if (!topicsById.containsKey(r.topicId()))
                {
                    return;
                }
                final List<PartitionState> partitions = partitionsForWrite(r.topicId());
                if (r.partition() >= partitions.size() || partitions.get(r.partition()) == null)
                {
                    return;
                }
                final PartitionState s = partitions.get(r.partition());
                partitions.set(r.partition(), new PartitionState(s.topic(), s.topicId(), s.partition(), s.replicas(),
                    r.isr(), r.leader(), r.leaderEpoch(), r.partitionEpoch()));
                changedPartitions.computeIfAbsent(r.topicId(), k -> new LinkedHashSet<>()).add(r.partition());
            }
            else if (record instanceof MetadataRecord.RemoveTopic r)
            {
                final TopicMetadata removed = topicsById.get(r.topicId());
                if (removed == null)
                {
                    return;
                }
                final List<PartitionState> partitions = partitionsInProgress.containsKey(r.topicId())
                    ? partitionsInProgress.get(r.topicId()) : removed.partitions();
                for (final PartitionState s : partitions)
                {
                    if (s != null && s.replicas().contains(brokerId) && !createdTopics.contains(r.topicId()))
                    {
                        removedHosted.add(s.topicPartition());
                    }
                }
                topicsForWrite().remove(r.topicId());
                topicIdsByName.remove(removed.name());
                partitionsInProgress.remove(r.topicId());
                configsInProgress.remove(r.topicId());
                changedPartitions.remove(r.topicId());
                configChanged.remove(removed.name());
                if (syncStates.containsKey(r.topicId()))
                {
                    syncStatesForWrite().remove(r.topicId());
                }
            }
            else if (record instanceof MetadataRecord.Config r)
            {
                final Uuid topicId = topicIdsByName.get(r.topic());
                if (topicId == null)
                {
                    return;
                }
                final Map<String, String> config = configForWrite(topicId);
                if (r.value() == null)
                {
                    config.remove(r.key());
                }
                else
                {
                    config.put(r.key(), r.value());
                }
                configChanged.add(r.topic());
            }
            else if (record instanceof MetadataRecord.Mirror r)
            {
                mirrorsForWrite().put(r.name(), r.definition());
            }
            else if (record instanceof MetadataRecord.RemoveMirror r)
            {
                if (mirrors.containsKey(r.name()))
                {
                    mirrorsForWrite().remove(r.name());
                }
            }
            else if (record instanceof MetadataRecord.MirrorSyncRegistrationChange r)
            {
                final MetadataImage.TopicSyncState old = syncStates.getOrDefault(r.topicId(),
                    MetadataImage.TopicSyncState.NONE);
                final java.util.TreeSet<String> mirrorsNow = new java.util.TreeSet<>(old.registeredMirrors());
                if (r.registered() ? mirrorsNow.add(r.mirrorName()) : mirrorsNow.remove(r.mirrorName()))
                {
                    syncStatesForWrite().put(r.topicId(), new MetadataImage.TopicSyncState(
                        Collections.unmodifiableSet(mirrorsNow), old.mirrorType()));
                    syncRegistrationChanged.add(r.topicId());
                }
            }
            else if (record instanceof MetadataRecord.MirrorTopicTypeChange r)
            {
                final MetadataImage.TopicSyncState old = syncStates.getOrDefault(r.topicId(),
                    MetadataImage.TopicSyncState.NONE);
                if (old.mirrorType() != r.mirrorType())
                {
                    syncStatesForWrite().put(r.topicId(), new MetadataImage.TopicSyncState(old.registeredMirrors(),
                        r.mirrorType()));
                }
            }
            else if (record instanceof MetadataRecord.UserScramCredential r)
            {
                scramForWrite().computeIfAbsent(r.user(), u -> new TreeMap<>()).put(r.mechanism(), r);
            }
            else if (record instanceof MetadataRecord.RemoveUserScramCredential r)
            {
                final Map<Byte, MetadataRecord.UserScramCredential> held = scramCredentials.get(r.user());
                if (held != null && held.containsKey(r.mechanism()))
                {
                    final Map<Byte, MetadataRecord.UserScramCredential> user = scramForWrite().get(r.user());
                    user.remove(r.mechanism());
                    if (user.isEmpty())
                    {
                        scramCredentials.remove(r.user());
                    }
                }
            }
            else if (record instanceof MetadataRecord.Acl r)
            {
                aclsForWrite().put(r.id(), r.acl());
            }
            else if (record instanceof MetadataRecord.RemoveAcl r)
            {
                if (acls.containsKey(r.id()))
                {
                    aclsForWrite().remove(r.id());
                }
            }
            else if (record instanceof MetadataRecord.ProducerIdFloor r)
            {
                // The controller allocates blocks above it; a transaction coordinator holding an older block
                // must skip the ids below it (hazard 8).
                producerIdFloor = Math.max(producerIdFloor, r.floor());
            }
            // ProducerIds, MirrorAcl and RemoveMirrorAcl records concern the controller only.
        }

        private void setFenced(final int id, final long epoch, final boolean fenced)
        {
            final MetadataImage.Broker broker = brokers.get(id);
            if (broker != null && broker.epoch() == epoch && broker.fenced() != fenced)
            {
                brokersForWrite().put(id, new MetadataImage.Broker(broker.endpoint(), epoch, fenced));
            }
        }

        MetadataImage build(final long latestKnownOffset)
        {
            final Set<Uuid> touched = new LinkedHashSet<>(partitionsInProgress.keySet());
            touched.addAll(configsInProgress.keySet());
            for (final Uuid id : touched)
            {
                final TopicMetadata t = topicsById.get(id);
                if (t == null)
                {
                    continue;
                }
                final List<PartitionState> partitions = partitionsInProgress.containsKey(id)
                    ? Collections.unmodifiableList(new ArrayList<>(partitionsInProgress.get(id))) : t.partitions();
                final Map<String, String> config = configsInProgress.containsKey(id)
                    ? Collections.unmodifiableMap(new TreeMap<>(configsInProgress.get(id))) : t.config();
                topicsForWrite().put(id, new TopicMetadata(t.name(), id, config, partitions));
            }
            return new MetadataImage(appliedOffset, latestKnownOffset, controllerId,
                topicsById == base.topicsById() ? topicsById : Collections.unmodifiableMap(topicsById),
                topicIdsByName == base.topicIdsByName() ? topicIdsByName
                    : Collections.unmodifiableMap(topicIdsByName),
                brokers == base.brokers() ? brokers : Collections.unmodifiableMap(brokers),
                mirrors == base.mirrorsMap() ? mirrors : Collections.unmodifiableMap(mirrors),
                syncStates == base.syncStatesMap() ? syncStates : Collections.unmodifiableMap(syncStates),
                scramCredentials == base.scramCredentials() ? scramCredentials : unmodifiable(scramCredentials),
                acls == base.acls() ? acls : Collections.unmodifiableMap(acls));
        }

        private static Map<String, Map<Byte, MetadataRecord.UserScramCredential>> unmodifiable(
            final Map<String, Map<Byte, MetadataRecord.UserScramCredential>> credentials)
        {
            final Map<String, Map<Byte, MetadataRecord.UserScramCredential>> out = new TreeMap<>();
            credentials.forEach((user, byMechanism) -> out.put(user, Collections.unmodifiableMap(byMechanism)));
            return Collections.unmodifiableMap(out);
        }
    }
}

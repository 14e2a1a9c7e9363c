package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.AttributeNotFoundException;
import javax.management.DynamicMBean;
import javax.management.InstanceAlreadyExistsException;
import javax.management.InstanceNotFoundException;
import javax.management.JMException;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanInfo;
import javax.management.MBeanServer;
import javax.management.MalformedObjectNameException;
import javax.management.ObjectName;
import javax.management.ReflectionException;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.internals.Sanitizer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.broker.mirror.sync.RejectReason;

/**
 * The JMX metrics of this broker's cluster mirroring (KIP-1279, {@code kafka.server} domain), computed from the
 * mirror coordinator's statuses when they are read; thread-safe (any JMX thread may read; registration changes
 * and snapshots happen under this object's monitor).
 *
 * <p>MBeans, each with a {@code Value} attribute (and {@code StateName} for PartitionState):
 * <ul>
 *   <li>{@code kafka.server:type=MirrorMetrics,name=MaxLag,mirror=<m>,broker=<b>} (long): the largest lag over
 *   the mirror's partitions this broker leads, -1 while no partition's lag is known.</li>
 *   <li>{@code kafka.server:type=MirrorMetrics,name=PartitionLag,mirror=<m>,topic=<t>,partition=<p>,broker=<b>}
 *   (long): source high watermark minus the destination log end offset, -1 while unknown.</li>
 *   <li>{@code kafka.server:type=MirrorMetrics,name=PartitionState,mirror=<m>,topic=<t>,partition=<p>,broker=<b>}
 *   (byte, the state's id in {@code __mirror_state}; {@code StateName} the enum name).</li>
 *   <li>{@code kafka.server:type=MirrorMetrics,name=PartitionsInState,state=<STATE>,broker=<b>} (int), one per
 *   {@link MirrorPartitionState}.</li>
 *   <li>{@code kafka.server:type=MirrorFetcherManager,name=DeadThreadCount,broker=<b>} (int).</li>
 * </ul>
 * Synchronous mirroring adds, destination side:
 * <ul>
 *   <li>{@code kafka.server:type=MirrorMetrics,name=SyncPartitionFetchFailures,mirror=<m>,topic=<t>,partition=<p>,
 *   reason=INVALID|PROPAGATING,broker=<b>} (long counter): the partition's sync reports the source answered
 *   INVALID_SYNC_REGISTRATION or MIRROR_REGISTRATION_PROPAGATING; present once the partition reports or failed.</li>
 *   <li>{@code kafka.server:type=MirrorMetrics,name=SyncPartitionsFailing,mirror=<m>,topic=<t>,broker=<b>} (int):
 *   the topic's partitions led here whose sync reports are failing now.</li>
 *   <li>{@code kafka.server:type=MirrorMetrics,name=SyncRegistrationRejected,reason=<R>,broker=<b>} (long counter),
 *   one per reason: RELEASED_FRESH_PROMOTION_REQUIRED, VERSION_MISMATCH, ALL_PARTITIONS_FAILING.</li>
 * </ul>
 * and source side {@code kafka.server:type=MirrorMetrics,name=SyncRegisteredTopics,broker=<b>} (int): the topics
 * of this cluster with at least one destination registered for sync, from this broker's metadata image.
 * A partition in STOPPING or STOPPED is no longer mirrored: its PartitionLag is -1 and MaxLag ignores it, so a
 * planned failover does not leave a lag behind that would alert forever.
 *
 * <p>The {@code broker} key: several brokers may share a JVM (tests start a source and a destination cluster,
 * each with a node 1), and JMX names are JVM-wide. The key is the node id; a second live instance with the same
 * node id in this JVM takes {@code <id>-2} (then {@code -3}, ...), logged, and {@link #brokerTag()} tells which.
 * One broker per JVM, as in production, always gets its plain node id. Values that JMX cannot take as they are
 * (a mirror name with {@code ,=:"*?}) are quoted as Kafka's JmxReporter does ({@link Sanitizer#jmxSanitize});
 * Kafka topic names never need it.
 *
 * <p>Design: no thread of its own. The partition and mirror MBeans come and go with the coordinator's set of
 * partitions, which changes on its own thread without telling anyone, so the set of registered MBeans is
 * re-synchronized lazily: every attribute read takes a snapshot of {@link MirrorCoordinator#statuses()} unless
 * the last one is younger than {@code snapshotMaxAgeMs}, and each new snapshot registers the MBeans of new
 * partitions and mirrors and unregisters those gone ({@link #refresh()} forces one). Reading one MBean of a
 * family (PartitionsInState, say) is therefore what makes a scraper's next {@code queryNames} see the current
 * set; a scraper that reads every scrape sees a change one scrape later. The snapshot's age bound keeps a scrape
 * of N partition MBeans at O(N) work instead of O(N) per MBean; the bound is also the staleness of a value. The
 * always-present MBeans (PartitionsInState, DeadThreadCount) are registered at construction. Reading an MBean
 * whose partition has gone (between a {@code queryNames} and the read) answers AttributeNotFoundException and
 * the MBean is unregistered by that same read.
 */
public final class MirrorMetrics implements AutoCloseable
{
    private static final Logger LOG = LoggerFactory.getLogger(MirrorMetrics.class);

    public static final String DOMAIN = "kafka.server";
    public static final String MIRROR_METRICS_TYPE = "MirrorMetrics";
    public static final String FETCHER_MANAGER_TYPE = "MirrorFetcherManager";
    public static final String VALUE_ATTRIBUTE = "Value";
    public static final String STATE_NAME_ATTRIBUTE = "StateName";
    /** Snapshots younger than this are reused by reads; what BrokerServer uses. */
    public static final long SNAPSHOT_MAX_AGE_MS_DEFAULT = 1_000L;

    /** Broker tags held by live instances in this JVM. */
    private static final Set<String> CLAIMED_TAGS = ConcurrentHashMap.newKeySet();

    private static final MirrorPartitionState[] STATES = MirrorPartitionState.values();

    private static final MBeanInfo LONG_GAUGE_INFO = gaugeInfo("long", "java.lang.Long");
    private static final MBeanInfo INT_GAUGE_INFO = gaugeInfo("int", "java.lang.Integer");
    private static final MBeanInfo STATE_INFO = new MBeanInfo(MirrorMetrics.class.getName(),
        "The mirror partition's state", new MBeanAttributeInfo[] {
            new MBeanAttributeInfo(VALUE_ATTRIBUTE, "java.lang.Byte", "the state's id", true, false, false),
            new MBeanAttributeInfo(STATE_NAME_ATTRIBUTE, "java.lang.String", "the state's name", true, false, false)},
        null, null, null);

    private final String brokerTag;
    private final Supplier<? extends Collection<MirrorCoordinator.Status>> statuses;
    private final IntSupplier deadFetcherThreads;
    private final SyncSource sync;
    private final MBeanServer server;
    private final LongSupplier clockMs;
    private final long snapshotMaxAgeMs;

    // Guarded by this.
    private Snapshot snapshot;
    private long snapshotAtMs;
    private boolean closed;
    private final List<ObjectName> fixedNames = new ArrayList<>();
    private final Map<String, ObjectName> mirrorNames = new HashMap<>();
    private final Map<PartitionKey, ObjectName[]> partitionNames = new HashMap<>();
    private final Map<PartitionKey, ObjectName[]> syncPartitionNames = new HashMap<>();
    private final Map<TopicKey, ObjectName> syncTopicNames = new HashMap<>();

    /** Where the sync metrics come from (the coordinator); {@link #NO_SYNC} for none. */
    public interface SyncSource
    {
        Collection<MirrorCoordinator.SyncStatus> syncStatuses();

        long rejected(RejectReason reason);

        int registeredSyncTopics();
    }

    /** A source of no sync metrics: every value 0. */
    public static final SyncSource NO_SYNC = new SyncSource()
    {
        @Override
        public Collection<MirrorCoordinator.SyncStatus> syncStatuses()
        {
            return List.of();
        }

        @Override
        public long rejected(final RejectReason reason)
        {
            return 0L;
        }

        @Override
        public int registeredSyncTopics()
        {
            return 0;
        }
    };

    /**
     * Registers the always-present MBeans in {@code server}; the others follow on reads.
     *
     * @param brokerId           this broker's node id, the {@code broker} key (made unique in this JVM)
     * @param statuses           the coordinator's statuses ({@link MirrorCoordinator#statuses()})
     * @param deadFetcherThreads the coordinator's dead fetcher thread count
     * @param snapshotMaxAgeMs   how long a statuses snapshot serves reads; 0 takes one per read
     */
    public MirrorMetrics(final int brokerId, final Supplier<? extends Collection<MirrorCoordinator.Status>> statuses,
        final IntSupplier deadFetcherThreads, final MBeanServer server, final LongSupplier clockMs,
        final long snapshotMaxAgeMs)
    {
        this(brokerId, statuses, deadFetcherThreads, NO_SYNC, server, clockMs, snapshotMaxAgeMs);
    }

    /** As the other constructor, with the sync metrics of {@code sync}. */
    public MirrorMetrics(final int brokerId, final Supplier<? extends Collection<MirrorCoordinator.Status>> statuses,
        final IntSupplier deadFetcherThreads, final SyncSource sync, final MBeanServer server,
        final LongSupplier clockMs, final long snapshotMaxAgeMs)
    {
        if (snapshotMaxAgeMs < 0)
        {
            throw new IllegalArgumentException("snapshotMaxAgeMs must not be negative: " + snapshotMaxAgeMs);
        }
        this.statuses = statuses;
        this.deadFetcherThreads = deadFetcherThreads;
        this.sync = sync;
        this.server = server;
        this.clockMs = clockMs;
        this.snapshotMaxAgeMs = snapshotMaxAgeMs;
        this.brokerTag = claimTag(brokerId);
        synchronized (this)
        {
            for (final MirrorPartitionState state : STATES)
            {
                final ObjectName name = partitionsInStateName(brokerTag, state);
                if (register(name, new Gauge(INT_GAUGE_INFO, s -> s.inState[state.ordinal()])))
                {
                    fixedNames.add(name);
                }
            }
            final ObjectName dead = deadThreadCountName(brokerTag);
            if (register(dead, new Gauge(INT_GAUGE_INFO, s -> this.deadFetcherThreads.getAsInt())))
            {
                fixedNames.add(dead);
            }
            // The sync MBeans exist only with a sync source (the coordinator's), not for a metrics-only caller.
            for (final RejectReason reason : sync == NO_SYNC ? new RejectReason[0]
                : RejectReason.values())
            {
                final ObjectName rejected = syncRegistrationRejectedName(brokerTag, reason);
                if (register(rejected, new Gauge(LONG_GAUGE_INFO, s -> this.sync.rejected(reason))))
                {
                    fixedNames.add(rejected);
                }
            }
            final ObjectName registered = syncRegisteredTopicsName(brokerTag);
            if (sync != NO_SYNC && register(registered, new Gauge(INT_GAUGE_INFO,
                s -> this.sync.registeredSyncTopics())))
            {
                fixedNames.add(registered);
            }
        }
    }

    /** Metrics of {@code coordinator} in the platform MBeanServer, snapshots reused for the default age. */
    public static MirrorMetrics forCoordinator(final int brokerId, final MirrorCoordinator coordinator,
        final MBeanServer server, final LongSupplier clockMs)
    {
        return new MirrorMetrics(brokerId, coordinator::statuses, coordinator::deadFetcherThreads, new SyncSource()
        {
            @Override
            public Collection<MirrorCoordinator.SyncStatus> syncStatuses()
            {
                return coordinator.syncStatuses();
            }

            @Override
            public long rejected(final RejectReason reason)
            {
                return coordinator.syncRegistrationsRejected(reason);
            }

            @Override
            public int registeredSyncTopics()
            {
                return coordinator.registeredSyncTopics();
            }
        }, server, clockMs, SNAPSHOT_MAX_AGE_MS_DEFAULT);
    }

    /** The value of the {@code broker} key in this instance's names: the node id unless another instance has it. */
    public String brokerTag()
    {
        return brokerTag;
    }

    /** Takes a snapshot now and re-synchronizes the registered MBeans with it. Any thread. */
    public synchronized void refresh()
    {
        snapshotAtMs = clockMs.getAsLong();
        snapshot = new Snapshot(statuses.get(), sync.syncStatuses());
        if (!closed)
        {
            syncRegistrations(snapshot);
        }
    }

    @Override
    public synchronized void close()
    {
        if (closed)
        {
            return;
        }
        closed = true;
        fixedNames.forEach(this::unregister);
        fixedNames.clear();
        mirrorNames.values().forEach(this::unregister);
        mirrorNames.clear();
        for (final ObjectName[] names : partitionNames.values())
        {
            unregister(names[0]);
            unregister(names[1]);
        }
        partitionNames.clear();
        for (final ObjectName[] names : syncPartitionNames.values())
        {
            unregister(names[0]);
            unregister(names[1]);
        }
        syncPartitionNames.clear();
        syncTopicNames.values().forEach(this::unregister);
        syncTopicNames.clear();
        CLAIMED_TAGS.remove(brokerTag);
    }

    // ------------------------------------------------------------------------------------------------------
    // Names.
    // ------------------------------------------------------------------------------------------------------

    public static ObjectName maxLagName(final String brokerTag, final String mirror)
    {
        return name(MIRROR_METRICS_TYPE, "MaxLag", "mirror", mirror, "broker", brokerTag);
    }

    public static ObjectName partitionLagName(final String brokerTag, final String mirror, final TopicPartition tp)
    {
        return name(MIRROR_METRICS_TYPE, "PartitionLag", "mirror", mirror, "topic", tp.topic(), "partition",
            Integer.toString(tp.partition()), "broker", brokerTag);
    }

    public static ObjectName partitionStateName(final String brokerTag, final String mirror, final TopicPartition tp)
    {
        return name(MIRROR_METRICS_TYPE, "PartitionState", "mirror", mirror, "topic", tp.topic(), "partition",
            Integer.toString(tp.partition()), "broker", brokerTag);
    }

    public static ObjectName partitionsInStateName(final String brokerTag, final MirrorPartitionState state)
    {
        return name(MIRROR_METRICS_TYPE, "PartitionsInState", "state", state.name(), "broker", brokerTag);
    }

    /** {@code reason} is INVALID or PROPAGATING. */
    public static ObjectName syncPartitionFetchFailuresName(final String brokerTag, final String mirror,
        final TopicPartition tp, final String reason)
    {
        return name(MIRROR_METRICS_TYPE, "SyncPartitionFetchFailures", "mirror", mirror, "topic", tp.topic(),
            "partition", Integer.toString(tp.partition()), "reason", reason, "broker", brokerTag);
    }

    public static ObjectName syncPartitionsFailingName(final String brokerTag, final String mirror,
        final String topic)
    {
        return name(MIRROR_METRICS_TYPE, "SyncPartitionsFailing", "mirror", mirror, "topic", topic, "broker",
            brokerTag);
    }

    public static ObjectName syncRegistrationRejectedName(final String brokerTag,
        final RejectReason reason)
    {
        return name(MIRROR_METRICS_TYPE, "SyncRegistrationRejected", "reason", reason.name(), "broker", brokerTag);
    }

    public static ObjectName syncRegisteredTopicsName(final String brokerTag)
    {
        return name(MIRROR_METRICS_TYPE, "SyncRegisteredTopics", "broker", brokerTag);
    }

    public static ObjectName deadThreadCountName(final String brokerTag)
    {
        return name(FETCHER_MANAGER_TYPE, "DeadThreadCount", "broker", brokerTag);
    }

    private static ObjectName name(final String type, final String metric, final String... keyValues)
    {
        final StringBuilder builder = new StringBuilder(DOMAIN).append(":type=").append(type).append(",name=")
            .append(metric);
        for (int i = 0; i < keyValues.length; i += 2)
        {
            builder.append(',').append(keyValues[i]).append('=').append(Sanitizer.jmxSanitize(keyValues[i + 1]));
        }
        try
        {
            return new ObjectName(builder.toString());
        }
        catch (final MalformedObjectNameException e)
        {
            // jmxSanitize quotes every value that could make the name malformed.
            throw new IllegalArgumentException("not a valid metric name: " + builder, e);
        }
    }

    private static String claimTag(final int brokerId)
    {
        final String plain = Integer.toString(brokerId);
        if (CLAIMED_TAGS.add(plain))
        {
            return plain;
        }
        for (int n = 2; ; n++)
        {
            final String tag = plain + "-" + n;
            if (CLAIMED_TAGS.add(tag))
            {
                LOG.info("Another broker {} in this JVM has mirror metrics; this one's carry broker={}", brokerId,
                    tag);
                return tag;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------------
    // Snapshots and registrations.
    // ------------------------------------------------------------------------------------------------------

    /** The snapshot reads use: the last one if young enough, else a new one (re-syncing registrations). */
    private synchronized Snapshot snapshot()
    {
        final long nowMs = clockMs.getAsLong();
        // A clock that went back (wall clock) also makes the snapshot stale rather than valid for a long time.
        if (snapshot == null || nowMs - snapshotAtMs >= snapshotMaxAgeMs || nowMs < snapshotAtMs)
        {
            refresh();
        }
        return snapshot;
    }

    private void syncRegistrations(final Snapshot current)
    {
        final Set<String> mirrors = current.maxLagByMirror.keySet();
        mirrorNames.entrySet().removeIf(entry ->
        {
            if (!mirrors.contains(entry.getKey()))
            {
                unregister(entry.getValue());
                return true;
            }
            return false;
        });
        for (final String mirror : mirrors)
        {
            if (!mirrorNames.containsKey(mirror))
            {
                final ObjectName name = maxLagName(brokerTag, mirror);
                register(name, new Gauge(LONG_GAUGE_INFO, s ->
                {
                    final Long maxLag = s.maxLagByMirror.get(mirror);
                    if (maxLag == null)
                    {
                        throw new AttributeNotFoundException("mirror '" + mirror +
                            "' has no partition on broker " + brokerTag + " any more");
                    }
                    return maxLag;
                }));
                mirrorNames.put(mirror, name);
            }
        }
        partitionNames.entrySet().removeIf(entry ->
        {
            if (!current.byPartition.containsKey(entry.getKey()))
            {
                unregister(entry.getValue()[0]);
                unregister(entry.getValue()[1]);
                return true;
            }
            return false;
        });
        for (final PartitionKey key : current.byPartition.keySet())
        {
            if (!partitionNames.containsKey(key))
            {
                final ObjectName lag = partitionLagName(brokerTag, key.mirror, key.partition);
                final ObjectName state = partitionStateName(brokerTag, key.mirror, key.partition);
                register(lag, new Gauge(LONG_GAUGE_INFO, s -> lagOf(status(s, key))));
                register(state, new StateBean(key));
                partitionNames.put(key, new ObjectName[] {lag, state});
            }
        }
        syncSyncRegistrations(current);
    }

    /** The sync MBeans follow the partitions that report (or reported) and the topics they belong to. */
    private void syncSyncRegistrations(final Snapshot current)
    {
        syncPartitionNames.entrySet().removeIf(entry ->
        {
            if (!current.syncByPartition.containsKey(entry.getKey()))
            {
                unregister(entry.getValue()[0]);
                unregister(entry.getValue()[1]);
                return true;
            }
            return false;
        });
        for (final PartitionKey key : current.syncByPartition.keySet())
        {
            if (!syncPartitionNames.containsKey(key))
            {
                final ObjectName invalid = syncPartitionFetchFailuresName(brokerTag, key.mirror, key.partition,
                    "INVALID");
                final ObjectName propagating = syncPartitionFetchFailuresName(brokerTag, key.mirror, key.partition,
                    "PROPAGATING");
                register(invalid, new Gauge(LONG_GAUGE_INFO, s -> syncStatus(s, key).failuresInvalid()));
                register(propagating, new Gauge(LONG_GAUGE_INFO, s -> syncStatus(s, key).failuresPropagating()));
                syncPartitionNames.put(key, new ObjectName[] {invalid, propagating});
            }
        }
        syncTopicNames.entrySet().removeIf(entry ->
        {
            if (!current.failingByTopic.containsKey(entry.getKey()))
            {
                unregister(entry.getValue());
                return true;
            }
            return false;
        });
        for (final TopicKey key : current.failingByTopic.keySet())
        {
            if (!syncTopicNames.containsKey(key))
            {
                final ObjectName name = syncPartitionsFailingName(brokerTag, key.mirror, key.topic);
                register(name, new Gauge(INT_GAUGE_INFO, s ->
                {
                    final Integer failing = s.failingByTopic.get(key);
                    if (failing == null)
                    {
                        throw new AttributeNotFoundException("topic " + key.topic + " of mirror '" + key.mirror +
                            "' has no sync partition on broker " + brokerTag + " any more");
                    }
                    return failing;
                }));
                syncTopicNames.put(key, name);
            }
        }
    }

    private MirrorCoordinator.SyncStatus syncStatus(final Snapshot current, final PartitionKey key)
        throws AttributeNotFoundException
    {
        final MirrorCoordinator.SyncStatus status = current.syncByPartition.get(key);
        if (status == null)
        {
            throw new AttributeNotFoundException("mirror '" + key.mirror + "' " + key.partition +
                " has no sync reporting on broker " + brokerTag + " any more");
        }
        return status;
    }

    private MirrorCoordinator.Status status(final Snapshot current, final PartitionKey key)
        throws AttributeNotFoundException
    {
        final MirrorCoordinator.Status status = current.byPartition.get(key);
        if (status == null)
        {
            throw new AttributeNotFoundException("mirror '" + key.mirror + "' " + key.partition +
                " is not coordinated by broker " + brokerTag + " any more");
        }
        return status;
    }

    /** The lag a metric shows: none (-1) for a partition no longer mirrored. */
    private static long lagOf(final MirrorCoordinator.Status status)
    {
        return status.state() == MirrorPartitionState.STOPPING || status.state() == MirrorPartitionState.STOPPED ?
            -1L : status.lag();
    }

    /** Registers, or logs why not: a metric must never fail the broker. Returns whether it is registered. */
    private boolean register(final ObjectName name, final DynamicMBean bean)
    {
        try
        {
            server.registerMBean(bean, name);
            return true;
        }
        catch (final InstanceAlreadyExistsException e)
        {
            LOG.warn("Mirror metric {} is registered by someone else; not replacing it", name);
        }
        catch (final JMException | RuntimeException e)
        {
            LOG.warn("Cannot register mirror metric {}: {}", name, e.toString());
        }
        return false;
    }

    private void unregister(final ObjectName name)
    {
        try
        {
            server.unregisterMBean(name);
        }
        catch (final InstanceNotFoundException e)
        {
            // Never registered (a name clash was logged) or removed by someone else: nothing to do.
        }
        catch (final JMException | RuntimeException e)
        {
            LOG.warn("Cannot unregister mirror metric {}: {}", name, e.toString());
        }
    }

    private static MBeanInfo gaugeInfo(final String description, final String type)
    {
        return new MBeanInfo(MirrorMetrics.class.getName(), "A " + description + " gauge",
            new MBeanAttributeInfo[] {new MBeanAttributeInfo(VALUE_ATTRIBUTE, type, "the value", true, false, false)},
            null, null, null);
    }

    /** One coordinated partition: a mirror and a destination partition. */
    private record PartitionKey(String mirror, TopicPartition partition)
    {
    }

    /** A mirror topic. */
    private record TopicKey(String mirror, String topic)
    {
    }

    /** What one read of the coordinator's statuses gives the metrics; immutable once built. */
    private static final class Snapshot
    {
        final Map<PartitionKey, MirrorCoordinator.Status> byPartition = new HashMap<>();
        final Map<String, Long> maxLagByMirror = new HashMap<>();
        final int[] inState = new int[STATES.length];
        final Map<PartitionKey, MirrorCoordinator.SyncStatus> syncByPartition = new HashMap<>();
        final Map<TopicKey, Integer> failingByTopic = new HashMap<>();

        Snapshot(final Collection<MirrorCoordinator.Status> statuses,
            final Collection<MirrorCoordinator.SyncStatus> syncStatuses)
        {
            for (final MirrorCoordinator.SyncStatus status : syncStatuses)
            {
                // Partitions that never took part in sync mirroring get no sync MBeans (most, in an async mirror).
                if (!status.reporting() && status.failingForMs() < 0 && status.failuresInvalid() == 0 &&
                    status.failuresPropagating() == 0)
                {
                    continue;
                }
                syncByPartition.putIfAbsent(new PartitionKey(status.mirrorName(), status.partition()), status);
                failingByTopic.merge(new TopicKey(status.mirrorName(), status.partition().topic()),
                    status.failingForMs() >= 0 ? 1 : 0, Integer::sum);
            }
            for (final MirrorCoordinator.Status status : statuses)
            {
                if (byPartition.putIfAbsent(new PartitionKey(status.mirrorName(), status.partition()), status) != null)
                {
                    continue;
                }
                maxLagByMirror.merge(status.mirrorName(), lagOf(status), Math::max);
                inState[status.state().ordinal()]++;
            }
        }
    }

    /** Reads a value from a snapshot. */
    @FunctionalInterface
    private interface Reader
    {
        Object read(Snapshot snapshot) throws AttributeNotFoundException;
    }

    /** Read-only MBean base: attributes computed on each read from the current snapshot. */
    private abstract class ReadOnlyBean implements DynamicMBean
    {
        private final MBeanInfo info;

        ReadOnlyBean(final MBeanInfo info)
        {
            this.info = info;
        }

        abstract Object read(Snapshot snapshot, String attribute) throws AttributeNotFoundException;

        @Override
        public final Object getAttribute(final String attribute) throws AttributeNotFoundException
        {
            return read(snapshot(), attribute);
        }

        @Override
        public final AttributeList getAttributes(final String[] attributes)
        {
            final Snapshot current = snapshot();
            final AttributeList list = new AttributeList();
            for (final String attribute : attributes)
            {
                try
                {
                    list.add(new Attribute(attribute, read(current, attribute)));
                }
                catch (final AttributeNotFoundException e)
                {
                    // Left out of the list, as the DynamicMBean contract asks for attributes that cannot be read.
                }
            }
            return list;
        }

        @Override
        public final void setAttribute(final Attribute attribute) throws AttributeNotFoundException
        {
            throw new AttributeNotFoundException("mirror metrics are read-only: " + attribute.getName());
        }

        @Override
        public final AttributeList setAttributes(final AttributeList attributes)
        {
            return new AttributeList();
        }

        @Override
        public final Object invoke(final String actionName, final Object[] params, final String[] signature)
            throws ReflectionException
        {
            throw new ReflectionException(new NoSuchMethodException(actionName), "mirror metrics have no operations");
        }

        @Override
        public final MBeanInfo getMBeanInfo()
        {
            return info;
        }
    }

    /** A gauge: a single {@code Value} attribute. */
    private final class Gauge extends ReadOnlyBean
    {
        private final Reader reader;

        Gauge(final MBeanInfo info, final Reader reader)
        {
            super(info);
            this.reader = reader;
        }

        @Override
        Object read(final Snapshot current, final String attribute) throws AttributeNotFoundException
        {
            if (!VALUE_ATTRIBUTE.equals(attribute))
            {
                throw new AttributeNotFoundException(attribute);
            }
            return reader.read(current);
        }
    }

    /** PartitionState: the state's byte as {@code Value}, its name as {@code StateName}. */
    private final class StateBean extends ReadOnlyBean
    {
        private final PartitionKey key;

        StateBean(final PartitionKey key)
        {
            super(STATE_INFO);
            this.key = key;
        }

        @Override
        Object read(final Snapshot current, final String attribute) throws AttributeNotFoundException
        {
            final MirrorPartitionState state = status(current, key).state();
            if (VALUE_ATTRIBUTE.equals(attribute))
            {
                return state.id();
            }
            if (STATE_NAME_ATTRIBUTE.equals(attribute))
            {
                return state.name();
            }
            throw new AttributeNotFoundException(attribute);
        }
    }
}

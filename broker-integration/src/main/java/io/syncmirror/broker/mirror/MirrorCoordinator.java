package io.syncmirror.broker.mirror;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
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
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.network.NodeClientConfig;
import io.syncmirror.broker.replica.Partition;
import io.syncmirror.broker.replica.ReplicaManager;
import io.syncmirror.broker.storage.PartitionLog;
import io.syncmirror.fetch.FetcherConfig;

/**
 * The mirror coordinator of this destination broker: for every mirror partition whose destination partition this
 * broker leads, it drives KIP-1279's partition lifecycle (UNKNOWN, PREPARING, MIRRORING, STOPPING, STOPPED,
 * FAILED), persists each transition in {@code __mirror_state} and runs the mirror fetchers. Coordination sits
 * with the destination partition's leader, where the fetcher and the log are, so no coordinator-to-leader RPC is
 * needed; a leadership change moves it, and the new leader rebuilds the partition's state from
 * {@code __mirror_state}.
 *
 * <p>Threads: one daemon thread ({@code mirror-coordinator-<broker>}) runs {@link #tick} every
 * {@code mirror.coordinator.tick.ms} and at once after {@link #wakeup()} (a metadata change). Its calls to the
 * source, the controller and {@code __mirror_state} block for at most the mirror request timeout, so one
 * unreachable source delays, but never stops, the others. The mirror fetchers run on their own threads. The
 * queries may be called from any thread.
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
    private final MirrorFetchers fetchers;
    private final ExecutorService lookups;
    private final Map<TopicPartition, MirrorPartition> coordinated = new ConcurrentHashMap<>();
    private final Map<String, SourceCluster> sources = new HashMap<>();
    private final Map<String, MirrorDefinition> sourceDefinitions = new HashMap<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition signal = lock.newCondition();
    private boolean signalled;
    private volatile boolean closed;
    private final Thread thread;

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
        this.fetchers = new MirrorFetchers(brokerId, config.fetcherConfig(), config.clientConfig(),
            config.throttledRateBytesPerSec(), lookups, clockMs);
        this.thread = new Thread(this::run, "mirror-coordinator-" + brokerId);
        this.thread.setDaemon(true);
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

    /** One pass over every mirror partition this broker leads. Coordinator thread (tests may call it directly). */
    void tick()
    {
        final MetadataImage current = image.get();
        refreshSources(current);
        final Set<TopicPartition> led = new HashSet<>();
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
                final Partition partition = replicas.partitionOrNull(state.topicPartition());
                if (partition == null || !partition.isLeader() || !partition.topicId().equals(topic.id()))
                {
                    continue;
                }
                final TopicPartition tp = state.topicPartition();
                led.add(tp);
                MirrorPartition mirror = coordinated.get(tp);
                if (mirror != null && (mirror.partition != partition || !mirror.mirrorName.equals(mirrorName)))
                {
                    release(mirror);
                    mirror = null;
                }
                if (mirror == null)
                {
                    try
                    {
                        mirror = load(mirrorName, partition);
                        coordinated.put(tp, mirror);
                    }
                    catch (final RuntimeException e)
                    {
                        LOG.warn("Mirror '{}' {}: cannot load its state yet: {}", mirrorName, tp, e.getMessage());
                        continue;
                    }
                }
                stepOrFail(mirror, active != null, current);
            }
        }
        for (final MirrorPartition mirror : new ArrayList<>(coordinated.values()))
        {
            if (!led.contains(mirror.topicPartition))
            {
                release(mirror);
            }
        }
        fetchers.shutdownIdleFetchers();
    }

    private MirrorPartition load(final String mirrorName, final Partition partition)
    {
        final TopicPartition tp = partition.topicPartition();
        final MirrorStateRecord record = store.read(mirrorName, partition.topicId(), tp.partition())
            .orElse(MirrorStateRecord.unknown(mirrorName, partition.topicId(), tp.partition(), tp.topic()));
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
        coordinated.remove(mirror.topicPartition, mirror);
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
                    transition(mirror, MirrorPartitionState.PREPARING);
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
        transition(mirror, MirrorPartitionState.MIRRORING);
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

    private Node sourceLeader(final MirrorPartition mirror, final SourceCluster source)
    {
        final Optional<Node> leader = source.leader(mirror.topicPartition.topic(), mirror.topicId,
            mirror.topicPartition.partition(), mirror.leaderLookupNeeded);
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

    private void persist(final MirrorPartition mirror, final MirrorStateRecord next)
    {
        store.write(next);
        mirror.record = next;
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
    private void refreshSources(final MetadataImage current)
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
}

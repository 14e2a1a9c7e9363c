package io.syncmirror.broker.coordinator;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.IntFunction;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.WriteTxnMarkersRequestData;
import org.apache.kafka.common.message.WriteTxnMarkersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.metadata.MetadataView;
import io.syncmirror.broker.metadata.PartitionState;
import io.syncmirror.broker.metadata.TopicMetadata;
import io.syncmirror.broker.network.NodeClient;

/**
 * Kafka's transaction coordinator for classic (TV1) clients: one state machine per transactional id, persisted in
 * the compacted internal topic {@code __transaction_state} and owned by the leader of the id's partition there.
 * Thread-safe: one lock guards all state; it is never held while calling the replica layer, a node client or a
 * caller's future, so callbacks arriving on those threads cannot deadlock against it.
 *
 * <p>Life of a transaction: InitProducerId bumps the epoch (fencing the previous producer) and, if a transaction
 * was ongoing, aborts it first; AddPartitionsToTxn/AddOffsetsToTxn move the id to Ongoing; EndTxn logs
 * PrepareCommit/PrepareAbort, answers, then sends WriteTxnMarkers to the leader of every partition of the
 * transaction (retried every {@code markerRetryBackoffMs} until written) and finally logs CompleteCommit/CompleteAbort.
 * Every transition is written acks=all before it takes effect in memory; while one is in flight the id answers
 * CONCURRENT_TRANSACTIONS. {@link #poll()} aborts transactions older than their timeout (bumping the epoch, so the
 * producer is fenced), re-sends failed markers and removes ids idle (no transaction open) for
 * {@code transactional.id.expiration.ms} with a tombstone; the broker calls it from one scheduler thread.
 *
 * <p>On becoming leader of a {@code __transaction_state} partition the partition's log is replayed on the load
 * executor (answering COORDINATOR_LOAD_IN_PROGRESS meanwhile); transactions found in a Prepare state resume their
 * markers. The partition's leader epoch is the coordinator epoch carried by the markers.
 */
public final class TransactionCoordinator implements ReplicaAccess.LeadershipListener
{
    private static final Logger LOG = LoggerFactory.getLogger(TransactionCoordinator.class);
    /** Kafka's isEpochExhausted: one epoch must stay free for fencing. */
    private static final short EPOCH_EXHAUSTED = Short.MAX_VALUE - 1;
    private static final long NO_PRODUCER_ID = -1L;
    private static final short NO_PRODUCER_EPOCH = -1;
    private static final byte TRANSACTION_VERSION_1 = 1;

    /** InitProducerId's answer. */
    public record InitProducerIdResult(Errors error, long producerId, short producerEpoch)
    {
        static InitProducerIdResult error(final Errors error)
        {
            return new InitProducerIdResult(error, NO_PRODUCER_ID, NO_PRODUCER_EPOCH);
        }
    }

    private final CoordinatorConfig config;
    private final ReplicaAccess replicas;
    private final MetadataView metadata;
    private final ProducerIdManager producerIds;
    private final IntFunction<NodeClient> nodeClients;
    private final TxnMarkerWriter localMarkers;
    private final Executor loadExecutor;
    private final Time time;
    private final InternalTopicCreation topicCreation = new InternalTopicCreation();

    private final Object lock = new Object();
    private final Map<Integer, TxnPartition> partitions = new HashMap<>();
    private final Set<Txn> markerRetries = new LinkedHashSet<>();
    private long nextAbortCheckMs;
    private long nextExpirationCheckMs;

    /**
     * @param nodeClients  the client of a broker by id, for markers to partitions led elsewhere
     * @param localMarkers writes markers to partitions this broker leads without a network hop
     * @param loadExecutor runs log replays on becoming leader (a daemon thread of the broker's)
     */
    public TransactionCoordinator(final CoordinatorConfig config, final ReplicaAccess replicas,
        final MetadataView metadata, final ProducerIdManager producerIds, final IntFunction<NodeClient> nodeClients,
        final TxnMarkerWriter localMarkers, final Executor loadExecutor, final Time time)
    {
        this.config = config;
        this.replicas = replicas;
        this.metadata = metadata;
        this.producerIds = producerIds;
        this.nodeClients = nodeClients;
        this.localMarkers = localMarkers;
        this.loadExecutor = loadExecutor;
        this.time = time;
    }

    /** Registers for leadership of {@code __transaction_state} partitions. Call once before serving. */
    public void startup()
    {
        replicas.addLeadershipListener(CoordinatorConfig.TRANSACTION_STATE_TOPIC, this);
    }

    /** Creates {@code __transaction_state} once (later calls return the same future). */
    public CompletableFuture<Void> ensureTopic()
    {
        return topicCreation.ensure(() ->
        {
            final int alive = Math.max(1, metadata.liveBrokers().size());
            final short replicationFactor = (short) Math.min(config.transactionLogReplicationFactor(), alive);
            final int minIsr = Math.min(config.transactionLogMinIsr(), replicationFactor);
            return replicas.ensureTopic(CoordinatorConfig.TRANSACTION_STATE_TOPIC, config.transactionLogPartitions(),
                replicationFactor, Map.of("cleanup.policy", "compact", "min.insync.replicas", String.valueOf(minIsr),
                    "segment.bytes", "104857600", "unclean.leader.election.enable", "false",
                    "compression.type", "uncompressed"));
        });
    }

    public TopicPartition partitionFor(final String transactionalId)
    {
        return new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC,
            config.transactionPartitionFor(transactionalId));
    }

    /** NONE when this broker serves the id now, else NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS. */
    public Errors coordinatorError(final String transactionalId)
    {
        synchronized (lock)
        {
            return partitionError(partitions.get(config.transactionPartitionFor(transactionalId)));
        }
    }

    /** The persisted state of a transactional id served here (tests, describe). */
    public Optional<TransactionLogRecord> transactionState(final String transactionalId)
    {
        synchronized (lock)
        {
            final TxnPartition partition = partitions.get(config.transactionPartitionFor(transactionalId));
            if (partition == null || !partition.loaded)
            {
                return Optional.empty();
            }
            final Txn txn = partition.txns.get(transactionalId);
            return txn == null ? Optional.empty() : Optional.of(txn.current);
        }
    }

    /** One transactional id's persisted state, as ListTransactions and DescribeTransactions show it. */
    public record TransactionView(String transactionalId, TransactionLogRecord state)
    {
    }

    /** The ids served here; {@code loading} when some partition this broker leads is not loaded yet. */
    public record TransactionListing(boolean loading, List<TransactionView> transactions)
    {
    }

    /**
     * Every transactional id of the {@code __transaction_state} partitions this broker serves, and whether some
     * partition it leads is still loading (ListTransactions then answers COORDINATOR_LOAD_IN_PROGRESS, as Kafka
     * does, rather than a partial list).
     */
    public TransactionListing transactions()
    {
        synchronized (lock)
        {
            boolean loading = false;
            for (final TxnPartition partition : partitions.values())
            {
                loading |= !partition.loaded;
            }
            final List<TransactionView> views = new ArrayList<>();
            forEachLoaded((partition, txn) -> views.add(new TransactionView(txn.id, txn.current)));
            return new TransactionListing(loading, views);
        }
    }

    // ---------------------------------------------------------------------------------------------- InitProducerId

    /**
     * InitProducerId. {@code expectedProducerId}/{@code expectedEpoch} are -1 unless the producer resumes after an
     * error (v3+). Answers PRODUCER_FENCED where Kafka does; the API layer maps it for older versions.
     */
    public CompletableFuture<InitProducerIdResult> initProducerId(final String transactionalId,
        final int transactionTimeoutMs, final long expectedProducerId, final short expectedEpoch)
    {
        if (transactionalId == null)
        {
            return producerIds.generateProducerId().handle((producerId, error) -> error == null
                ? new InitProducerIdResult(Errors.NONE, producerId, (short) 0)
                : InitProducerIdResult.error(Errors.forException(CoordinatorLogs.unwrap(error))));
        }
        if (transactionalId.isEmpty())
        {
            return CompletableFuture.completedFuture(InitProducerIdResult.error(Errors.INVALID_REQUEST));
        }
        if (transactionTimeoutMs <= 0 || transactionTimeoutMs > config.transactionMaxTimeoutMs())
        {
            return CompletableFuture.completedFuture(InitProducerIdResult.error(Errors.INVALID_TRANSACTION_TIMEOUT));
        }
        final CompletableFuture<InitProducerIdResult> result = new CompletableFuture<>();
        initProducerId(transactionalId, transactionTimeoutMs, expectedProducerId, expectedEpoch, NO_PRODUCER_ID,
            result);
        return result;
    }

    private void initProducerId(final String transactionalId, final int timeoutMs, final long expectedProducerId,
        final short expectedEpoch, final long freshProducerId, final CompletableFuture<InitProducerIdResult> result)
    {
        final Runnable action;
        synchronized (lock)
        {
            action = decideInit(transactionalId, timeoutMs, expectedProducerId, expectedEpoch, freshProducerId, result);
        }
        action.run();
    }

    /** Decides under the lock; returns what to run after releasing it. */
    private Runnable decideInit(final String transactionalId, final int timeoutMs, final long expectedProducerId,
        final short expectedEpoch, final long freshProducerId, final CompletableFuture<InitProducerIdResult> result)
    {
        final TxnPartition partition = partitions.get(config.transactionPartitionFor(transactionalId));
        final Errors partitionError = partitionError(partition);
        if (partitionError != Errors.NONE)
        {
            return () -> result.complete(InitProducerIdResult.error(partitionError));
        }
        Txn txn = partition.txns.get(transactionalId);
        if (txn == null)
        {
            if (freshProducerId == NO_PRODUCER_ID)
            {
                return () -> withFreshProducerId(result, producerId -> initProducerId(transactionalId, timeoutMs,
                    expectedProducerId, expectedEpoch, producerId, result));
            }
            txn = new Txn(transactionalId, partition.partition, new TransactionLogRecord(freshProducerId,
                NO_PRODUCER_EPOCH, timeoutMs, TransactionState.EMPTY, Set.of(), time.milliseconds(), -1L));
            partition.txns.put(transactionalId, txn);
        }
        if (txn.pending != null)
        {
            return () -> result.complete(InitProducerIdResult.error(Errors.CONCURRENT_TRANSACTIONS));
        }
        final TransactionLogRecord current = txn.current;
        if (expectedProducerId != NO_PRODUCER_ID && !isValidProducerId(txn, expectedProducerId, expectedEpoch))
        {
            return () -> result.complete(InitProducerIdResult.error(Errors.PRODUCER_FENCED));
        }
        final long nowMs = time.milliseconds();
        switch (current.state())
        {
            case ONGOING:
            {
                // Fence the current producer and abort its transaction; the new one retries until the abort is done.
                final Txn fenced = txn;
                final Runnable abort = prepareAbortWithFence(txn, nowMs);
                return () ->
                {
                    abort.run();
                    result.complete(InitProducerIdResult.error(Errors.CONCURRENT_TRANSACTIONS));
                    LOG.debug("fencing {} to abort its ongoing transaction", fenced.id);
                };
            }
            case EMPTY:
            case COMPLETE_COMMIT:
            case COMPLETE_ABORT:
            {
                if (expectedProducerId != NO_PRODUCER_ID)
                {
                    final boolean retryOfBump = (expectedProducerId == current.producerId()
                        && expectedEpoch == txn.lastProducerEpoch && expectedEpoch != current.producerEpoch())
                        || (expectedProducerId == txn.previousProducerId && expectedEpoch >= EPOCH_EXHAUSTED);
                    if (retryOfBump)
                    {
                        return () -> result.complete(new InitProducerIdResult(Errors.NONE, current.producerId(),
                            current.producerEpoch()));
                    }
                    if (expectedProducerId == current.producerId() && expectedEpoch != current.producerEpoch())
                    {
                        return () -> result.complete(InitProducerIdResult.error(Errors.PRODUCER_FENCED));
                    }
                }
                final TransactionLogRecord next;
                final long previousProducerId;
                // A fresh id when the epoch is exhausted, as Kafka does, and when the id is below the producer id
                // floor: it was handed out before a mirror failover and may be a mirrored producer's (hazard 8).
                if (current.producerEpoch() >= EPOCH_EXHAUSTED || current.producerId() < producerIds.floor())
                {
                    if (freshProducerId == NO_PRODUCER_ID || freshProducerId == current.producerId())
                    {
                        return () -> withFreshProducerId(result, producerId -> initProducerId(transactionalId,
                            timeoutMs, expectedProducerId, expectedEpoch, producerId, result));
                    }
                    next = new TransactionLogRecord(freshProducerId, (short) 0, timeoutMs, TransactionState.EMPTY,
                        Set.of(), nowMs, -1L);
                    previousProducerId = current.producerId();
                }
                else
                {
                    next = new TransactionLogRecord(current.producerId(), (short) (current.producerEpoch() + 1),
                        timeoutMs, TransactionState.EMPTY, Set.of(), nowMs, -1L);
                    previousProducerId = txn.previousProducerId;
                }
                final Txn bumped = txn;
                final short lastEpoch = current.producerEpoch();
                return persist(partition, txn, next, false, error ->
                {
                    if (error == Errors.NONE)
                    {
                        synchronized (lock)
                        {
                            bumped.lastProducerEpoch = lastEpoch;
                            bumped.previousProducerId = previousProducerId;
                        }
                        result.complete(new InitProducerIdResult(Errors.NONE, next.producerId(), next.producerEpoch()));
                    }
                    else
                    {
                        result.complete(InitProducerIdResult.error(error));
                    }
                });
            }
            default:
                return () -> result.complete(InitProducerIdResult.error(Errors.CONCURRENT_TRANSACTIONS));
        }
    }

    private void withFreshProducerId(final CompletableFuture<InitProducerIdResult> result, final Consumer<Long> then)
    {
        producerIds.generateProducerId().whenComplete((producerId, error) ->
        {
            if (error != null)
            {
                result.complete(InitProducerIdResult.error(Errors.forException(CoordinatorLogs.unwrap(error))));
            }
            else
            {
                then.accept(producerId);
            }
        });
    }

    /** Kafka's isValidProducerId for a resuming producer. */
    private static boolean isValidProducerId(final Txn txn, final long expectedProducerId, final short expectedEpoch)
    {
        return txn.current.producerEpoch() == NO_PRODUCER_EPOCH
            || expectedProducerId == txn.current.producerId()
            || (expectedProducerId == txn.previousProducerId && expectedEpoch >= EPOCH_EXHAUSTED);
    }

    // ------------------------------------------------------------------------------ AddPartitions / AddOffsets

    /** AddPartitionsToTxn (and AddOffsetsToTxn with the group's offsets partition): one error for all partitions. */
    public CompletableFuture<Errors> addPartitions(final String transactionalId, final long producerId,
        final short producerEpoch, final Collection<TopicPartition> added)
    {
        final CompletableFuture<Errors> result = new CompletableFuture<>();
        final Runnable action;
        synchronized (lock)
        {
            action = decideAdd(transactionalId, producerId, producerEpoch, added, result);
        }
        action.run();
        return result;
    }

    private Runnable decideAdd(final String transactionalId, final long producerId, final short producerEpoch,
        final Collection<TopicPartition> added, final CompletableFuture<Errors> result)
    {
        final TxnPartition partition = partitions.get(config.transactionPartitionFor(transactionalId));
        final Errors error = validateProducer(partition, transactionalId, producerId, producerEpoch);
        if (error != Errors.NONE)
        {
            return () -> result.complete(error);
        }
        final Txn txn = partition.txns.get(transactionalId);
        final TransactionLogRecord current = txn.current;
        if (current.state() == TransactionState.ONGOING && current.partitions().containsAll(added))
        {
            return () -> result.complete(Errors.NONE);
        }
        switch (current.state())
        {
            case ONGOING:
            case EMPTY:
            case COMPLETE_COMMIT:
            case COMPLETE_ABORT:
            {
                final Set<TopicPartition> union = new HashSet<>(
                    current.state() == TransactionState.ONGOING ? current.partitions() : Set.of());
                union.addAll(added);
                final long nowMs = time.milliseconds();
                final long startMs = current.state() == TransactionState.ONGOING ? current.startTimestampMs() : nowMs;
                final TransactionLogRecord next = new TransactionLogRecord(current.producerId(),
                    current.producerEpoch(), current.timeoutMs(), TransactionState.ONGOING, union, nowMs, startMs);
                return persist(partition, txn, next, false, result::complete);
            }
            case PREPARE_COMMIT:
            case PREPARE_ABORT:
                return () -> result.complete(Errors.CONCURRENT_TRANSACTIONS);
            default:
                return () -> result.complete(Errors.INVALID_TXN_STATE);
        }
    }

    /**
     * AddPartitionsToTxn v4+ with VerifyOnly: NONE for each partition already in the producer's ongoing
     * transaction, INVALID_TXN_STATE for the others, or the producer's error for all.
     */
    public Map<TopicPartition, Errors> verifyPartitions(final String transactionalId, final long producerId,
        final short producerEpoch, final Collection<TopicPartition> verified)
    {
        final Map<TopicPartition, Errors> result = new HashMap<>();
        synchronized (lock)
        {
            final TxnPartition partition = partitions.get(config.transactionPartitionFor(transactionalId));
            Errors error = partitionError(partition);
            if (error == Errors.NONE)
            {
                final Txn txn = partition.txns.get(transactionalId);
                if (txn == null || txn.current.producerId() != producerId)
                {
                    error = Errors.INVALID_PRODUCER_ID_MAPPING;
                }
                else if (producerEpoch != txn.visibleEpoch())
                {
                    error = Errors.PRODUCER_FENCED;
                }
                else
                {
                    final boolean ongoing = txn.current.state() == TransactionState.ONGOING;
                    for (final TopicPartition tp : verified)
                    {
                        result.put(tp, ongoing && txn.current.partitions().contains(tp)
                            ? Errors.NONE : Errors.INVALID_TXN_STATE);
                    }
                    return result;
                }
            }
            for (final TopicPartition tp : verified)
            {
                result.put(tp, error);
            }
        }
        return result;
    }

    // ---------------------------------------------------------------------------------------------------- EndTxn

    /** EndTxn: answers once the decision is logged; markers follow. */
    public CompletableFuture<Errors> endTransaction(final String transactionalId, final long producerId,
        final short producerEpoch, final boolean commit)
    {
        final CompletableFuture<Errors> result = new CompletableFuture<>();
        final Runnable action;
        synchronized (lock)
        {
            action = decideEnd(transactionalId, producerId, producerEpoch, commit, result);
        }
        action.run();
        return result;
    }

    private Runnable decideEnd(final String transactionalId, final long producerId, final short producerEpoch,
        final boolean commit, final CompletableFuture<Errors> result)
    {
        final TxnPartition partition = partitions.get(config.transactionPartitionFor(transactionalId));
        final Errors error = validateProducer(partition, transactionalId, producerId, producerEpoch);
        if (error != Errors.NONE)
        {
            return () -> result.complete(error);
        }
        final Txn txn = partition.txns.get(transactionalId);
        final TransactionLogRecord current = txn.current;
        final Errors answer;
        switch (current.state())
        {
            case ONGOING:
            {
                final TransactionLogRecord next = new TransactionLogRecord(current.producerId(),
                    current.producerEpoch(), current.timeoutMs(),
                    commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT, current.partitions(),
                    time.milliseconds(), current.startTimestampMs());
                return persist(partition, txn, next, false, written ->
                {
                    result.complete(written);
                    if (written == Errors.NONE)
                    {
                        startMarkers(txn);
                    }
                });
            }
            case COMPLETE_COMMIT:
                answer = commit ? Errors.NONE : Errors.INVALID_TXN_STATE;
                break;
            case COMPLETE_ABORT:
                answer = commit ? Errors.INVALID_TXN_STATE : Errors.NONE;
                break;
            case PREPARE_COMMIT:
                answer = commit ? Errors.CONCURRENT_TRANSACTIONS : Errors.INVALID_TXN_STATE;
                break;
            case PREPARE_ABORT:
                answer = commit ? Errors.INVALID_TXN_STATE : Errors.CONCURRENT_TRANSACTIONS;
                break;
            default:
                answer = Errors.INVALID_TXN_STATE;
                break;
        }
        return () -> result.complete(answer);
    }

    /** The checks AddPartitions, AddOffsets and EndTxn share, in Kafka's order. Under the lock. */
    private Errors validateProducer(final TxnPartition partition, final String transactionalId, final long producerId,
        final short producerEpoch)
    {
        final Errors partitionError = partitionError(partition);
        if (partitionError != Errors.NONE)
        {
            return partitionError;
        }
        final Txn txn = partition.txns.get(transactionalId);
        if (txn == null || txn.current.producerId() != producerId)
        {
            return Errors.INVALID_PRODUCER_ID_MAPPING;
        }
        if (producerEpoch != txn.visibleEpoch())
        {
            return Errors.PRODUCER_FENCED;
        }
        if (txn.pending != null)
        {
            return Errors.CONCURRENT_TRANSACTIONS;
        }
        return Errors.NONE;
    }

    // ------------------------------------------------------------------------------------------ timeouts, retries

    /**
     * Aborts transactions past their timeout and re-sends markers whose backoff has passed. Called by the broker's
     * coordinator scheduler thread (every {@code markerRetryBackoffMs} is enough), or by tests with a manual clock.
     */
    public void poll()
    {
        final List<Runnable> actions = new ArrayList<>();
        synchronized (lock)
        {
            final long nowMs = time.milliseconds();
            final List<Txn> due = new ArrayList<>();
            for (final Txn txn : markerRetries)
            {
                if (txn.retryAtMs <= nowMs && txn.requestsInFlight == 0)
                {
                    due.add(txn);
                }
            }
            for (final Txn txn : due)
            {
                markerRetries.remove(txn);
                if (txn.completeRetry)
                {
                    txn.completeRetry = false;
                    actions.add(() -> completeTransaction(txn));
                }
                else
                {
                    final int generation = txn.markerGeneration;
                    actions.add(() -> dispatchMarkers(txn, generation));
                }
            }
            if (nowMs >= nextExpirationCheckMs)
            {
                nextExpirationCheckMs = nowMs + config.transactionRemoveExpiredIntervalMs();
                forEachLoaded((partition, txn) ->
                {
                    final TransactionLogRecord current = txn.current;
                    if (current.state().isCompleteOrEmpty() && txn.pending == null
                        && current.lastUpdateTimestampMs() + config.transactionalIdExpirationMs() <= nowMs)
                    {
                        actions.add(persist(partition, txn, new TransactionLogRecord(current.producerId(),
                            current.producerEpoch(), current.timeoutMs(), TransactionState.DEAD, Set.of(), nowMs,
                            -1L), false, error -> { }));
                    }
                });
            }
            if (nowMs >= nextAbortCheckMs)
            {
                nextAbortCheckMs = nowMs + config.transactionAbortCheckIntervalMs();
                forEachLoaded((partition, txn) ->
                {
                    final TransactionLogRecord current = txn.current;
                    if (current.state() == TransactionState.ONGOING && txn.pending == null
                        && current.startTimestampMs() + current.timeoutMs() <= nowMs)
                    {
                        LOG.info("aborting transaction of {} after its timeout of {} ms", txn.id,
                            current.timeoutMs());
                        actions.add(prepareAbortWithFence(txn, nowMs));
                    }
                });
            }
        }
        for (final Runnable action : actions)
        {
            action.run();
        }
    }

    /** Ongoing → PrepareAbort with a bumped epoch, fencing the producer at once. Under the lock. */
    private Runnable prepareAbortWithFence(final Txn txn, final long nowMs)
    {
        final TransactionLogRecord current = txn.current;
        final short fencedEpoch = current.producerEpoch() < Short.MAX_VALUE
            ? (short) (current.producerEpoch() + 1) : current.producerEpoch();
        final TransactionLogRecord next = new TransactionLogRecord(current.producerId(), fencedEpoch,
            current.timeoutMs(), TransactionState.PREPARE_ABORT, current.partitions(), nowMs,
            current.startTimestampMs());
        final TxnPartition partition = partitions.get(txn.partition);
        final short lastEpoch = current.producerEpoch();
        return persist(partition, txn, next, true, error ->
        {
            if (error == Errors.NONE)
            {
                synchronized (lock)
                {
                    txn.lastProducerEpoch = lastEpoch;
                }
                startMarkers(txn);
            }
        });
    }

    // ------------------------------------------------------------------------------------------------- markers

    private void startMarkers(final Txn txn)
    {
        final int generation;
        synchronized (lock)
        {
            txn.outstanding = new HashSet<>(txn.current.partitions());
            generation = ++txn.markerGeneration;
        }
        dispatchMarkers(txn, generation);
    }

    /** Sends the outstanding markers of a transaction to their leaders. Not under the lock. */
    private void dispatchMarkers(final Txn txn, final int generation)
    {
        final Map<Integer, WriteTxnMarkersRequestData> byLeader = new HashMap<>();
        final boolean done;
        synchronized (lock)
        {
            final TxnPartition partition = partitions.get(txn.partition);
            if (partition == null || partition.txns.get(txn.id) != txn || txn.markerGeneration != generation
                || !txn.current.state().isPrepare())
            {
                return;
            }
            final boolean commit = txn.current.state() == TransactionState.PREPARE_COMMIT;
            boolean unresolved = false;
            final Map<Integer, Map<String, List<Integer>>> partitionsByLeader = new HashMap<>();
            for (final TopicPartition target : new ArrayList<>(txn.outstanding))
            {
                final Optional<TopicMetadata> topic = metadata.topic(target.topic());
                if (topic.isEmpty() || target.partition() >= topic.get().partitions().size())
                {
                    // Deleted topic: nothing left to mark, as Kafka drops it.
                    txn.outstanding.remove(target);
                    continue;
                }
                final PartitionState state = topic.get().partitions().get(target.partition());
                if (state.leader() < 0 || (state.leader() != config.brokerId()
                    && metadata.broker(state.leader()).isEmpty()))
                {
                    unresolved = true;
                    continue;
                }
                partitionsByLeader.computeIfAbsent(state.leader(), l -> new HashMap<>())
                    .computeIfAbsent(target.topic(), t -> new ArrayList<>()).add(target.partition());
            }
            for (final Map.Entry<Integer, Map<String, List<Integer>>> entry : partitionsByLeader.entrySet())
            {
                final WriteTxnMarkersRequestData.WritableTxnMarker marker = new WriteTxnMarkersRequestData
                    .WritableTxnMarker().setProducerId(txn.current.producerId())
                    .setProducerEpoch(txn.current.producerEpoch()).setTransactionResult(commit)
                    .setCoordinatorEpoch(partition.coordinatorEpoch).setTransactionVersion(TRANSACTION_VERSION_1);
                for (final Map.Entry<String, List<Integer>> topic : entry.getValue().entrySet())
                {
                    marker.topics().add(new WriteTxnMarkersRequestData.WritableTxnMarkerTopic()
                        .setName(topic.getKey()).setPartitionIndexes(topic.getValue()));
                }
                final WriteTxnMarkersRequestData data = new WriteTxnMarkersRequestData();
                data.markers().add(marker);
                byLeader.put(entry.getKey(), data);
            }
            txn.requestsInFlight += byLeader.size();
            if (unresolved)
            {
                scheduleRetry(txn);
            }
            done = txn.outstanding.isEmpty() && txn.requestsInFlight == 0;
        }
        if (done)
        {
            completeTransaction(txn);
            return;
        }
        for (final Map.Entry<Integer, WriteTxnMarkersRequestData> entry : byLeader.entrySet())
        {
            sendMarkers(entry.getKey(), entry.getValue())
                .whenComplete((response, error) -> onMarkersResponse(txn, generation, response, error));
        }
    }

    private CompletableFuture<WriteTxnMarkersResponseData> sendMarkers(final int brokerId,
        final WriteTxnMarkersRequestData data)
    {
        try
        {
            if (brokerId == config.brokerId())
            {
                return localMarkers.write(data);
            }
            final CompletableFuture<WriteTxnMarkersResponse> sent =
                nodeClients.apply(brokerId).send(new WriteTxnMarkersRequest.Builder(data));
            return sent.thenApply(WriteTxnMarkersResponse::data);
        }
        catch (final RuntimeException e)
        {
            return CompletableFuture.failedFuture(e);
        }
    }

    private void onMarkersResponse(final Txn txn, final int generation, final WriteTxnMarkersResponseData response,
        final Throwable error)
    {
        final boolean done;
        synchronized (lock)
        {
            txn.requestsInFlight--;
            final TxnPartition partition = partitions.get(txn.partition);
            if (partition == null || partition.txns.get(txn.id) != txn || txn.markerGeneration != generation)
            {
                return;
            }
            if (error != null)
            {
                LOG.debug("markers of {} not sent, retrying: {}", txn.id, CoordinatorLogs.unwrap(error).toString());
                scheduleRetry(txn);
                return;
            }
            boolean retry = false;
            for (final WriteTxnMarkersResponseData.WritableTxnMarkerResult marker : response.markers())
            {
                for (final WriteTxnMarkersResponseData.WritableTxnMarkerTopicResult topic : marker.topics())
                {
                    for (final WriteTxnMarkersResponseData.WritableTxnMarkerPartitionResult result : topic.partitions())
                    {
                        final TopicPartition target = new TopicPartition(topic.name(), result.partitionIndex());
                        final Errors partitionError = Errors.forCode(result.errorCode());
                        switch (partitionError)
                        {
                            case NONE:
                                txn.outstanding.remove(target);
                                break;
                            case UNKNOWN_TOPIC_OR_PARTITION:
                                if (metadata.topic(target.topic()).isEmpty())
                                {
                                    txn.outstanding.remove(target);
                                }
                                else
                                {
                                    retry = true;
                                }
                                break;
                            case INVALID_PRODUCER_EPOCH:
                            case TRANSACTION_COORDINATOR_FENCED:
                                // A newer coordinator owns this transaction now: stop, as Kafka does.
                                LOG.info("markers of {} fenced at {}: {}", txn.id, target, partitionError);
                                txn.markerGeneration++;
                                return;
                            default:
                                retry = true;
                                break;
                        }
                    }
                }
            }
            if (retry)
            {
                scheduleRetry(txn);
            }
            done = txn.outstanding.isEmpty() && txn.requestsInFlight == 0;
        }
        if (done)
        {
            completeTransaction(txn);
        }
    }

    /** Under the lock. */
    private void scheduleRetry(final Txn txn)
    {
        txn.retryAtMs = time.milliseconds() + config.markerRetryBackoffMs();
        markerRetries.add(txn);
    }

    /** PrepareX → CompleteX once every marker is written. */
    private void completeTransaction(final Txn txn)
    {
        final Runnable action;
        synchronized (lock)
        {
            final TxnPartition partition = partitions.get(txn.partition);
            if (partition == null || partition.txns.get(txn.id) != txn || !txn.current.state().isPrepare()
                || txn.pending != null)
            {
                return;
            }
            final TransactionLogRecord current = txn.current;
            final TransactionLogRecord next = new TransactionLogRecord(current.producerId(), current.producerEpoch(),
                current.timeoutMs(), current.state() == TransactionState.PREPARE_COMMIT
                    ? TransactionState.COMPLETE_COMMIT : TransactionState.COMPLETE_ABORT,
                Set.of(), time.milliseconds(), current.startTimestampMs());
            action = persist(partition, txn, next, false, error ->
            {
                if (error != Errors.NONE && error != Errors.NOT_COORDINATOR)
                {
                    synchronized (lock)
                    {
                        txn.completeRetry = true;
                        scheduleRetry(txn);
                    }
                }
            });
        }
        action.run();
    }

    // ------------------------------------------------------------------------------------------- persistence

    /**
     * Marks {@code next} pending and returns the append to run outside the lock; {@code then} gets NONE once
     * {@code next} is durable and in force, or the error to answer. Under the lock.
     */
    private Runnable persist(final TxnPartition partition, final Txn txn, final TransactionLogRecord next,
        final boolean fencing, final Consumer<Errors> then)
    {
        txn.pending = next;
        txn.fencing = fencing;
        final int coordinatorEpoch = partition.coordinatorEpoch;
        final TopicPartition logPartition = new TopicPartition(CoordinatorConfig.TRANSACTION_STATE_TOPIC,
            partition.partition);
        // DEAD is never written as a state: it is the tombstone that removes an expired id from the compacted log.
        final boolean tombstone = next.state() == TransactionState.DEAD;
        final MemoryRecords records = MemoryRecords.withRecords(Compression.NONE, new SimpleRecord(
            time.milliseconds(), TransactionLogRecord.encodeKey(txn.id), tombstone ? null : next.encodeValue()));
        return () ->
        {
            CompletableFuture<?> append;
            try
            {
                append = replicas.appendAndWait(logPartition, records, config.appendTimeoutMs());
            }
            catch (final RuntimeException e)
            {
                append = CompletableFuture.failedFuture(e);
            }
            append.whenComplete((appended, error) ->
            {
                final Errors outcome;
                synchronized (lock)
                {
                    final TxnPartition now = partitions.get(partition.partition);
                    if (txn.pending == next)
                    {
                        txn.pending = null;
                        txn.fencing = false;
                    }
                    if (now == null || now.coordinatorEpoch != coordinatorEpoch || now.txns.get(txn.id) != txn)
                    {
                        outcome = Errors.NOT_COORDINATOR;
                    }
                    else if (error != null)
                    {
                        outcome = CoordinatorLogs.appendError(error, Errors.UNKNOWN_SERVER_ERROR);
                        LOG.debug("transaction state of {} not written: {}", txn.id, outcome);
                    }
                    else if (tombstone)
                    {
                        now.txns.remove(txn.id);
                        outcome = Errors.NONE;
                    }
                    else
                    {
                        txn.current = next;
                        outcome = Errors.NONE;
                    }
                }
                then.accept(outcome);
            });
        };
    }

    // -------------------------------------------------------------------------------------------- leadership

    @Override
    public void onBecomeLeader(final TopicPartition partition, final int leaderEpoch)
    {
        synchronized (lock)
        {
            partitions.put(partition.partition(), new TxnPartition(partition.partition(), leaderEpoch));
        }
        loadExecutor.execute(() -> load(partition, leaderEpoch));
    }

    @Override
    public void onResign(final TopicPartition partition)
    {
        synchronized (lock)
        {
            final TxnPartition removed = partitions.remove(partition.partition());
            if (removed != null)
            {
                markerRetries.removeIf(txn -> txn.partition == partition.partition());
            }
        }
    }

    private void load(final TopicPartition partition, final int leaderEpoch)
    {
        final Map<String, TransactionLogRecord> loaded = new HashMap<>();
        try
        {
            replicas.leaderLog(partition).ifPresent(log -> CoordinatorLogs.replay(log, batch -> replayBatch(batch,
                loaded)));
        }
        catch (final RuntimeException e)
        {
            LOG.error("loading {} failed; it answers NOT_COORDINATOR", partition, e);
            synchronized (lock)
            {
                final TxnPartition state = partitions.get(partition.partition());
                if (state != null && state.coordinatorEpoch == leaderEpoch)
                {
                    partitions.remove(partition.partition());
                }
            }
            return;
        }
        final List<Txn> resumed = new ArrayList<>();
        synchronized (lock)
        {
            final TxnPartition state = partitions.get(partition.partition());
            if (state == null || state.coordinatorEpoch != leaderEpoch)
            {
                return;
            }
            for (final Map.Entry<String, TransactionLogRecord> entry : loaded.entrySet())
            {
                if (entry.getValue() == null)
                {
                    continue;
                }
                final Txn txn = new Txn(entry.getKey(), partition.partition(), entry.getValue());
                state.txns.put(entry.getKey(), txn);
                if (entry.getValue().state().isPrepare())
                {
                    resumed.add(txn);
                }
            }
            state.loaded = true;
        }
        LOG.info("loaded {} transactional ids of {} at coordinator epoch {}; resuming {}", loaded.size(), partition,
            leaderEpoch, resumed.size());
        for (final Txn txn : resumed)
        {
            startMarkers(txn);
        }
    }

    private static void replayBatch(final RecordBatch batch, final Map<String, TransactionLogRecord> loaded)
    {
        if (batch.isControlBatch())
        {
            return;
        }
        for (final Record record : batch)
        {
            if (!record.hasKey())
            {
                continue;
            }
            final String transactionalId = TransactionLogRecord.decodeKey(record.key());
            if (transactionalId == null)
            {
                continue;
            }
            loaded.put(transactionalId, record.hasValue() ? TransactionLogRecord.decodeValue(record.value()) : null);
        }
    }

    /** Under the lock. */
    private static Errors partitionError(final TxnPartition partition)
    {
        if (partition == null)
        {
            return Errors.NOT_COORDINATOR;
        }
        return partition.loaded ? Errors.NONE : Errors.COORDINATOR_LOAD_IN_PROGRESS;
    }

    /** One {@code __transaction_state} partition this broker leads. Guarded by the coordinator's lock. */
    private static final class TxnPartition
    {
        final int partition;
        final int coordinatorEpoch;
        final Map<String, Txn> txns = new HashMap<>();
        boolean loaded;

        TxnPartition(final int partition, final int coordinatorEpoch)
        {
            this.partition = partition;
            this.coordinatorEpoch = coordinatorEpoch;
        }
    }

    /** One transactional id. Guarded by the coordinator's lock. */
    private static final class Txn
    {
        final String id;
        final int partition;
        TransactionLogRecord current;
        /** The transition being written, or null. */
        TransactionLogRecord pending;
        /** Whether {@link #pending} bumps the epoch to fence the producer (then the new epoch applies at once). */
        boolean fencing;
        short lastProducerEpoch = NO_PRODUCER_EPOCH;
        long previousProducerId = NO_PRODUCER_ID;
        Set<TopicPartition> outstanding = new HashSet<>();
        int markerGeneration;
        int requestsInFlight;
        long retryAtMs;
        boolean completeRetry;

        Txn(final String id, final int partition, final TransactionLogRecord current)
        {
            this.id = id;
            this.partition = partition;
            this.current = current;
        }

        short visibleEpoch()
        {
            return fencing && pending != null ? pending.producerEpoch() : current.producerEpoch();
        }
    }

    /** Every transactional id of every loaded partition; under the lock. */
    private void forEachLoaded(final java.util.function.BiConsumer<TxnPartition, Txn> action)
    {
        for (final TxnPartition partition : partitions.values())
        {
            if (partition.loaded)
            {
                for (final Txn txn : partition.txns.values())
                {
                    action.accept(partition, txn);
                }
            }
        }
    }
}

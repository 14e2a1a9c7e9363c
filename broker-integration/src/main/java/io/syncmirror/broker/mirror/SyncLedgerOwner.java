package io.syncmirror.broker.mirror;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotCoordinatorException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.SimpleRecord;
import org.apache.kafka.common.utils.Utils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import io.syncmirror.broker.coordinator.CoordinatorLogs;
import io.syncmirror.broker.coordinator.ReplicaAccess;
import io.syncmirror.broker.storage.PartitionLog;

/**
 * The source role's sync registration ledgers, owned where the sync text puts them: by the broker leading the
 * {@code __mirror_state} partition a mirror's ledger record hashes to. One {@link SyncRegistrationLedger} per led
 * partition and leader epoch, loaded from the local log when first used in that epoch (as Kafka's coordinators
 * load on election: the leader's log is the truth it will make committed), so that a Released marker written under
 * another leader is always seen; its writes are appended as leader and acknowledged by the ISR (acks=all), so a
 * deposed leader's write fails (NOT_LEADER_OR_FOLLOWER, or no ISR acknowledgement) instead of landing behind the
 * new leader's back, as a produce through a client could.
 *
 * <p>Thread-safety: leadership callbacks come on the metadata thread and only record the epoch; ledger operations
 * run on the callers' threads, one at a time ({@link #lock}), each including its append and the controller's
 * commit of the registration change, as the ledger's order of decisions must be the order they are committed in.
 */
final class SyncLedgerOwner implements ReplicaAccess.LeadershipListener
{
    private static final Logger LOG = LoggerFactory.getLogger(SyncLedgerOwner.class);

    private final int brokerId;
    private final ReplicaAccess replicas;
    private final SyncRegistrationLedger.RegistrationChanges changes;
    private final BooleanSupplier canGate;
    private final LongSupplier clockMs;
    private final long appendTimeoutMs;
    /** The leader epoch of each {@code __mirror_state} partition this broker leads. */
    private final Map<Integer, Integer> ledEpochs = new ConcurrentHashMap<>();
    private final Object lock = new Object();
    /** The ledger of each led partition, for the epoch it was loaded in; guarded by {@link #lock}. */
    private final Map<Integer, Loaded> loaded = new HashMap<>();

    /** A partition's ledger as loaded in one leader epoch. */
    private record Loaded(int epoch, SyncRegistrationLedger ledger)
    {
    }

    /** One of a ledger's operations, run on the partition's current ledger. */
    @FunctionalInterface
    interface LedgerOperation<T>
    {
        T run(SyncRegistrationLedger ledger);
    }

    /**
     * @param changes         commits a registration change at the controller (MirrorSyncRegistrationChange)
     * @param canGate         whether this source cluster can gate produces on a sync mirror now
     * @param appendTimeoutMs bound of a ledger write's wait for the ISR
     */
    SyncLedgerOwner(final int brokerId, final ReplicaAccess replicas,
        final SyncRegistrationLedger.RegistrationChanges changes, final BooleanSupplier canGate,
        final LongSupplier clockMs, final long appendTimeoutMs)
    {
        this.brokerId = brokerId;
        this.replicas = replicas;
        this.changes = changes;
        this.canGate = canGate;
        this.clockMs = clockMs;
        this.appendTimeoutMs = appendTimeoutMs;
    }

    /** Starts following the leadership of {@code __mirror_state}'s partitions hosted here. */
    void start()
    {
        replicas.addLeadershipListener(MirrorStateStore.TOPIC, this);
    }

    /** The {@code __mirror_state} partition of a mirror's ledger record, as the state store partitions keys. */
    static int partitionFor(final String mirrorName, final int partitions)
    {
        return MirrorStateStore.partitionFor(SyncRegistrationLedger.key(mirrorName), partitions);
    }

    /** Whether this broker leads {@code __mirror_state} partition {@code partition} (and so owns its ledger). */
    boolean owns(final int partition)
    {
        return ledEpochs.containsKey(partition);
    }

    @Override
    public void onBecomeLeader(final TopicPartition partition, final int leaderEpoch)
    {
        ledEpochs.put(partition.partition(), leaderEpoch);
    }

    @Override
    public void onResign(final TopicPartition partition)
    {
        ledEpochs.remove(partition.partition());
    }

    /**
     * Runs {@code operation} on the ledger of {@code partition}, reloaded first when the partition's leader epoch
     * changed since it was loaded.
     *
     * @throws NotCoordinatorException when this broker does not lead the partition (any more)
     */
    <T> T withLedger(final int partition, final LedgerOperation<T> operation)
    {
        synchronized (lock)
        {
            final Integer epoch = ledEpochs.get(partition);
            if (epoch == null)
            {
                loaded.remove(partition);
                throw new NotCoordinatorException("broker " + brokerId + " does not lead " + MirrorStateStore.TOPIC +
                    "-" + partition + ", the partition of this mirror's sync registration ledger");
            }
            Loaded current = loaded.get(partition);
            if (current == null || current.epoch() != epoch)
            {
                current = new Loaded(epoch, new SyncRegistrationLedger(load(partition, epoch), changes, canGate));
                loaded.put(partition, current);
            }
            try
            {
                return operation.run(current.ledger());
            }
            catch (final RuntimeException e)
            {
                // A write that failed may still be in the log (appended, not acknowledged in time): reload next time
                // rather than trust what this instance holds.
                loaded.remove(partition);
                throw e;
            }
        }
    }

    /** Replays the led partition's local log: the latest value of every ledger record in it. */
    private Records load(final int partition, final int epoch)
    {
        final TopicPartition tp = new TopicPartition(MirrorStateStore.TOPIC, partition);
        final PartitionLog log = replicas.leaderLog(tp).orElseThrow(() -> new NotCoordinatorException("broker " +
            brokerId + " has no leader log of " + tp));
        final Records records = new Records(tp);
        final long startMs = clockMs.getAsLong();
        CoordinatorLogs.replay(log, batch ->
        {
            if (batch.isControlBatch())
            {
                return;
            }
            for (final Record record : batch)
            {
                if (record.hasKey() && record.keySize() >= 2 && record.key().getShort(record.key().position()) ==
                    SyncRegistrationLedger.KEY_TYPE)
                {
                    final byte[] key = Utils.toArray(record.key());
                    records.latest.put(new TopicMirrorStateStore.KeyBytes(key),
                        record.hasValue() ? Utils.toArray(record.value()) : null);
                }
            }
        });
        LOG.info("Loaded the sync registration ledger of {} at leader epoch {}: {} mirror(s) in {} ms", tp, epoch,
            records.latest.values().stream().filter(java.util.Objects::nonNull).count(),
            clockMs.getAsLong() - startMs);
        return records;
    }

    /** The ledger's records of one led partition: read from what was loaded, written through the leader's log. */
    private final class Records implements SyncRegistrationLedger.LedgerRecords
    {
        final TopicPartition partition;
        final Map<TopicMirrorStateStore.KeyBytes, byte[]> latest = new HashMap<>();

        Records(final TopicPartition partition)
        {
            this.partition = partition;
        }

        @Override
        public Optional<byte[]> read(final byte[] key)
        {
            return Optional.ofNullable(latest.get(new TopicMirrorStateStore.KeyBytes(key)));
        }

        @Override
        public void write(final byte[] key, final byte[] value)
        {
            final MemoryRecords records = MemoryRecords.withRecords(Compression.NONE,
                new SimpleRecord(clockMs.getAsLong(), key, value));
            try
            {
                replicas.appendAndWait(partition, records, appendTimeoutMs).get(appendTimeoutMs + 1000,
                    TimeUnit.MILLISECONDS);
            }
            catch (final ExecutionException e)
            {
                final Errors error = CoordinatorLogs.appendError(e, Errors.UNKNOWN_SERVER_ERROR);
                throw error.exception("writing the sync registration ledger to " + partition + " failed: " +
                    CoordinatorLogs.unwrap(e).getMessage());
            }
            catch (final java.util.concurrent.TimeoutException e)
            {
                throw Errors.COORDINATOR_NOT_AVAILABLE.exception("writing the sync registration ledger to " +
                    partition + " was not acknowledged within " + appendTimeoutMs + " ms");
            }
            catch (final InterruptedException e)
            {
                Thread.currentThread().interrupt();
                throw new KafkaException("interrupted writing the sync registration ledger", e);
            }
            latest.put(new TopicMirrorStateStore.KeyBytes(key), value);
        }
    }
}

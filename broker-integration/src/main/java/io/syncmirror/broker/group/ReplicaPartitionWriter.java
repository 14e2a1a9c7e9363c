package io.syncmirror.broker.group;

import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.NotLeaderOrFollowerException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.record.internal.MemoryRecords;
import org.apache.kafka.coordinator.common.runtime.PartitionWriter;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.VerificationGuard;

import io.syncmirror.broker.coordinator.ReplicaAccess;

/**
 * The group coordinator's {@link PartitionWriter} over the broker's replica layer: appends as leader to the
 * {@code __consumer_offsets} partition on the calling coordinator thread, and tells the coordinator of that
 * partition's HW advances, which is what completes its writes (so they complete at acks=all). Thread-safe.
 *
 * <p>As Kafka's own writer does, an append returns once the records are in the leader's log; the coordinator
 * holds the response until {@link Listener#onHighWatermarkUpdated} passes the records. Transaction verification
 * (KIP-890's AddPartitionsToTxn check from the partition leader) is not done: the broker serves transaction
 * version 1, where TxnOffsetCommit carries no verification, so {@link #maybeStartTransactionVerification} hands
 * back the sentinel guard, as Kafka's writer does with verification off.
 */
final class ReplicaPartitionWriter implements PartitionWriter
{
    private final ReplicaAccess replicas;
    private final Map<String, String> brokerLogDefaults;
    private final Map<TopicPartition, Listener> listeners = new ConcurrentHashMap<>();

    /**
     * @param brokerLogDefaults the broker's log defaults in topic-config form (e.g. {@code max.message.bytes}),
     *                          under the topic's own overrides in {@link #config}
     */
    ReplicaPartitionWriter(final ReplicaAccess replicas, final Map<String, String> brokerLogDefaults)
    {
        this.replicas = replicas;
        this.brokerLogDefaults = Map.copyOf(brokerLogDefaults);
    }

    @Override
    public void registerListener(final TopicPartition tp, final Listener listener)
    {
        listeners.put(tp, listener);
        if (!replicas.highWatermarkListener(tp, (partition, highWatermark) ->
        {
            final Listener current = listeners.get(partition);
            if (current != null)
            {
                current.onHighWatermarkUpdated(partition, highWatermark);
            }
        }))
        {
            listeners.remove(tp, listener);
            throw new NotLeaderOrFollowerException("no replica of " + tp + " here");
        }
        // An advance between the load's read of the HW and this registration would otherwise wait for the next one.
        replicas.leaderLog(tp).ifPresent(log -> listener.onHighWatermarkUpdated(tp, log.highWatermark()));
    }

    @Override
    public void deregisterListener(final TopicPartition tp, final Listener listener)
    {
        if (listeners.remove(tp, listener))
        {
            replicas.highWatermarkListener(tp, null);
        }
    }

    @Override
    public LogConfig config(final TopicPartition tp)
    {
        final Map<String, String> overrides = replicas.topicConfig(tp)
            .orElseThrow(() -> new NotLeaderOrFollowerException("no replica of " + tp + " here"));
        final Properties props = new Properties();
        props.putAll(overrides);
        return LogConfig.fromProps(brokerLogDefaults, props);
    }

    @Override
    public long append(final TopicPartition tp, final VerificationGuard verificationGuard,
        final MemoryRecords records, final short transactionVersion)
    {
        if (transactionVersion > 1)
        {
            throw new UnsupportedVersionException("transaction version " + transactionVersion + " is not served");
        }
        // The coordinator reuses its buffer once this returns, and the heap log keeps the one it is given.
        final ByteBuffer copy = ByteBuffer.allocate(records.sizeInBytes());
        copy.put(records.buffer().duplicate());
        copy.flip();
        return replicas.appendAsLeaderNow(tp, MemoryRecords.readableRecords(copy));
    }

    @Override
    public CompletableFuture<VerificationGuard> maybeStartTransactionVerification(final TopicPartition tp,
        final String transactionalId, final long producerId, final short producerEpoch, final int apiVersion)
    {
        return CompletableFuture.completedFuture(VerificationGuard.SENTINEL);
    }

    /**
     * Moves the leader's log start offset up to {@code deleteBeforeOffset}, never past the HW, as DeleteRecords
     * does. Kafka 4.4's group coordinator never calls it (its share coordinator does); it is here for the interface.
     */
    @Override
    public CompletableFuture<Void> deleteRecords(final TopicPartition tp, final long deleteBeforeOffset)
    {
        return replicas.leaderLog(tp).map(log ->
        {
            log.maybeIncrementLogStartOffset(Math.min(deleteBeforeOffset, log.highWatermark()));
            return CompletableFuture.<Void>completedFuture(null);
        }).orElseGet(() -> CompletableFuture.failedFuture(new NotLeaderOrFollowerException("broker does not lead "
            + tp)));
    }
}

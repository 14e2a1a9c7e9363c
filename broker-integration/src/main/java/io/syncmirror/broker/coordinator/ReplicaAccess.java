package io.syncmirror.broker.coordinator;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.function.ObjLongConsumer;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.record.internal.MemoryRecords;

import io.syncmirror.broker.storage.PartitionLog;

/**
 * What the coordinators (transactions, consumer offsets) need from the broker's replica layer: durable,
 * replicated appends to their internal partitions, reads of those partitions when taking over, and marker
 * appends on data partitions. The replica manager implements it.
 *
 * <p>Thread-safety: any thread; futures complete on replica-layer threads, so callers must not block in them.
 */
public interface ReplicaAccess
{
    /**
     * Appends as leader with acks=all semantics: completes after the partition's HW has passed the append, or
     * exceptionally with the ApiException a producer would get (NOT_LEADER_OR_FOLLOWER, NOT_ENOUGH_REPLICAS,
     * REQUEST_TIMED_OUT, ...).
     */
    CompletableFuture<PartitionLog.AppendResult> appendAndWait(TopicPartition partition, MemoryRecords records,
        long timeoutMs);

    /** Appends COMMIT/ABORT markers as leader (WriteTxnMarkers), acks=all semantics as above. */
    CompletableFuture<PartitionLog.AppendResult> appendMarkersAndWait(TopicPartition partition,
        MemoryRecords markers, long timeoutMs);

    /**
     * Appends an embedded coordinator's records as leader on the calling thread (Kafka's COORDINATOR origin:
     * transaction markers allowed, no sequence checks) and returns once they are in the local log, before they are
     * replicated: the group coordinator's writes, which complete when the partition's HW passes them (see
     * {@link #highWatermarkListener}). Refuses with NOT_ENOUGH_REPLICAS while the ISR is below its minimum.
     *
     * @return the offset after the last appended record
     * @throws org.apache.kafka.common.errors.ApiException the append's error (NOT_LEADER_OR_FOLLOWER, ...);
     *         nothing was appended
     */
    long appendAsLeaderNow(TopicPartition partition, MemoryRecords records);

    /**
     * Sets (or with null clears) the listener of a hosted partition's HW advances, called with the partition and
     * its new HW on the thread that advanced it (it must not block).
     *
     * @return false when the partition is not hosted here
     */
    boolean highWatermarkListener(TopicPartition partition, ObjLongConsumer<TopicPartition> listener);

    /** The config overrides of a hosted partition's topic; empty when the partition is not hosted here. */
    Optional<Map<String, String>> topicConfig(TopicPartition partition);

    /** The local log of a partition this broker leads, for loading coordinator state; empty otherwise. */
    Optional<PartitionLog> leaderLog(TopicPartition partition);

    /**
     * Creates an internal topic through the controller when it does not exist yet; completes when the metadata
     * naming its partitions has been applied here.
     */
    CompletableFuture<Void> ensureTopic(String topic, int partitions, short replicationFactor,
        Map<String, String> config);

    /** Registers for leadership changes of an internal topic's partitions hosted on this broker. */
    void addLeadershipListener(String topic, LeadershipListener listener);

    /** Leadership of a partition hosted here changed; called on the metadata thread, must not block. */
    interface LeadershipListener
    {
        void onBecomeLeader(TopicPartition partition, int leaderEpoch);

        void onResign(TopicPartition partition);
    }
}

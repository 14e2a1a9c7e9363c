package io.syncmirror.broker.coordinator;

import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

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

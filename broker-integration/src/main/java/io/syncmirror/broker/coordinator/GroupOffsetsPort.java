package io.syncmirror.broker.coordinator;

import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;

/**
 * What the transaction side of the coordinators needs from the group coordinator, which owns
 * {@code __consumer_offsets}: where a group's offsets live (FindCoordinator, AddOffsetsToTxn), the topic's creation,
 * and the end of a transaction in one of its partitions (WriteTxnMarkers), which the group coordinator writes itself
 * so that it settles the producer's pending transactional offset commits there. Thread-safe.
 */
public interface GroupOffsetsPort
{
    /** The {@code __consumer_offsets} partition that owns a group. */
    TopicPartition partitionFor(String groupId);

    /** Creates {@code __consumer_offsets} once; later calls return the same future while it has not failed. */
    CompletableFuture<Void> ensureTopic();

    /**
     * Writes a COMMIT or ABORT marker to an offsets partition this broker leads, through the group coordinator;
     * completes once it is replicated, or exceptionally with the error to answer for the partition.
     */
    CompletableFuture<Void> completeTransaction(TopicPartition partition, long producerId, short producerEpoch,
        int coordinatorEpoch, boolean committed);
}

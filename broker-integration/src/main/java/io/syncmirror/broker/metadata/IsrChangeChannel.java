package io.syncmirror.broker.metadata;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

/**
 * How a partition leader asks the controller to change its ISR (Kafka's AlterPartition, API 56).
 *
 * <p>The future completes with the state the controller committed (which then also arrives through the
 * metadata log), or exceptionally with the ApiException the controller answered (FENCED_LEADER_EPOCH,
 * INVALID_UPDATE_VERSION, ...).
 */
public interface IsrChangeChannel
{
    CompletableFuture<PartitionState> alterIsr(TopicPartition partition, Uuid topicId, int leaderEpoch,
        int partitionEpoch, List<Integer> newIsr);
}

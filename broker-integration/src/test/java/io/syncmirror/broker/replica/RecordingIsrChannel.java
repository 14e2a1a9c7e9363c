package io.syncmirror.broker.replica;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;

import io.syncmirror.broker.metadata.IsrChangeChannel;
import io.syncmirror.broker.metadata.PartitionState;

/** Records the ISR changes a leader asks for; answers none until the test completes them. */
final class RecordingIsrChannel implements IsrChangeChannel
{
    final List<List<Integer>> asked = new ArrayList<>();
    final List<CompletableFuture<PartitionState>> answers = new ArrayList<>();

    @Override
    public synchronized CompletableFuture<PartitionState> alterIsr(final TopicPartition partition,
        final Uuid topicId, final int leaderEpoch, final int partitionEpoch, final List<Integer> newIsr)
    {
        asked.add(newIsr);
        final CompletableFuture<PartitionState> answer = new CompletableFuture<>();
        answers.add(answer);
        return answer;
    }

    /** Broker 1's replicas in {@code logs}, asking this channel for their ISR changes. */
    ReplicaManager replicas(final io.syncmirror.broker.storage.MemoryLogStore logs,
        final java.util.function.LongSupplier clockMs)
    {
        return new ReplicaManager(new ReplicaConfig(1, 1, 10_000, ReplicaConfig.MAX_REPLICAS, 64, 16, 64), logs, this,
            (topic, partitions, rf, config) -> CompletableFuture.completedFuture(null), clockMs);
    }

    synchronized int count()
    {
        return asked.size();
    }
}

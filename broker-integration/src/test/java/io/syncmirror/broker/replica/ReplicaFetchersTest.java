package io.syncmirror.broker.replica;

import java.util.Map;
import java.util.Optional;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.storage.MemoryLogStore;
import io.syncmirror.fetch.FetcherConfig;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;

class ReplicaFetchersTest
{
    @Test
    @Timeout(30)
    void shouldNotRetryAPartitionErrorOnceClosed()
    {
        // A closing broker closes its fetch clients, and the fetchers' requests then fail partition by partition:
        // those errors must not try to schedule retries on the executor the close just shut down.
        try (MemoryLogStore logs = new MemoryLogStore(Map.of(), Time.SYSTEM))
        {
            final ReplicaManager replicas = SingleBrokerReplicas.create(logs);
            try
            {
                final ReplicaFetchers fetchers = new ReplicaFetchers(replicas, null, id -> Optional.empty(),
                    FetcherConfig.defaults(SingleBrokerReplicas.BROKER));
                fetchers.close();
                assertDoesNotThrow(() -> fetchers.onPartitionError(new TopicPartition("t", 0),
                    Errors.NOT_LEADER_OR_FOLLOWER));
            }
            finally
            {
                replicas.close();
            }
        }
    }
}

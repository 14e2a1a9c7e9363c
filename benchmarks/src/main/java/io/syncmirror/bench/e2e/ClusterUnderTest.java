package io.syncmirror.bench.e2e;

import java.io.IOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;

/**
 * A running cluster that the latency harness produces to: real Kafka or the reference broker, started fresh for
 * one round and closed after it. Implementations are safe to call from one thread at a time.
 *
 * <p>Topics are created over the wire with Kafka's own Admin client, so both systems are set up through the same
 * path a user would take, and a round starts only once every partition has a leader and its full ISR: otherwise
 * the first seconds of a 3-broker round would measure followers joining, not steady-state replication.
 */
public interface ClusterUnderTest extends AutoCloseable
{
    /** How long {@link #createTopic} waits for the topic's partitions to get a leader and their full ISR. */
    long TOPIC_READY_TIMEOUT_MS = 60_000L;

    /**
     * Stops every broker and every thread the cluster started and deletes its storage. Waits for the brokers to
     * stop; an interrupt while waiting is kept as the thread's interrupt status, not thrown.
     */
    @Override
    void close() throws IOException;

    /** The system's name as the harness prints it: {@code kafka} or {@code ours}. */
    String name();

    /** The {@code bootstrap.servers} a client connects with: {@code 127.0.0.1:port} pairs, comma-separated. */
    String bootstrapServers();

    /** Kafka client settings a client needs besides the bootstrap servers (TLS); empty for plaintext. */
    default Map<String, Object> clientConfigs()
    {
        return Map.of();
    }

    /**
     * Creates {@code topic} and returns once every partition has a leader and {@code replicationFactor} replicas
     * in its ISR.
     *
     * @param configs topic configs, e.g. {@code min.insync.replicas}
     */
    default void createTopic(final String topic, final int partitions, final short replicationFactor,
        final Map<String, String> configs) throws InterruptedException, ExecutionException, TimeoutException
    {
        final Map<String, Object> adminConfig = new HashMap<>(clientConfigs());
        adminConfig.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        adminConfig.put(AdminClientConfig.CLIENT_ID_CONFIG, "bench-admin-" + name());
        try (Admin admin = Admin.create(adminConfig))
        {
            admin.createTopics(List.of(new NewTopic(topic, partitions, replicationFactor).configs(configs)))
                .all().get(TOPIC_READY_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            final long deadlineNs = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(TOPIC_READY_TIMEOUT_MS);
            while (!isFullyReplicated(admin, topic, partitions, replicationFactor))
            {
                if (System.nanoTime() - deadlineNs > 0)
                {
                    throw new TimeoutException("topic " + topic + " has no leader or a short ISR after " +
                        TOPIC_READY_TIMEOUT_MS + " ms");
                }
                Thread.sleep(50L);
            }
        }
    }

    /** Whether every one of {@code partitions} partitions of {@code topic} has a leader and a full ISR. */
    private static boolean isFullyReplicated(final Admin admin, final String topic, final int partitions,
        final short replicationFactor) throws InterruptedException
    {
        final TopicDescription description;
        try
        {
            description = admin.describeTopics(List.of(topic)).allTopicNames()
                .get(TOPIC_READY_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(topic);
        }
        catch (final ExecutionException | TimeoutException ex)
        {
            // Metadata may lag the creation on some brokers: not ready yet, ask again.
            return false;
        }
        if (description == null || description.partitions().size() != partitions)
        {
            return false;
        }
        for (final TopicPartitionInfo partition : description.partitions())
        {
            if (partition.leader() == null || partition.leader().isEmpty() ||
                partition.isr().size() < replicationFactor)
            {
                return false;
            }
        }
        return true;
    }
}

package io.syncmirror.broker.server;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * What replicating the controller costs a controller operation: 1,000 topics created through CreateTopics (100 per
 * request, one partition each, RF 3) on three nodes with durable logs, with a single controller (a quorum of one
 * voter) and with a quorum of three voters, in one run, alternating, each layout three times. The medians and their
 * ratio are printed; three voters must stay within 1.2x of one voter's median (plus 1 s, the noise of a shared
 * 2-core machine around a figure of a few seconds): a commit waits for a majority's fetch instead of a local
 * append.
 *
 * <p>{@code -Dsyncmirror.cost.partitions=100} makes each topic that many partitions (100 topics of 100 partitions
 * is what one large mirror --add makes the controller emit), {@code -Dsyncmirror.cost.topics} the topic count and
 * {@code -Dsyncmirror.cost.storage=memory} heap logs for the partitions (the Raft log is on disk either way).
 */
@Timeout(600)
class ControllerQuorumCostTest
{
    private static final int TOPICS = Integer.getInteger("syncmirror.cost.topics", 1_000);
    private static final int PARTITIONS = Integer.getInteger("syncmirror.cost.partitions", 1);
    private static final boolean MEMORY = "memory".equals(System.getProperty("syncmirror.cost.storage"));
    private static final int PER_REQUEST = 100;
    private static final int ROUNDS = Integer.getInteger("syncmirror.cost.rounds", 3);

    @Test
    @DisplayName("1,000 CreateTopics on a quorum of three voters take at most 1.2x a single voter's time")
    void shouldCreateTopicsAboutAsFastAsTheSingleController() throws Exception
    {
        final List<Long> single = new ArrayList<>();
        final List<Long> quorum = new ArrayList<>();
        for (int round = 0; round < ROUNDS; round++)
        {
            try (EmbeddedCluster cluster = EmbeddedCluster.start(3, storage()))
            {
                single.add(createTopics(cluster));
            }
            try (EmbeddedCluster cluster = EmbeddedCluster.startWithQuorum(3, 3, storage()))
            {
                quorum.add(createTopics(cluster));
            }
        }
        final long singleMs = median(single);
        final long quorumMs = median(quorum);
        System.out.printf("%d topics of %d partitions, %d per CreateTopics, %s logs: single voter %s ms "
            + "(median %d), quorum of 3 %s ms (median %d), ratio %.2f%n", TOPICS, PARTITIONS, PER_REQUEST,
            MEMORY ? "memory" : "durable", single, singleMs, quorum, quorumMs, (double)quorumMs / singleMs);
        assertTrue(quorumMs <= 1.2 * singleMs + 1_000, () -> "three voters took " + quorumMs + " ms, a single "
            + "voter " + singleMs + " ms");
    }

    /** The logs' storage: durable unless {@code syncmirror.cost.storage=memory}. */
    private static Map<String, String> storage()
    {
        return MEMORY ? Map.of(BrokerConfig.LOG_STORAGE_CONFIG, BrokerConfig.LOG_STORAGE_MEMORY) : Map.of();
    }

    /** Creates the topics, {@value #PER_REQUEST} per request; the time until the last answer. */
    private static long createTopics(final EmbeddedCluster cluster) throws Exception
    {
        try (Admin admin = admin(cluster.bootstrapServers()))
        {
            final long startNs = System.nanoTime();
            for (int from = 0; from < TOPICS; from += PER_REQUEST)
            {
                final List<NewTopic> batch = new ArrayList<>();
                for (int t = from; t < Math.min(TOPICS, from + PER_REQUEST); t++)
                {
                    batch.add(new NewTopic(String.format("topic-%04d", t), PARTITIONS, (short)3));
                }
                admin.createTopics(batch).all().get(300, TimeUnit.SECONDS);
            }
            final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNs);
            assertEquals(TOPICS, admin.listTopics().names().get(30, TimeUnit.SECONDS).stream()
                .filter(name -> name.startsWith("topic-")).count());
            return ms;
        }
    }

    private static Admin admin(final String bootstrap)
    {
        final Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 300_000);
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 300_000);
        return Admin.create(props);
    }

    private static long median(final List<Long> values)
    {
        final List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        return sorted.get(sorted.size() / 2);
    }
}

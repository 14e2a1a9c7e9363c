package io.syncmirror.tests;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.protocol.MirrorPartitionState;
import io.syncmirror.protocol.MirrorTopicResult;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Two clusters mirroring each other's topics: a1 from A to B, b1 from B to A. */
@Timeout(120)
class MirrorBidirectionalTest
{
    @AutoClose
    private static MirrorClusters clusters;

    @BeforeAll
    static void startClusters()
    {
        clusters = MirrorClusters.start(1, 1, Map.of());
    }

    @Test
    @DisplayName("AM-14 a1 on A mirrored to B and b1 on B mirrored to A both flow, each cluster holds one copy of "
        + "each, the copies are read-only, and mirroring a mirror topic back to its source fails cleanly")
    void shouldMirrorBothWaysWithoutLoops() throws Exception
    {
        // Each cluster is the source of one mirror and the destination of the other.
        final EmbeddedCluster clusterA = clusters.source();
        final EmbeddedCluster clusterB = clusters.destination();
        final TopicPartition a1 = new TopicPartition("a1", 0);
        final TopicPartition b1 = new TopicPartition("b1", 0);
        try (Admin adminA = Clients.admin(clusterA.bootstrapServers());
             Admin adminB = Clients.admin(clusterB.bootstrapServers()))
        {
            Clients.createTopic(adminA, "a1", 1, (short)1, Map.of());
            Clients.createTopic(adminB, "b1", 1, (short)1, Map.of());
        }
        Mirrors.create(clusterB, "from-a", clusterA);
        Mirrors.create(clusterA, "from-b", clusterB);
        Mirrors.addOk(clusterB, "from-a", "a1");
        Mirrors.addOk(clusterA, "from-b", "b1");
        produce(clusterA, "a1", "a", 50);
        produce(clusterB, "b1", "b", 50);
        Mirrors.awaitState(clusterB, "from-a", "a1", 1, MirrorPartitionState.MIRRORING, "a1 MIRRORING on B");
        Mirrors.awaitState(clusterA, "from-b", "b1", 1, MirrorPartitionState.MIRRORING, "b1 MIRRORING on A");
        Mirrors.awaitCaughtUp(clusterA, clusterB, a1, 30_000);
        Mirrors.awaitCaughtUp(clusterB, clusterA, b1, 30_000);
        assertEquals(Mirrors.records(clusterA, a1), Mirrors.records(clusterB, a1));
        assertEquals(Mirrors.records(clusterB, b1), Mirrors.records(clusterA, b1));

        // Mirroring a mirror topic back to its source: each cluster already has the topic, as its original.
        assertRefused(Mirrors.add(clusterA, 1, "from-b", "a1"), "a1 back from B to A");
        assertRefused(Mirrors.add(clusterB, 1, "from-a", "b1"), "b1 back from A to B");

        // The copies are read-only; the originals stay writable and keep flowing.
        assertReadOnly(clusterA, "b1");
        assertReadOnly(clusterB, "a1");
        produce(clusterA, "a1", "a-more", 20);
        produce(clusterB, "b1", "b-more", 20);
        Mirrors.awaitCaughtUp(clusterA, clusterB, a1, 30_000);
        Mirrors.awaitCaughtUp(clusterB, clusterA, b1, 30_000);
        assertEquals(70, Mirrors.records(clusterA, a1).size());
        assertEquals(Mirrors.records(clusterA, a1), Mirrors.records(clusterB, a1));
        assertEquals(70, Mirrors.records(clusterB, b1).size());
        assertEquals(Mirrors.records(clusterB, b1), Mirrors.records(clusterA, b1));

        // No loop: each cluster has exactly one copy of each topic, and only the copy belongs to a mirror.
        try (Admin adminA = Clients.admin(clusterA.bootstrapServers());
             Admin adminB = Clients.admin(clusterB.bootstrapServers()))
        {
            assertEquals(Set.of("a1", "b1"), userTopics(adminA));
            assertEquals(Set.of("a1", "b1"), userTopics(adminB));
            assertNull(mirrorName(adminA, "a1"), "a1 on A is no mirror topic");
            assertEquals("from-b", mirrorName(adminA, "b1"));
            assertEquals("from-a", mirrorName(adminB, "a1"));
            assertNull(mirrorName(adminB, "b1"), "b1 on B is no mirror topic");
        }
        assertTrue(Mirrors.partitions(clusterA, "from-b", "a1").isEmpty(), "a1 is in no mirror on A");
        assertTrue(Mirrors.partitions(clusterB, "from-a", "b1").isEmpty(), "b1 is in no mirror on B");
    }

    private static void assertRefused(final List<MirrorTopicResult> results, final String what)
    {
        assertEquals(1, results.size(), what);
        final MirrorTopicResult result = results.get(0);
        assertNotEquals(Errors.NONE.code(), result.errorCode(), what + " must be refused");
        assertNotEquals(Errors.UNKNOWN_SERVER_ERROR.code(), result.errorCode(), what + ": a clear error, not a crash: "
            + result.errorMessage());
        assertFalse(result.errorMessage() == null || result.errorMessage().isBlank(), what + " says why");
    }

    private static void assertReadOnly(final EmbeddedCluster cluster, final String topic)
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(),
            Map.<String, Object>of("retries", "0", "enable.idempotence", "false")))
        {
            final ExecutionException refused = assertThrows(ExecutionException.class, () -> producer.send(
                new ProducerRecord<>(topic, 0, null, "x".getBytes(StandardCharsets.UTF_8))).get());
            assertInstanceOf(PolicyViolationException.class, refused.getCause());
        }
    }

    private static Set<String> userTopics(final Admin admin) throws Exception
    {
        return new TreeSet<>(admin.listTopics(new ListTopicsOptions().listInternal(false)).names().get().stream()
            .filter(name -> !name.startsWith("__")).toList());
    }

    private static String mirrorName(final Admin admin, final String topic) throws Exception
    {
        final var entry = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, topic))).all()
            .get().values().iterator().next().get("mirror.name");
        return entry == null || entry.value() == null || entry.value().isEmpty() ? null : entry.value();
    }

    private static void produce(final EmbeddedCluster cluster, final String topic, final String prefix,
        final int count) throws Exception
    {
        try (KafkaProducer<byte[], byte[]> producer = Clients.producer(cluster.bootstrapServers(), Map.of()))
        {
            for (int i = 0; i < count; i++)
            {
                producer.send(new ProducerRecord<>(topic, 0, (prefix + i).getBytes(StandardCharsets.UTF_8),
                    (prefix + "-value-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }
}

package io.syncmirror.bench.e2e;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class KafkaReferenceClusterTest
{
    @Test
    @Timeout(180)
    void shouldAcknowledgeAnIdempotentAcksAllSendAndDeleteItsStorageOnClose() throws Exception
    {
        final Path rootDir;
        try (KafkaReferenceCluster cluster = KafkaReferenceCluster.start(1))
        {
            rootDir = cluster.rootDir();
            assertEquals(1, cluster.nodeCount());
            assertTrue(cluster.bootstrapServers().startsWith("127.0.0.1:"), cluster.bootstrapServers());
            assertTrue(Files.exists(rootDir.resolve("node-0").resolve("meta.properties")));

            cluster.createTopic("t", 2, (short)1, Map.of("min.insync.replicas", "1"));
            try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(PacedProducer.producerConfig(cluster.bootstrapServers(), "test")))
            {
                final RecordMetadata metadata = producer.send(new ProducerRecord<>("t", 1, null, new byte[]{ 1 }))
                    .get(60, TimeUnit.SECONDS);
                assertEquals(1, metadata.partition());
                assertEquals(0L, metadata.offset());
            }
        }
        assertFalse(Files.exists(rootDir), rootDir.toString());
    }

    @Test
    void shouldRefuseClustersItCannotStart()
    {
        assertThrows(IllegalArgumentException.class, () -> KafkaReferenceCluster.start(0));
        assertThrows(IllegalArgumentException.class, () -> KafkaReferenceCluster.start(KafkaReferenceCluster.MAX_NODES + 1));
    }

    @Test
    void shouldMakeEveryNodeAVoterOnLoopbackWithInternalTopicsReplicatedAsFarAsTheNodesAllow()
    {
        final Properties props = KafkaReferenceCluster.brokerProperties(1, 3, 9092, 9093,
            "0@127.0.0.1:9001,1@127.0.0.1:9093,2@127.0.0.1:9003", Path.of("/tmp/x"),
            Map.of("num.io.threads", "2", "node.id", "7"));
        assertEquals("broker,controller", props.getProperty("process.roles"));
        assertEquals("1", props.getProperty("node.id"));
        assertEquals("PLAINTEXT://127.0.0.1:9092,CONTROLLER://127.0.0.1:9093", props.getProperty("listeners"));
        assertEquals("PLAINTEXT://127.0.0.1:9092", props.getProperty("advertised.listeners"));
        assertEquals("3", props.getProperty("offsets.topic.replication.factor"));
        assertEquals("2", props.getProperty("transaction.state.log.min.isr"));
        assertEquals("false", props.getProperty("auto.create.topics.enable"));
        assertEquals("2", props.getProperty("num.io.threads"));

        final Properties single = KafkaReferenceCluster.brokerProperties(0, 1, 9092, 9093, "0@127.0.0.1:9093",
            Path.of("/tmp/x"), Map.of());
        assertEquals("1", single.getProperty("offsets.topic.replication.factor"));
        assertEquals("1", single.getProperty("transaction.state.log.min.isr"));
    }
}

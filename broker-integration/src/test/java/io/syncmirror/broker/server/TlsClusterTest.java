package io.syncmirror.broker.server;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.network.TestCertificates;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A 3-node cluster with no plaintext listener at all: clients, replication between brokers and the controller
 * quorum's Raft all run over TLS (the cluster's listeners are named PLAINTEXT and CONTROLLER, and the protocol
 * map makes both SSL), with real Kafka 4.4 clients.
 */
@Timeout(180)
class TlsClusterTest
{
    private static final String TOPIC = "tls-orders";
    private static final int RECORDS = 2_000;
    private static final int RECORD_BYTES = 1_000;

    @TempDir
    Path dir;

    private EmbeddedCluster cluster;

    @AfterEach
    void close()
    {
        if (cluster != null)
        {
            cluster.close();
        }
    }

    @Test
    @DisplayName("clients, replication and the controller quorum over TLS with client authentication: "
        + "acks=all records replicated to every replica, read back byte for byte from the segment files")
    void shouldServeAndReplicateOverTlsOnly() throws Exception
    {
        final TestCertificates ca = new TestCertificates(dir, "cluster-ca");
        final Map<String, String> overrides = new HashMap<>(ca.sslConfigs(ca.keystore("broker")));
        overrides.put("listener.security.protocol.map", "PLAINTEXT:SSL,CONTROLLER:SSL");
        overrides.put("ssl.client.auth", "required");
        cluster = EmbeddedCluster.startWithQuorum(3, 3, overrides);

        final Map<String, String> client = new HashMap<>(ca.sslConfigs(ca.keystore("client-app")));
        client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (Admin admin = Admin.create(properties(client)))
        {
            assertEquals(3, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
            admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short)3).configs(Map.of("min.insync.replicas", "2"))))
                .all().get(30, TimeUnit.SECONDS);

            final List<byte[]> sent = produce(client);
            final Map<Integer, List<byte[]>> read = consume(client);
            int index = 0;
            for (final byte[] value : sent)
            {
                final int partition = index++ % 2;
                final byte[] got = read.get(partition).remove(0);
                assertArrayEquals(value, got, "record " + (index - 1));
            }
            // Every follower fetched over TLS: the full ISR again once the load is in.
            final TopicDescription description = admin.describeTopics(List.of(TOPIC)).allTopicNames()
                .get(30, TimeUnit.SECONDS).get(TOPIC);
            description.partitions().forEach(p -> assertEquals(3, p.isr().size(), "ISR of " + p));
        }
    }

    @Test
    @DisplayName("a PLAINTEXT listener inside beside an SSL one outside: each client is told the addresses of the "
        + "listener it came in on (Metadata, DescribeCluster, FindCoordinator), brokers replicate on the first")
    void shouldAnswerEachClientWithTheAddressesOfItsOwnListener() throws Exception
    {
        final TestCertificates ca = new TestCertificates(dir, "outside-ca");
        final Map<String, String> overrides = new HashMap<>(ca.sslConfigs(ca.keystore("broker")));
        overrides.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,EXTERNAL:SSL,CONTROLLER:PLAINTEXT");
        cluster = EmbeddedCluster.startWithListener(3, "EXTERNAL", overrides);
        final String inside = cluster.bootstrapServers();
        final String outside = cluster.bootstrapServers("EXTERNAL");

        final Map<String, String> client = new HashMap<>(ca.sslConfigs(null));
        client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, outside);
        try (Admin external = Admin.create(properties(client));
            Admin internal = Admin.create(properties(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, inside))))
        {
            assertEquals(ports(outside), external.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream()
                .map(node -> node.port()).collect(java.util.stream.Collectors.toSet()), "DescribeCluster outside");
            assertEquals(ports(inside), internal.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream()
                .map(node -> node.port()).collect(java.util.stream.Collectors.toSet()), "DescribeCluster inside");
            external.createTopics(List.of(new NewTopic(TOPIC, 2, (short)3)
                .configs(Map.of("min.insync.replicas", "2")))).all().get(30, TimeUnit.SECONDS);
            final List<byte[]> sent = produce(client);
            // A consumer group over TLS: its coordinator must be found at an outside address too.
            final Properties group = properties(client);
            group.put(ConsumerConfig.GROUP_ID_CONFIG, "outside-readers");
            group.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            int read = 0;
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(group, new ByteArrayDeserializer(),
                new ByteArrayDeserializer()))
            {
                consumer.subscribe(List.of(TOPIC));
                final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (read < sent.size() && System.nanoTime() < deadline)
                {
                    read += consumer.poll(Duration.ofMillis(200)).count();
                }
                consumer.commitSync();
            }
            assertEquals(sent.size(), read, "read through the group");
            assertEquals(RECORDS, internal.listConsumerGroupOffsets("outside-readers").partitionsToOffsetAndMetadata()
                .get(30, TimeUnit.SECONDS).values().stream().mapToLong(o -> o.offset()).sum(), "committed offsets");
            internal.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC).partitions()
                .forEach(p -> assertEquals(3, p.isr().size(), "ISR of " + p));
        }
    }

    private static java.util.Set<Integer> ports(final String bootstrap)
    {
        final java.util.Set<Integer> ports = new java.util.HashSet<>();
        for (final String server : bootstrap.split(","))
        {
            ports.add(Integer.parseInt(server.substring(server.lastIndexOf(':') + 1)));
        }
        return ports;
    }

    private List<byte[]> produce(final Map<String, String> client) throws Exception
    {
        final Properties props = properties(client);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        final List<byte[]> sent = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props, new ByteArraySerializer(),
            new ByteArraySerializer()))
        {
            final List<Future<RecordMetadata>> acks = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++)
            {
                final byte[] value = new byte[RECORD_BYTES];
                Arrays.fill(value, (byte)i);
                value[0] = (byte)(i >> 8);
                sent.add(value);
                acks.add(producer.send(new ProducerRecord<>(TOPIC, i % 2, null, value)));
            }
            for (final Future<RecordMetadata> ack : acks)
            {
                ack.get(60, TimeUnit.SECONDS);
            }
        }
        return sent;
    }

    private Map<Integer, List<byte[]>> consume(final Map<String, String> client)
    {
        final Properties props = properties(client);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        final Map<Integer, List<byte[]>> read = new HashMap<>(Map.of(0, new ArrayList<>(), 1, new ArrayList<>()));
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(),
            new ByteArrayDeserializer()))
        {
            consumer.assign(List.of(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1)));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            int count = 0;
            while (count < RECORDS && System.nanoTime() < deadline)
            {
                for (final ConsumerRecord<byte[], byte[]> record : consumer.poll(Duration.ofMillis(200)))
                {
                    read.get(record.partition()).add(record.value());
                    count++;
                }
            }
            assertEquals(RECORDS, count, "records read back over TLS");
        }
        assertTrue(read.get(0).size() == RECORDS / 2, "partition 0 holds half");
        return read;
    }

    private static Properties properties(final Map<String, String> values)
    {
        final Properties props = new Properties();
        props.putAll(values);
        return props;
    }
}

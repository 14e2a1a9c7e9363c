package io.syncmirror.broker.server;

import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import javax.management.MBeanServer;
import javax.management.ObjectName;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.network.TestCertificates;
import io.syncmirror.broker.network.TestScramCredentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real Kafka 4.4 clients over SASL_SSL, with SCRAM-SHA-512 and with PLAIN, on a 3-broker cluster whose brokers
 * talk to each other on their PLAINTEXT listener: produce with acks=all, consume, admin, and Kafka's error for a
 * wrong password.
 */
@Timeout(180)
class SaslClusterTest
{
    private static final String TOPIC = "sasl-orders";

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
    @DisplayName("SASL_SSL with SCRAM-SHA-512 and with PLAIN: real clients produce, consume and administer; a wrong "
        + "password is SaslAuthenticationException and the brokers go on serving")
    void shouldServeRealClientsOverSaslSsl() throws Exception
    {
        final TestCertificates ca = new TestCertificates(dir, "sasl-ca");
        final Path credentials = credentials(Map.of("bob", "bob-secret"));
        final Map<String, String> overrides = new HashMap<>(ca.sslConfigs(ca.keystore("broker")));
        overrides.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,EXTERNAL:SASL_SSL,CONTROLLER:PLAINTEXT");
        overrides.put("listener.name.external.sasl.enabled.mechanisms", "SCRAM-SHA-512,PLAIN");
        overrides.put("listener.name.external.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";");
        overrides.put(SecurityConfig.SCRAM_CREDENTIALS_FILE_CONFIG, credentials.toString());
        cluster = EmbeddedCluster.startWithListener(3, "EXTERNAL", overrides);

        final Map<String, String> bob = client(ca, "SCRAM-SHA-512",
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"bob\" "
                + "password=\"bob-secret\";");
        final Map<String, String> alice = client(ca, "PLAIN",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"alice\" "
                + "password=\"alice-secret\";");
        try (Admin admin = Admin.create(properties(bob)))
        {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short)3).configs(Map.of("min.insync.replicas", "2"))))
                .all().get(30, TimeUnit.SECONDS);
            assertEquals(3, admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).size());
        }
        produce(bob, "from-bob");
        produce(alice, "from-alice");
        assertEquals(List.of("from-bob", "from-alice"), consume(alice, 2));
        assertEquals(List.of("from-bob", "from-alice"), consume(bob, 2));

        final Map<String, String> wrong = client(ca, "SCRAM-SHA-512",
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"bob\" password=\"guess\";");
        try (Admin admin = Admin.create(properties(wrong)))
        {
            final ExecutionException e = assertThrows(ExecutionException.class,
                () -> admin.describeCluster().nodes().get(30, TimeUnit.SECONDS));
            assertInstanceOf(SaslAuthenticationException.class, e.getCause(), String.valueOf(e.getCause()));
        }
        produce(alice, "after-the-wrong-password");
    }

    @Test
    @DisplayName("3 nodes, all voters, whose inter-broker (SCRAM-SHA-512) and controller (PLAIN) links are SASL_SSL: "
        + "the quorum forms, followers replicate, and a SCRAM client's acks=all records are read back; no login fails")
    void shouldRunInterBrokerAndControllerLinksOverSaslSsl() throws Exception
    {
        final TestCertificates ca = new TestCertificates(dir, "links-ca");
        final Map<String, String> overrides = new HashMap<>(ca.sslConfigs(ca.keystore("broker")));
        overrides.put("listener.security.protocol.map", "PLAINTEXT:SASL_SSL,CONTROLLER:SASL_SSL");
        overrides.put("sasl.enabled.mechanisms", "SCRAM-SHA-512,PLAIN");
        overrides.put("sasl.mechanism.inter.broker.protocol", "SCRAM-SHA-512");
        overrides.put("sasl.mechanism.controller.protocol", "PLAIN");
        overrides.put("listener.name.plaintext.scram-sha-512.sasl.jaas.config",
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"broker\" "
                + "password=\"broker-secret\";");
        overrides.put("listener.name.plaintext.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required user_alice=\"alice-secret\";");
        overrides.put("listener.name.controller.plain.sasl.jaas.config",
            "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" "
                + "password=\"broker-secret\" user_broker=\"broker-secret\";");
        overrides.put(SecurityConfig.SCRAM_CREDENTIALS_FILE_CONFIG, credentials(Map.of("broker", "broker-secret",
            "bob", "bob-secret")).toString());
        cluster = EmbeddedCluster.startWithQuorum(3, 3, overrides);

        final Map<String, String> bob = client(ca, "SCRAM-SHA-512",
            "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"bob\" "
                + "password=\"bob-secret\";",
            cluster.bootstrapServers());
        try (Admin admin = Admin.create(properties(bob)))
        {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short)3).configs(Map.of("min.insync.replicas", "2"))))
                .all().get(30, TimeUnit.SECONDS);
            for (int i = 0; i < 20; i++)
            {
                produce(bob, "r" + i);
            }
            assertEquals(20, consume(bob, 20).size());
            admin.describeTopics(List.of(TOPIC)).allTopicNames().get(30, TimeUnit.SECONDS).get(TOPIC).partitions()
                .forEach(p -> assertEquals(3, p.isr().size(), "ISR of " + p));
        }
        final MBeanServer jmx = ManagementFactory.getPlatformMBeanServer();
        for (int node = 1; node <= 3; node++)
        {
            assertEquals(0, cluster.broker(node).failedAuthentications(), "failed logins on node " + node);
            for (final String listener : List.of("PLAINTEXT", "CONTROLLER"))
            {
                // Kafka's socket-server-metrics, as an operator's JMX tool reads them.
                final ObjectName name = new ObjectName("kafka.server:type=socket-server-metrics,listener=" + listener
                    + ",broker=" + node);
                assertEquals(0.0, (Double)jmx.getAttribute(name, "failed-authentication-total"), name.toString());
                assertTrue((Double)jmx.getAttribute(name, "successful-authentication-total") > 0, name.toString());
            }
        }
    }

    /** A credentials file with a SCRAM-SHA-512 credential for each user and password. */
    private Path credentials(final Map<String, String> passwords) throws Exception
    {
        return TestScramCredentials.write(dir.resolve("scram-" + passwords.size() + ".properties"), passwords);
    }

    private Map<String, String> client(final TestCertificates ca, final String mechanism, final String jaas)
        throws Exception
    {
        return client(ca, mechanism, jaas, cluster.bootstrapServers("EXTERNAL"));
    }

    private Map<String, String> client(final TestCertificates ca, final String mechanism, final String jaas,
        final String bootstrap)
        throws Exception
    {
        final Map<String, String> client = new HashMap<>(ca.sslConfigs(null));
        client.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SASL_SSL");
        client.put("sasl.mechanism", mechanism);
        client.put("sasl.jaas.config", jaas);
        client.put(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return client;
    }

    private static void produce(final Map<String, String> client, final String value) throws Exception
    {
        final Properties props = properties(client);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props, new StringSerializer(),
            new StringSerializer()))
        {
            producer.send(new ProducerRecord<>(TOPIC, 0, null, value)).get(60, TimeUnit.SECONDS);
        }
    }

    private static List<String> consume(final Map<String, String> client, final int count)
    {
        final List<String> values = new java.util.ArrayList<>();
        final Properties props = properties(client);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props, new StringDeserializer(),
            new StringDeserializer()))
        {
            final TopicPartition partition = new TopicPartition(TOPIC, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < count && System.nanoTime() < deadline)
            {
                consumer.poll(Duration.ofMillis(200)).forEach(record -> values.add(record.value()));
            }
        }
        return values.subList(0, Math.min(count, values.size()));
    }

    private static Properties properties(final Map<String, String> values)
    {
        final Properties props = new Properties();
        props.putAll(values);
        return props;
    }
}

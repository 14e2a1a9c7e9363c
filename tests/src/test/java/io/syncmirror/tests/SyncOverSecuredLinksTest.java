package io.syncmirror.tests;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import io.syncmirror.broker.cluster.EmbeddedCluster;
import io.syncmirror.broker.network.TestCertificates;
import io.syncmirror.tools.ClusterMirrorsCommand;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A SYNC mirror where nothing speaks plaintext: both clusters listen on TLS only (client certificates required,
 * the controllers' listener too), or on SASL_SSL only (the brokers, the controllers, the mirror link and the CLI
 * each logging in), the mirror's source link and the CLI are configured with Kafka's client settings, and the
 * zero-RPO check runs at the end. A plaintext or unauthenticated connection anywhere would fail a TLS handshake or
 * a SASL login on some broker, so every broker's count of failed authentications must stay 0.
 */
@Timeout(240)
class SyncOverSecuredLinksTest
{
    private static final String MIRROR = "dr-tls";
    private static final String TOPIC = "tls-orders";
    private static final int PARTITIONS = 2;
    private static final int RECORDS = 600;

    @TempDir
    Path dir;

    @Test
    @DisplayName("SI-01 SI-02 SI-16 over TLS only: the CLI with --command-config creates the mirror and adds a topic "
        + "--sync (probing the source with --source-command-config), it promotes to SYNC over a TLS source link, "
        + "every acks=all record is on the destination after the source is killed and the topic fails over, and "
        + "no broker saw a plaintext connection")
    void shouldMirrorInSyncOverTlsAndLoseNothingOnFailover() throws Exception
    {
        final TestCertificates ca = new TestCertificates(dir, "dr-ca");
        final Map<String, String> brokerTls = new HashMap<>(ca.sslConfigs(ca.keystore("broker")));
        // The clusters' listeners are named PLAINTEXT and CONTROLLER; the map makes both SSL.
        brokerTls.put("listener.security.protocol.map", "PLAINTEXT:SSL,CONTROLLER:SSL");
        brokerTls.put("ssl.client.auth", "required");
        final Map<String, String> clientTls = new HashMap<>(ca.sslConfigs(ca.keystore("operator")));
        clientTls.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        final Map<String, String> linkTls = new HashMap<>(ca.sslConfigs(ca.keystore("mirror-link")));
        linkTls.put(CommonClientConfigs.SECURITY_PROTOCOL_CONFIG, "SSL");
        mirrorInSyncAndFailOver(brokerTls, clientTls, linkTls);
    }

    @Test
    @DisplayName("SI-01 SI-02 over SASL_SSL only: brokers (SCRAM-SHA-512), controllers (PLAIN), the mirror link "
        + "(SCRAM-SHA-512) and the CLI (SCRAM-SHA-512) each log in; the topic promotes to SYNC, every acks=all record "
        + "is on the destination after the source is killed and the topic fails over, and no login failed")
    void shouldMirrorInSyncOverSaslSslAndLoseNothingOnFailover() throws Exception
    {
        final ClusterSecurity security = ClusterSecurity.saslSsl(dir);
        mirrorInSyncAndFailOver(security.brokerConfig(), security.operatorConfig(), security.linkConfig());
    }

    /**
     * Both clusters with {@code broker}'s settings; the CLI, the admin, producer and consumer with {@code client}'s,
     * the mirror's source link with {@code link}'s: create, add --sync, promote, produce, kill the source, fail
     * over, and check every acknowledged record and every broker's failed authentications.
     */
    private void mirrorInSyncAndFailOver(final Map<String, String> broker, final Map<String, String> clientTls,
        final Map<String, String> linkTls) throws Exception
    {
        final Path clientConfig = write("client.properties", clientTls);
        final Path linkConfig = write("source-link.properties", linkTls);
        try (MirrorClusters clusters = MirrorClusters.start(1, 1, broker, broker))
        {
            final EmbeddedCluster source = clusters.source();
            final EmbeddedCluster destination = clusters.destination();
            try (Admin admin = Admin.create(properties(clientTls, source.bootstrapServers())))
            {
                Clients.createTopic(admin, TOPIC, PARTITIONS, (short)1, Map.of());
            }
            final String dest = destination.bootstrapServers();
            cli(0, "--bootstrap-server", dest, "--command-config", clientConfig.toString(), "--create",
                "--mirror", MIRROR, "--source-bootstrap-server", source.bootstrapServers(), "--source-config-file",
                linkConfig.toString());
            final String added = cli(0, "--bootstrap-server", dest, "--command-config", clientConfig.toString(),
                "--add", "--mirror", MIRROR, "--topics", TOPIC, "--sync", "--source-command-config",
                clientConfig.toString());
            assertTrue(!added.contains("WARNING"), "the probe reached the source over TLS: " + added);
            Clients.awaitCondition(() -> describe(dest, clientConfig).contains("Topic " + TOPIC + ": desired SYNC, "
                + "effective SYNC"), 60_000, "the topic promoted to SYNC over the TLS source link");

            final List<ProducerRecord<byte[], byte[]>> acked = new ArrayList<>();
            final Map<String, Object> producerTls = new HashMap<>(clientTls);
            try (KafkaProducer<byte[], byte[]> producer = Clients.producer(source.bootstrapServers(), producerTls))
            {
                final List<Future<RecordMetadata>> sends = new ArrayList<>();
                final List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();
                for (int i = 0; i < RECORDS; i++)
                {
                    final ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(TOPIC, i % PARTITIONS, null,
                        ("tls-" + i).getBytes(StandardCharsets.UTF_8));
                    sent.add(record);
                    sends.add(producer.send(record));
                }
                for (int i = 0; i < sends.size(); i++)
                {
                    sends.get(i).get(60, TimeUnit.SECONDS);
                    acked.add(sent.get(i));
                }
            }
            final long failedOnSource = source.broker(1).failedAuthentications();
            source.killBroker(1);
            cli(0, "--bootstrap-server", dest, "--command-config", clientConfig.toString(), "--stop", "--mirror",
                MIRROR, "--topics", TOPIC);
            Clients.awaitCondition(() -> describe(dest, clientConfig).contains("STOPPED"), 60_000,
                "the topic failed over");

            final Map<Integer, List<String>> read = new HashMap<>();
            try (KafkaConsumer<byte[], byte[]> consumer = Clients.consumer(dest, new HashMap<>(clientTls)))
            {
                final List<TopicPartition> partitions = List.of(new TopicPartition(TOPIC, 0),
                    new TopicPartition(TOPIC, 1));
                for (final ConsumerRecord<byte[], byte[]> record : Clients.readAll(consumer, partitions, RECORDS,
                    60_000))
                {
                    read.computeIfAbsent(record.partition(), p -> new ArrayList<>())
                        .add(new String(record.value(), StandardCharsets.UTF_8));
                }
            }
            for (final ProducerRecord<byte[], byte[]> record : acked)
            {
                final String value = new String(record.value(), StandardCharsets.UTF_8);
                assertTrue(read.getOrDefault(record.partition(), List.of()).contains(value),
                    "acknowledged record " + value + " is on the destination");
            }
            assertEquals(0, failedOnSource, "authentications that failed on the source broker");
            assertEquals(0, destination.broker(1).failedAuthentications(),
                "authentications that failed on the destination broker");
        }
    }

    private String describe(final String bootstrap, final Path clientConfig)
    {
        try
        {
            return cli(0, "--bootstrap-server", bootstrap, "--command-config", clientConfig.toString(), "--describe",
                "--mirror", MIRROR);
        }
        catch (final AssertionError e)
        {
            return "";
        }
    }

    /** Runs the CLI in-process, asserts its exit code and returns what it printed (stdout, then stderr). */
    private static String cli(final int expectedExit, final String... args)
    {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();
        final ByteArrayOutputStream err = new ByteArrayOutputStream();
        final int exit = ClusterMirrorsCommand.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
        final String printed = out.toString(StandardCharsets.UTF_8) + err.toString(StandardCharsets.UTF_8);
        assertEquals(expectedExit, exit, () -> String.join(" ", args) + "\n" + printed);
        return printed;
    }

    private Path write(final String name, final Map<String, String> configs) throws IOException
    {
        final Properties properties = new Properties();
        properties.putAll(configs);
        final Path file = dir.resolve(name);
        try (Writer writer = Files.newBufferedWriter(file, StandardCharsets.UTF_8))
        {
            properties.store(writer, null);
        }
        return file;
    }

    private static Properties properties(final Map<String, String> configs, final String bootstrap)
    {
        final Properties properties = new Properties();
        properties.putAll(configs);
        properties.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return properties;
    }
}
